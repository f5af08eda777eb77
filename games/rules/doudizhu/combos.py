"""Combinations of classic 斗地主 and what beats what.

Suits never matter: a combination is a multiset of ranks. Ranks are held as *positions*
``0..14``: 3 -> 0 ... A -> 11, 2 -> 12, black joker -> 13, red joker -> 14 (the order of single
cards). A multiset of ranks is a list of 15 counts, or packed into an ``int`` of 4-bit nibbles.

=========================  ==========  ==================================================  =========
kind                       cards       what it is                                          its rank
=========================  ==========  ==================================================  =========
single 单张                1           any card                                            the card
pair 对子                  2           two of a rank (two jokers are the rocket)           the rank
triple 三张                3           three of a rank                                     the rank
triple_single 三带一       4           a triple + one card of another rank                 triple
triple_pair 三带二         5           a triple + a pair of another rank                   triple
straight 单顺              5-12        consecutive singles inside 3..A                     highest
pair_straight 双顺         6, 8 ...    3+ consecutive pairs inside 3..A                    highest
airplane 三顺 / 飞机       6, 9 ...    2+ consecutive triples inside 3..A                  highest
airplane_singles 飞机带单  4 per       2+ consecutive triples + as many single wings       highest
airplane_pairs 飞机带对    5 per       2+ consecutive triples + as many pairs              highest
four_two_singles 四带二    6           four of a rank + two cards of other ranks           the four
four_two_pairs 四带两对    8           four of a rank + two pairs of two other ranks       the four
bomb 炸弹                  4           four of a rank                                      the rank
rocket 火箭                2           black joker + red joker                             -
=========================  ==========  ==================================================  =========

Kickers and wings (the cards a triple, an airplane or a four carries):

* the two jokers together are never kickers (they are the rocket);
* a kicker set never holds four of a rank (``333444 5555`` and ``3333 55 55`` are nothing);
* a kicker never has the rank of the triples or four it goes with (``444555 5 T`` is nothing);
* single wings may share a rank: ``333444 55`` is an airplane with two single wings, and
  ``333444555 999`` one with three; but three wings of a rank next to the chain make it longer
  (``333444555666`` is a chain of four triples, not three with three wings), so such wings are
  not wings; a 2 is never next to the chain (a chain never holds a 2): ``QQQKKKAAA 222`` flies;
* the two cards of four-with-two may be a pair (``3333 55``: 欢乐斗地主 allows it; the rules
  only say "two singles"). Four with two is not a bomb.

With these rules a multiset of ranks is at most one combination (the tests check it against a
brute-force reading of every kind), so a play never needs to say what it means.

Beating: the rocket beats everything; a bomb beats every non-bomb and every lower bomb;
otherwise a play beats the same kind with as many cards and a higher rank (any higher).

>>> str(classify(counts_of_ranks("3 3 3 4 4 4 5 5")))
'airplane_singles 4 x2'
>>> classify(counts_of_ranks("3 3 3 4 4 4 5 5 5 6 6 6")).kind is ComboKind.AIRPLANE
True
>>> classify(counts_of_ranks("4 4 4 5 5 5 5 T")) is None
True
>>> beats(classify(counts_of_ranks("7 7 7 7")), classify(counts_of_ranks("A A")))
True
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ..cards import Card, Rank
from ..errors import NotationError

__all__ = [
    "ACE",
    "BLACK",
    "POSITION_SYMBOLS",
    "RED",
    "TWO",
    "Combo",
    "ComboKind",
    "beats",
    "classify",
    "classify_mask",
    "combo",
    "counts_of_cards",
    "counts_of_ranks",
    "format_counts",
    "pack",
    "packed_counts",
    "position_of",
    "rank_of_position",
    "unpack",
]

ACE = 11  # the highest position a chain may reach
TWO = 12
BLACK = 13
RED = 14
POSITION_SYMBOLS = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "BJ", "RJ")
_RANK_OF_POSITION: tuple[Rank, ...] = tuple(Rank)  # 3 ... A, 2, BJ, RJ
_POSITION_OF_RANK = {rank: position for position, rank in enumerate(_RANK_OF_POSITION)}


def position_of(rank: Rank) -> int:
    return _POSITION_OF_RANK[rank]


def rank_of_position(position: int) -> Rank:
    return _RANK_OF_POSITION[position]


class ComboKind(enum.Enum):
    """The kinds, in the order the engine lists plays."""

    SINGLE = "single"
    PAIR = "pair"
    TRIPLE = "triple"
    TRIPLE_SINGLE = "triple_single"
    TRIPLE_PAIR = "triple_pair"
    STRAIGHT = "straight"
    PAIR_STRAIGHT = "pair_straight"
    AIRPLANE = "airplane"
    AIRPLANE_SINGLES = "airplane_singles"
    AIRPLANE_PAIRS = "airplane_pairs"
    FOUR_TWO_SINGLES = "four_two_singles"
    FOUR_TWO_PAIRS = "four_two_pairs"
    BOMB = "bomb"
    ROCKET = "rocket"

    @property
    def is_chain(self) -> bool:
        return self in _CHAINS

    @property
    def order(self) -> int:
        return _ORDER[self]


_CHAINS = frozenset(
    {
        ComboKind.STRAIGHT,
        ComboKind.PAIR_STRAIGHT,
        ComboKind.AIRPLANE,
        ComboKind.AIRPLANE_SINGLES,
        ComboKind.AIRPLANE_PAIRS,
    }
)
_ORDER = {kind: index for index, kind in enumerate(ComboKind)}
# Cards per unit of length: a straight's rank, a pair straight's pair, an airplane's triple ...
_CARDS_PER_UNIT = {
    ComboKind.SINGLE: 1,
    ComboKind.PAIR: 2,
    ComboKind.TRIPLE: 3,
    ComboKind.TRIPLE_SINGLE: 4,
    ComboKind.TRIPLE_PAIR: 5,
    ComboKind.STRAIGHT: 1,
    ComboKind.PAIR_STRAIGHT: 2,
    ComboKind.AIRPLANE: 3,
    ComboKind.AIRPLANE_SINGLES: 4,
    ComboKind.AIRPLANE_PAIRS: 5,
    ComboKind.FOUR_TWO_SINGLES: 6,
    ComboKind.FOUR_TWO_PAIRS: 8,
    ComboKind.BOMB: 4,
    ComboKind.ROCKET: 2,
}


class Combo(NamedTuple):
    """A combination's kind, compared rank (a position; a chain's highest) and length (the
    number of ranks a chain runs over; 1 for the others). Two plays of one kind and length
    hold as many cards."""

    kind: ComboKind
    rank: int
    length: int = 1

    @property
    def size(self) -> int:
        return _CARDS_PER_UNIT[self.kind] * self.length

    @property
    def is_bomb(self) -> bool:
        """A bomb or the rocket: each doubles the game."""
        return self.kind is ComboKind.BOMB or self.kind is ComboKind.ROCKET

    @property
    def low(self) -> int:
        """A chain's lowest position (the rank itself for the others)."""
        return self.rank - self.length + 1

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind.value, "rank": POSITION_SYMBOLS[self.rank], "length": self.length}

    def __str__(self) -> str:
        if self.kind is ComboKind.ROCKET:
            return "rocket"
        text = f"{self.kind.value} {POSITION_SYMBOLS[self.rank]}"
        if self.kind.is_chain:
            text += f" x{self.length}"
        return text


ROCKET = Combo(ComboKind.ROCKET, RED)


def combo(kind: ComboKind, rank: int, length: int = 1) -> Combo:
    return Combo(kind, rank, length)


def beats(play: Combo, table: Combo) -> bool:
    """Whether ``play`` beats ``table``."""
    kind = play.kind
    if kind is ComboKind.ROCKET:
        return True
    table_kind = table.kind
    if table_kind is ComboKind.ROCKET:
        return False
    if kind is ComboKind.BOMB:
        return table_kind is not ComboKind.BOMB or play.rank > table.rank
    return kind is table_kind and play.length == table.length and play.rank > table.rank


# Multisets of ranks -------------------------------------------------------------------------------


def pack(counts: Sequence[int]) -> int:
    """15 counts as one ``int``, nibble ``p`` holding position ``p``'s count."""
    packed = 0
    for position, count in enumerate(counts):
        packed |= count << (4 * position)
    return packed


def unpack(packed: int) -> list[int]:
    return [(packed >> (4 * p)) & 15 for p in range(15)]


# Per byte of a card mask (two ranks' nibbles): each nibble's number of cards, in place.
_POP_NIBBLES = bytes((b & 15).bit_count() | ((b >> 4).bit_count() << 4) for b in range(256))
_NATURAL = (1 << 52) - 1


def packed_counts(mask: int) -> int:
    """A card mask's counts, packed as ``pack`` packs them, at C speed."""
    packed = int.from_bytes(
        (mask & _NATURAL).to_bytes(7, "little").translate(_POP_NIBBLES), "little"
    )
    return packed | ((mask >> 52) & 1) << 52 | ((mask >> 53) & 1) << 56


def classify_mask(mask: int) -> Combo | None:
    """``classify`` of a card mask's ranks."""
    key = packed_counts(mask)
    try:
        return _CLASSIFIED[key]
    except KeyError:
        found = _CLASSIFIED[key] = _classify(unpack(key))
        return found


def counts_of_cards(cards: Iterable[Card]) -> list[int]:
    counts = [0] * 15
    for card in cards:
        counts[card.index // 4 if card.index < 52 else card.index - 39] += 1
    return counts


def counts_of_ranks(text: str) -> list[int]:
    """Counts from ranks written with spaces (``"3 3 3 5"``); ``NotationError`` for bad text."""
    counts = [0] * 15
    for token in text.split():
        counts[position_of(Rank.parse(token))] += 1
    if counts[BLACK] > 1 or counts[RED] > 1 or max(counts) > 4:
        raise NotationError(f"{text!r} holds more cards of a rank than one deck has")
    return counts


def format_counts(counts: Sequence[int]) -> str:
    """Ranks ascending, separated by spaces: ``"3 3 3 5"``."""
    return " ".join(POSITION_SYMBOLS[p] for p, count in enumerate(counts) for _ in range(count))


# Classification ---------------------------------------------------------------------------------


def classify(counts: Sequence[int]) -> Combo | None:
    """The combination a multiset of ranks is, or None (see the module's rules)."""
    key = pack(counts)
    try:
        return _CLASSIFIED[key]
    except KeyError:
        found = _CLASSIFIED[key] = _classify(counts)
        return found


_CLASSIFIED: dict[int, Combo | None] = {}


def _classify(counts: Sequence[int]) -> Combo | None:
    size = sum(counts)
    ranks = [p for p in range(15) if counts[p]]
    shape = sorted((counts[p] for p in ranks), reverse=True)
    top = ranks[-1] if ranks else 0
    if size == 0:
        return None
    if size == 1:
        return Combo(ComboKind.SINGLE, top)
    if shape == [1, 1] and ranks == [BLACK, RED]:
        return ROCKET
    if len(ranks) == 1:
        kind = _SAME_RANK.get(size)
        return None if kind is None else Combo(kind, top)
    by_count: dict[int, list[int]] = {}
    for p in ranks:
        by_count.setdefault(counts[p], []).append(p)
    if shape == [3, 1]:
        return Combo(ComboKind.TRIPLE_SINGLE, by_count[3][0])
    if shape == [3, 2]:
        return Combo(ComboKind.TRIPLE_PAIR, by_count[3][0])
    if shape[0] == 4 and len(by_count[4]) == 1:
        four = by_count[4][0]
        if size == 6 and [p for p in ranks if p != four] != [BLACK, RED]:
            return Combo(ComboKind.FOUR_TWO_SINGLES, four)
        if size == 8 and shape == [4, 2, 2]:
            return Combo(ComboKind.FOUR_TWO_PAIRS, four)
    # Chains: every rank once, twice or three times, consecutive inside 3..A.
    if shape[0] == shape[-1] and top <= ACE and top - ranks[0] + 1 == len(ranks):
        n, width = len(ranks), shape[0]
        if width == 1 and n >= 5:
            return Combo(ComboKind.STRAIGHT, top, n)
        if width == 2 and n >= 3:
            return Combo(ComboKind.PAIR_STRAIGHT, top, n)
        if width == 3 and n >= 2:
            return Combo(ComboKind.AIRPLANE, top, n)
    return _airplane_with_wings(counts, size)


_SAME_RANK = {2: ComboKind.PAIR, 3: ComboKind.TRIPLE, 4: ComboKind.BOMB}


def _airplane_with_wings(counts: Sequence[int], size: int) -> Combo | None:
    """An airplane with single wings (4 cards a triple) or pair wings (5): its chain is a run of
    ranks held exactly three times, as long as the wings are many, with no such rank next to it."""
    for per_triple, kind in ((4, ComboKind.AIRPLANE_SINGLES), (5, ComboKind.AIRPLANE_PAIRS)):
        if size % per_triple:
            continue
        length = size // per_triple
        if length < 2:
            continue
        for low, high in _runs_of_three(counts):
            if high - low + 1 != length:
                continue
            wings = [counts[p] for p in range(15) if not low <= p <= high and counts[p]]
            if max(wings) >= 4 or (counts[BLACK] and counts[RED]):
                continue
            if kind is ComboKind.AIRPLANE_PAIRS and any(w != 2 for w in wings):
                continue
            return Combo(kind, high, length)
    return None


def _runs_of_three(counts: Sequence[int]) -> list[tuple[int, int]]:
    """Maximal runs of positions inside 3..A held exactly three times, as (low, high)."""
    runs = []
    start = None
    for p in range(ACE + 2):
        if p <= ACE and counts[p] == 3:
            if start is None:
                start = p
        elif start is not None:
            runs.append((start, p - 1))
            start = None
    return runs
