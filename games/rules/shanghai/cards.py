"""The 108 cards of 上海斗地主 (two decks, four jokers) and their text notation.

A card is written as in every game of the family (``games.rules.cards``: ``As``, ``Th``, ``10h``,
``BJ``, ``RJ``) with its deck after a dot, ``.1`` or ``.2``: ``As.1``, ``BJ.2``. Parsing accepts a
card without its deck and gives it the first copy that the same text has not named yet (``"As
As"`` is ``As.1 As.2``); output always writes the deck. Suits and decks never decide anything in
play; they only make each card distinct.

>>> format_cards(parse_cards("as 10h as bj"))
'Th.1 As.1 As.2 BJ.1'

Each card has an index, and a set of cards is an ``int`` bit mask over those indexes: rank
*position* ``p`` (3 -> 0 ... A -> 11, 2 -> 12, black joker -> 13, red joker -> 14) owns byte
``p`` of the mask; a suited card sits at bit ``8 * p + 2 * suit + deck - 1``, a joker at ``8 * p
+ deck - 1``. The canonical order is the index order: by rank, then suit, then deck.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

from ..cards import Card as DeckCard
from ..cards import Rank, Suit
from ..errors import NotationError

__all__ = [
    "CARDS",
    "DECK_MASK",
    "POSITION_SYMBOLS",
    "POSITIONS",
    "Card",
    "card_at",
    "cards_from_mask",
    "format_cards",
    "format_mask",
    "mask_of",
    "parse_card",
    "parse_cards",
    "parse_mask",
]

POSITIONS = 15
#: Rank symbols by position.
POSITION_SYMBOLS = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "BJ", "RJ")


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class Card:
    """One of the 108 cards. Ordered by ``index`` (the canonical order)."""

    index: int
    rank: Rank
    suit: Suit | None
    deck: int  # 1 or 2

    @property
    def position(self) -> int:
        return self.index >> 3

    @property
    def bit(self) -> int:
        return 1 << self.index

    @property
    def is_joker(self) -> bool:
        return self.suit is None

    def __str__(self) -> str:
        return _TEXT[self.index]

    def __repr__(self) -> str:
        return f"parse_card({str(self)!r})"


def _build() -> tuple[Card, ...]:
    cards = []
    for base in (DeckCard(i) for i in range(54)):
        position = base.index // 4 if base.index < 52 else base.index - 39
        for deck in (1, 2):
            if base.suit is None:
                index = 8 * position + deck - 1
            else:
                index = 8 * position + 2 * int(base.suit) + deck - 1
            cards.append(Card(index, base.rank, base.suit, deck))
    return tuple(sorted(cards))


CARDS: tuple[Card, ...] = _build()
_BY_INDEX: dict[int, Card] = {card.index: card for card in CARDS}
_TEXT: dict[int, str] = {
    card.index: f"{card.rank.symbol}{'' if card.suit is None else card.suit.symbol}.{card.deck}"
    for card in CARDS
}
# Upper-case text without the deck -> the index of its first copy (the second is one above).
_FIRST: dict[str, int] = {}
for _card in CARDS:
    if _card.deck == 1:
        _base = _TEXT[_card.index][:-2].upper()
        _FIRST[_base] = _card.index
        if _base.startswith("T") and len(_base) == 2:
            _FIRST["10" + _base[1]] = _card.index
DECK_MASK = sum(card.bit for card in CARDS)


def card_at(index: int) -> Card:
    """The card of an index; ``KeyError`` for an index no card has."""
    return _BY_INDEX[index]


def _split(token: str) -> tuple[int, int | None]:
    """A token's first-copy index and its deck (None when it names none)."""
    text = token.strip().upper()
    deck: int | None = None
    if "." in text:
        text, _, suffix = text.partition(".")
        if suffix not in ("1", "2"):
            raise NotationError(f"{token!r}: the deck after the dot is 1 or 2")
        deck = int(suffix)
    first = _FIRST.get(text)
    if first is None:
        raise NotationError(
            f"{token!r} is not a card (write rank then suit, like Ts, 10h, 2c, or BJ / RJ, "
            "with the deck after a dot where it matters: As.2)"
        )
    return first, deck


def parse_card(token: str) -> Card:
    """One card; without a deck, the first copy."""
    first, deck = _split(token)
    return _BY_INDEX[first + (deck or 1) - 1]


def parse_cards(text: str) -> tuple[Card, ...]:
    """Space-separated cards, in the order written. A card without its deck takes the first
    copy the text does not name elsewhere; a copy named twice, or a third copy, is an error."""
    if not isinstance(text, str):
        raise NotationError(f"cards must be written as a string, not {type(text).__name__}")
    tokens = [(token, *_split(token)) for token in text.split()]
    used: set[int] = set()
    for _token, first, deck in tokens:
        if deck is not None:
            index = first + deck - 1
            if index in used:
                raise NotationError(f"card {_TEXT[index]} is listed twice in {text!r}")
            used.add(index)
    out = []
    for token, first, deck in tokens:
        if deck is None:
            index = first if first not in used else first + 1
            if index in used:
                raise NotationError(f"{text!r} holds {token} more than twice: two decks only")
            used.add(index)
        else:
            index = first + deck - 1
        out.append(_BY_INDEX[index])
    return tuple(out)


def parse_mask(text: str) -> int:
    return mask_of(parse_cards(text))


def format_cards(cards: Iterable[Card]) -> str:
    """Canonical text of a set of cards: in index order, each with its deck."""
    return " ".join(_TEXT[card.index] for card in sorted(cards))


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return mask


def cards_from_mask(mask: int) -> tuple[Card, ...]:
    """The cards of a bit mask, in canonical order."""
    return tuple(_iter_mask(mask))


def _iter_mask(mask: int) -> Iterator[Card]:
    while mask:
        low = mask & -mask
        yield _BY_INDEX[low.bit_length() - 1]
        mask ^= low


def format_mask(mask: int) -> str:
    return " ".join(_TEXT[card.index] for card in _iter_mask(mask))
