"""Combinations of 上海斗地主 and what beats what (rules §10, §11, §13).

Suits and decks never matter: a combination is a multiset of ranks, held as 15 counts by rank
*position* (3 -> 0 ... A -> 11, 2 -> 12, black joker -> 13, red joker -> 14: the order of single
cards, 3 < ... < A < 2 < BJ < RJ).

=========================  =========  ===============================================  ===========
kind                       cards      what it is                                       its rank
=========================  =========  ===============================================  ===========
single 单张                1          any card                                         the card
pair 对子                  2          two of a rank; two jokers of a colour (BJ BJ)    the rank
triple 三条                3          three of a rank                                  the rank
full_house 呼路            5          a triple + a pair of another rank (jokers too)   the triple
straight 顺子              5-13       consecutive singles of a chain                   top place
sister_pairs 姐妹对        6-26       3+ consecutive pairs of a chain                  top place
airplane 飞机              6-39       2+ consecutive triples of a chain                top place
airplane_cannons 飞机大炮  10, 15 ..  k ≥ 2 consecutive triples + k consecutive        airplane's
                                      pairs of a chain on other ranks                  top place
bomb 炸弹                  4-8        4 to 8 of a rank (not jokers)                    cards, rank
joker_bomb 四张怪          4          the four jokers                                  -
=========================  =========  ===============================================  ===========

Chains run in the natural order A 2 3 ... K A: a card's *place* is 1 for a low A, 2 for a 2, 3..13
for 3..K and 14 for a high A; jokers never stand in a chain and there is no wrap. A chain's rank is
its top place, so ``A2345`` (5) < ``23456`` (6) < ``TJQKA`` (14); ``JQKA2`` and ``KA234`` are not
chains. A chain of all 13 ranks reads both ways and counts at its best reading, 14: one such
chain never beats another.

Beating: the four-joker bomb beats everything; a bomb beats every non-bomb, and a bomb with more
cards, or as many and a higher rank; otherwise a play beats the same kind with as many cards and a
higher rank. Five of a rank is a bomb, never a full house; ``BJ RJ`` is nothing.

>>> str(classify(counts_of_ranks("A 2 3 4 5")))
'straight 5 x5'
>>> classify(counts_of_ranks("J Q K A 2")) is None
True
>>> beats(classify(counts_of_ranks("3 3 3 3 3")), classify(counts_of_ranks("A A A A")))
True
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ..cards import Rank
from ..errors import NotationError
from .cards import POSITION_SYMBOLS, Card

__all__ = [
    "ACE",
    "BLACK",
    "JOKER_BOMB",
    "PLACE_SYMBOLS",
    "RED",
    "TWO",
    "Combo",
    "ComboKind",
    "beats",
    "chain_top",
    "classify",
    "classify_mask",
    "counts_of_cards",
    "counts_of_mask",
    "counts_of_ranks",
    "format_counts",
    "place_positions",
]

ACE = 11
TWO = 12
BLACK = 13
RED = 14
#: Symbols of the chain places 1..14 (index 0 unused).
PLACE_SYMBOLS = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
_POSITION_OF_SYMBOL = {symbol: p for p, symbol in enumerate(POSITION_SYMBOLS)}


def place_positions(place: int) -> int:
    """The rank position of a chain place (1 and 14 are both the A)."""
    if place in (1, 14):
        return ACE
    if place == 2:
        return TWO
    return place - 3


class ComboKind(enum.Enum):
    """The kinds, in the order the engine lists plays."""

    SINGLE = "single"
    PAIR = "pair"
    TRIPLE = "triple"
    FULL_HOUSE = "full_house"
    STRAIGHT = "straight"
    SISTER_PAIRS = "sister_pairs"
    AIRPLANE = "airplane"
    AIRPLANE_CANNONS = "airplane_cannons"
    BOMB = "bomb"
    JOKER_BOMB = "joker_bomb"

    @property
    def is_chain(self) -> bool:
        return self in _CHAINS

    @property
    def is_bomb(self) -> bool:
        return self is ComboKind.BOMB or self is ComboKind.JOKER_BOMB


_CHAINS = frozenset(
    {
        ComboKind.STRAIGHT,
        ComboKind.SISTER_PAIRS,
        ComboKind.AIRPLANE,
        ComboKind.AIRPLANE_CANNONS,
    }
)
_CARDS_PER_UNIT = {
    ComboKind.SINGLE: 1,
    ComboKind.PAIR: 2,
    ComboKind.TRIPLE: 3,
    ComboKind.FULL_HOUSE: 5,
    ComboKind.STRAIGHT: 1,
    ComboKind.SISTER_PAIRS: 2,
    ComboKind.AIRPLANE: 3,
    ComboKind.AIRPLANE_CANNONS: 5,
    ComboKind.BOMB: 1,
    ComboKind.JOKER_BOMB: 4,
}


class Combo(NamedTuple):
    """A combination's kind, compared rank and length.

    ``rank``: a rank position (0..14) for single, pair, triple, full house (its triple) and bomb;
    a chain's top place (1..14) for the chains (the airplane's, for airplane_cannons).
    ``length``: the ranks a chain runs over (an airplane_cannons' triples), a bomb's cards, else 1.
    """

    kind: ComboKind
    rank: int
    length: int = 1

    @property
    def size(self) -> int:
        return _CARDS_PER_UNIT[self.kind] * self.length

    @property
    def is_bomb(self) -> bool:
        return self.kind is ComboKind.BOMB or self.kind is ComboKind.JOKER_BOMB

    @property
    def rank_symbol(self) -> str:
        if self.kind is ComboKind.JOKER_BOMB:
            return "RJ"
        if self.kind.is_chain:
            return PLACE_SYMBOLS[self.rank]
        return POSITION_SYMBOLS[self.rank]

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind.value, "rank": self.rank_symbol, "length": self.length}

    def __str__(self) -> str:
        if self.kind is ComboKind.JOKER_BOMB:
            return "joker_bomb"
        text = f"{self.kind.value} {self.rank_symbol}"
        if self.kind.is_chain or self.kind is ComboKind.BOMB:
            text += f" x{self.length}"
        return text


JOKER_BOMB = Combo(ComboKind.JOKER_BOMB, RED)


def beats(play: Combo, table: Combo) -> bool:
    """Whether ``play`` beats ``table``."""
    kind = play.kind
    table_kind = table.kind
    if kind is ComboKind.JOKER_BOMB:
        return table_kind is not ComboKind.JOKER_BOMB
    if table_kind is ComboKind.JOKER_BOMB:
        return False
    if kind is ComboKind.BOMB:
        if table_kind is not ComboKind.BOMB:
            return True
        return (play.length, play.rank) > (table.length, table.rank)
    return kind is table_kind and play.length == table.length and play.rank > table.rank


# Multisets of ranks -------------------------------------------------------------------------------

_POP = bytes(b.bit_count() for b in range(256))


def counts_of_mask(mask: int) -> bytes:
    """A card mask's 15 counts, by position (a ``bytes``, at C speed)."""
    return mask.to_bytes(15, "little").translate(_POP)


def counts_of_cards(cards: Iterable[Card]) -> list[int]:
    counts = [0] * 15
    for card in cards:
        counts[card.index >> 3] += 1
    return counts


def counts_of_ranks(text: str) -> list[int]:
    """Counts from ranks written with spaces (``"3 3 3 BJ BJ"``)."""
    counts = [0] * 15
    for token in text.split():
        counts[_POSITION_OF_SYMBOL[Rank.parse(token).symbol]] += 1
    if counts[BLACK] > 2 or counts[RED] > 2 or max(counts) > 8:
        raise NotationError(f"{text!r} holds more cards of a rank than two decks have")
    return counts


def format_counts(counts: Sequence[int]) -> str:
    return " ".join(POSITION_SYMBOLS[p] for p, count in enumerate(counts) for _ in range(count))


# Classification ---------------------------------------------------------------------------------


def chain_top(positions: Sequence[int]) -> int | None:
    """The top place of the chain these distinct rank positions (ascending) form at their best
    reading, or None when they form none (a joker, a gap, a wrap)."""
    if not positions or positions[-1] > TWO:
        return None
    # 3..K sit at places 3..13 and a 2 at place 2; an A is read high (14) first, then low (1).
    base = sorted(2 if p == TWO else p + 3 for p in positions if p != ACE)
    for ace in (14, 1) if ACE in positions else (0,):
        places = sorted([*base, ace]) if ace else base
        if places[-1] - places[0] + 1 == len(places):
            return places[-1]
    return None


def classify_mask(mask: int) -> Combo | None:
    """``classify`` of a card mask's ranks."""
    key = counts_of_mask(mask)
    try:
        return _CLASSIFIED[key]
    except KeyError:
        found = _CLASSIFIED[key] = _classify(key)
        return found


def classify(counts: Sequence[int]) -> Combo | None:
    """The combination a multiset of ranks is, or None (see the module's rules)."""
    key = bytes(counts)
    try:
        return _CLASSIFIED[key]
    except KeyError:
        found = _CLASSIFIED[key] = _classify(key)
        return found


_CLASSIFIED: dict[bytes, Combo | None] = {}


def _classify(counts: bytes) -> Combo | None:
    ranks = [p for p in range(15) if counts[p]]
    if not ranks:
        return None
    size = sum(counts)
    if len(ranks) == 1:
        p = ranks[0]
        if size == 1:
            return Combo(ComboKind.SINGLE, p)
        if size == 2:
            return Combo(ComboKind.PAIR, p)
        if size == 3:
            return Combo(ComboKind.TRIPLE, p)
        return Combo(ComboKind.BOMB, p, size) if p <= TWO else None
    if ranks == [BLACK, RED]:
        return JOKER_BOMB if size == 4 else None
    widths = {counts[p] for p in ranks}
    if len(widths) == 1:
        width = widths.pop()
        n = len(ranks)
        if width <= 3 and n >= (5, 3, 2)[width - 1]:
            top = chain_top(ranks)
            if top is not None:
                kind = (ComboKind.STRAIGHT, ComboKind.SISTER_PAIRS, ComboKind.AIRPLANE)[width - 1]
                return Combo(kind, top, n)
        return None
    if widths != {2, 3}:
        return None
    triples = [p for p in ranks if counts[p] == 3]
    pairs = [p for p in ranks if counts[p] == 2]
    if len(triples) == 1 and len(pairs) == 1:
        return Combo(ComboKind.FULL_HOUSE, triples[0])
    if len(triples) == len(pairs) >= 2:
        top = chain_top(triples)
        if top is not None and chain_top(pairs) is not None:
            return Combo(ComboKind.AIRPLANE_CANNONS, top, len(triples))
    return None
