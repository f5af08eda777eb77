"""Cards of the 54-card deck and their text notation.

Shared by every game of the family: suits never decide anything in these games, ranks do.

Notation (one card): a rank ``3 4 5 6 7 8 9 T J Q K A 2`` (``10`` is accepted for ``T``) followed
by a suit ``s h d c`` (♠ ♥ ♦ ♣), or ``BJ`` / ``RJ`` for the black and the red joker. Cards are
separated by spaces; parsing is case-insensitive and the output is canonical.

>>> format_cards(parse_cards("10h 3s bj"))
'3s Th BJ'
>>> Card.parse("ah").rank
<Rank.ACE: 14>

Every card has an index 0..53 in canonical order (rank first, then suit, jokers last), and a set of
cards is an ``int`` bit mask over those indexes, which is how the engines keep hands compactly.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Iterator

from .errors import NotationError

__all__ = [
    "BLACK_JOKER",
    "CARDS",
    "DECK_MASK",
    "JOKER_MASK",
    "RED_JOKER",
    "Card",
    "Rank",
    "Suit",
    "cards_from_mask",
    "format_cards",
    "format_ranks",
    "mask_of",
    "parse_cards",
    "parse_ranks",
]


class Suit(enum.IntEnum):
    """The four suits, in canonical order. They only make each card distinct."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def symbol(self) -> str:
        return "shdc"[self]


class Rank(enum.IntEnum):
    """Ranks with the values of the rule card: 3..10, J 11, Q 12, K 13, A 14, 2 16, jokers 20/21."""

    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14
    TWO = 16
    BLACK_JOKER = 20
    RED_JOKER = 21

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOL[self]

    @property
    def is_joker(self) -> bool:
        return self >= Rank.BLACK_JOKER

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Parse one rank symbol (``T``, ``10``, ``a``, ``BJ`` ...)."""
        rank = _RANK_BY_SYMBOL.get(text.strip().upper())
        if rank is None:
            raise NotationError(f"{text!r} is not a rank (use 3-9, T or 10, J, Q, K, A, 2, BJ, RJ)")
        return rank


_RANK_SYMBOL = {
    **{Rank(v): str(v) for v in range(3, 10)},
    Rank.TEN: "T",
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.ACE: "A",
    Rank.TWO: "2",
    Rank.BLACK_JOKER: "BJ",
    Rank.RED_JOKER: "RJ",
}
_RANK_BY_SYMBOL = {symbol: rank for rank, symbol in _RANK_SYMBOL.items()} | {"10": Rank.TEN}

#: The 13 suited ranks in ascending order; a suited card's index is ``4 * position + suit``.
SUITED_RANKS: tuple[Rank, ...] = tuple(r for r in Rank if not r.is_joker)


class Card:
    """One card of the deck. There are exactly 54 instances, one per card, so ``is`` works too.

    >>> Card.parse("Ts") is CARDS[28]
    True
    """

    __slots__ = ("index", "rank", "suit", "_text")

    index: int
    rank: Rank
    suit: Suit | None
    _text: str

    def __new__(cls, index: int) -> Card:
        if not (isinstance(index, int) and 0 <= index < 54):
            raise ValueError(f"card index {index!r} is outside 0..53")
        try:
            return CARDS[index]
        except NameError:  # building the deck itself
            card = object.__new__(cls)
            _set_index(card, index)
            if index >= 52:
                _set_rank(card, Rank.BLACK_JOKER if index == 52 else Rank.RED_JOKER)
                _set_suit(card, None)
            else:
                _set_rank(card, SUITED_RANKS[index // 4])
                _set_suit(card, Suit(index % 4))
            # Cards are written out in every frame: the text is made once.
            suit = card.suit
            _set_text(card, card.rank.symbol + ("" if suit is None else suit.symbol))
            return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (self.index,))

    @classmethod
    def parse(cls, text: str) -> Card:
        key = text.strip().upper()
        card = _CARD_BY_TEXT.get(key)
        if card is None:
            raise NotationError(
                f"{text!r} is not a card (write rank then suit, like Ts, 10h, 2c, or BJ / RJ)"
            )
        return card

    @property
    def is_joker(self) -> bool:
        return self.index >= 52

    @property
    def bit(self) -> int:
        return 1 << self.index

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __le__(self, other: Card) -> bool:
        return self.index <= other.index

    def __gt__(self, other: Card) -> bool:
        return self.index > other.index

    def __ge__(self, other: Card) -> bool:
        return self.index >= other.index


_set_index = vars(Card)["index"].__set__
_set_rank = vars(Card)["rank"].__set__
_set_suit = vars(Card)["suit"].__set__
_set_text = vars(Card)["_text"].__set__

CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(54))
BLACK_JOKER = CARDS[52]
RED_JOKER = CARDS[53]
DECK_MASK = (1 << 54) - 1
JOKER_MASK = BLACK_JOKER.bit | RED_JOKER.bit

_CARD_BY_TEXT: dict[str, Card] = {}
for _card in CARDS:
    _CARD_BY_TEXT[str(_card).upper()] = _card
    if _card.rank is Rank.TEN and _card.suit is not None:
        _CARD_BY_TEXT["10" + _card.suit.symbol.upper()] = _card


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse space-separated cards, in the order written. Repeats are an error.

    >>> parse_cards("5s 6h BJ")
    (Card.parse('5s'), Card.parse('6h'), Card.parse('BJ'))
    """
    if not isinstance(text, str):
        raise NotationError(f"cards must be written as a string, not {type(text).__name__}")
    cards = tuple(Card.parse(token) for token in text.split())
    if len({card.index for card in cards}) != len(cards):
        seen: set[int] = set()
        for card in cards:
            if card.index in seen:
                raise NotationError(f"card {card} is listed twice in {text!r}")
            seen.add(card.index)
    return cards


def format_cards(cards: Iterable[Card]) -> str:
    """Canonical text for a set of cards: sorted by rank, then suit, jokers last."""
    return " ".join(str(card) for card in sorted(cards, key=lambda card: card.index))


def parse_ranks(text: str) -> tuple[Rank, ...]:
    """Parse a space-separated list of ranks (``"4 5 6"``), sorted ascending."""
    if not isinstance(text, str):
        raise NotationError(f"ranks must be written as a string, not {type(text).__name__}")
    ranks = tuple(sorted(Rank.parse(token) for token in text.split()))
    if not ranks:
        raise NotationError("an empty list of ranks means nothing")
    return ranks


def format_ranks(ranks: Iterable[Rank]) -> str:
    return " ".join(rank.symbol for rank in sorted(ranks))


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return mask


@functools.lru_cache(maxsize=8192)
def cards_from_mask(mask: int) -> tuple[Card, ...]:
    """The cards of a bit mask, in canonical order. A hand's mask is asked for again at every
    change of its game until the hand changes: the answers are kept."""
    return tuple(_iter_mask(mask))


def _iter_mask(mask: int) -> Iterator[Card]:
    while mask:
        low = mask & -mask
        yield CARDS[low.bit_length() - 1]
        mask ^= low
