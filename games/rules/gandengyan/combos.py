"""Combinations of 干瞪眼 and what beats what.

=================  =======  =======================================================  ==============
kind               cards    what it is                                               its rank
=================  =======  =======================================================  ==============
single   单张      1        one card, not a joker (a lone joker: see the engine)     the card's rank
pair     对子      2        two cards of one rank, 2 included                        that rank
straight 顺子      3-12     consecutive ranks inside 3..A, each once; no 2           lowest rank
pair straight 对顺 4,6,..   two or more consecutive pairs inside 3..A; no 2          lowest rank
soft bomb 软炸     3        three of one rank, 2 included                            that rank
hard bomb 硬炸     4        four of one rank, 2 included                             that rank
rocket   火箭      2        black joker + red joker                                  none
=================  =======  =======================================================  ==============

Wildcards: one joker in a combination stands for any one card it needs, but never for a 2 inside a
straight or pair straight, nor for a joker; at most one joker per combination except the rocket; the
two jokers together are always the rocket; four of a kind plus a joker is nothing.

Beating (大一点): a rocket beats everything and nothing beats it; a hard bomb beats soft bombs
and normal combinations, and a hard bomb exactly one rank higher; a soft bomb beats normal
combinations and a soft bomb exactly one higher; a normal combination beats one of the same kind
and length exactly one rank higher; a single 2 beats any single but a 2. Nothing is one higher
than an A (14 -> 15 is no rank).

House rules (``GandengyanRules``) narrow the meanings (``meanings``: no pair straights, shorter
straights, no joker as a 2) and widen what beats what (``beats``: a pair of 2s over any pair, a
bomb of 2s over its class, a natural bomb over the same wild one, a bomb over any lower one of its
class). A meaning some rules refuse is never one the standard game lacks.

>>> from games.rules.gandengyan.options import GandengyanRules
>>> beats(PAIR[Rank.TWO], PAIR[Rank.FIVE]), beats(PAIR[Rank.TWO], PAIR[Rank.FIVE],
...                                               GandengyanRules(twos_jump_pairs=True))
(False, True)

>>> from games.rules.cards import mask_of, parse_cards
>>> [str(c) for c in interpretations(mask_of(parse_cards("5s 6h BJ")))]
['straight 4 5 6', 'straight 5 6 7']
>>> beats(PAIR[Rank.FIVE], PAIR[Rank.FOUR]), beats(PAIR[Rank.SIX], PAIR[Rank.FOUR])
(True, False)
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Sequence

from ..cards import (
    BLACK_JOKER,
    RED_JOKER,
    SUITED_RANKS,
    Rank,
    format_ranks,
)
from ..errors import NotationError
from .options import STANDARD, GandengyanRules

__all__ = [
    "HARD_BOMB",
    "PAIR",
    "PAIR_STRAIGHT",
    "ROCKET",
    "SINGLE",
    "SOFT_BOMB",
    "STRAIGHT",
    "Combo",
    "ComboKind",
    "beats",
    "combo_from_ranks",
    "interpretations",
    "meanings",
    "next_rank",
]


class ComboKind(enum.Enum):
    SINGLE = "single"
    PAIR = "pair"
    STRAIGHT = "straight"
    PAIR_STRAIGHT = "pair_straight"
    SOFT_BOMB = "soft_bomb"
    HARD_BOMB = "hard_bomb"
    ROCKET = "rocket"

    @property
    def bomb_class(self) -> int:
        """0 for normal combinations, then soft bomb 1, hard bomb 2, rocket 3."""
        return _BOMB_CLASS[self]

    @property
    def order(self) -> int:
        return _KIND_ORDER[self]


_BOMB_CLASS = {
    ComboKind.SINGLE: 0,
    ComboKind.PAIR: 0,
    ComboKind.STRAIGHT: 0,
    ComboKind.PAIR_STRAIGHT: 0,
    ComboKind.SOFT_BOMB: 1,
    ComboKind.HARD_BOMB: 2,
    ComboKind.ROCKET: 3,
}
_KIND_ORDER = {kind: position for position, kind in enumerate(ComboKind)}

#: Position of each suited rank in ``SUITED_RANKS`` (3 -> 0 ... A -> 11, 2 -> 12).
RANK_POSITION: dict[Rank, int] = {rank: position for position, rank in enumerate(SUITED_RANKS)}
ACE_POSITION = RANK_POSITION[Rank.ACE]
TWO_POSITION = RANK_POSITION[Rank.TWO]


def next_rank(rank: Rank) -> Rank | None:
    """The rank exactly one higher (大一点), or None: nothing is one higher than an A or a 2."""
    if rank >= Rank.ACE:
        return None
    return Rank(rank + 1)


class Combo:
    """A combination as it counts on the table: kind, rank and number of cards.

    Every possible combination exists once (see the tables below), so combos compare by identity
    as well as by value.
    """

    __slots__ = ("bomb_class", "kind", "length", "rank", "ranks")

    kind: ComboKind
    rank: Rank | None
    length: int
    bomb_class: int
    ranks: tuple[Rank, ...]

    def __new__(cls, kind: ComboKind, rank: Rank | None, length: int) -> Combo:
        existing = _ALL_COMBOS.get((kind, rank, length))
        if existing is None:
            raise ValueError(f"there is no {kind.value} of rank {rank} and {length} cards")
        return existing

    @classmethod
    def _create(
        cls, kind: ComboKind, rank: Rank | None, length: int, ranks: tuple[Rank, ...]
    ) -> Combo:
        combo = object.__new__(cls)
        for name, value in (
            ("kind", kind),
            ("rank", rank),
            ("length", length),
            ("bomb_class", kind.bomb_class),
            ("ranks", ranks),
        ):
            object.__setattr__(combo, name, value)
        _ALL_COMBOS[(kind, rank, length)] = combo
        return combo

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("combos are immutable")

    def __reduce__(self) -> tuple[type[Combo], tuple[ComboKind, Rank | None, int]]:
        return (Combo, (self.kind, self.rank, self.length))

    @property
    def is_bomb(self) -> bool:
        return self.bomb_class > 0

    @property
    def sort_key(self) -> tuple[int, int, int]:
        return (self.kind.order, self.length, 0 if self.rank is None else int(self.rank))

    def ranks_text(self) -> str:
        """The represented ranks, ascending: ``"4 5 6"``, ``"5 5"``, ``"BJ RJ"``."""
        return format_ranks(self.ranks)

    def __str__(self) -> str:
        return f"{self.kind.value} {self.ranks_text()}"

    def __repr__(self) -> str:
        return f"<Combo {self}>"


_ALL_COMBOS: dict[tuple[ComboKind, Rank | None, int], Combo] = {}

SINGLE: dict[Rank, Combo] = {r: Combo._create(ComboKind.SINGLE, r, 1, (r,)) for r in SUITED_RANKS}
PAIR: dict[Rank, Combo] = {r: Combo._create(ComboKind.PAIR, r, 2, (r, r)) for r in SUITED_RANKS}
SOFT_BOMB: dict[Rank, Combo] = {
    r: Combo._create(ComboKind.SOFT_BOMB, r, 3, (r,) * 3) for r in SUITED_RANKS
}
HARD_BOMB: dict[Rank, Combo] = {
    r: Combo._create(ComboKind.HARD_BOMB, r, 4, (r,) * 4) for r in SUITED_RANKS
}
#: Straights by (lowest rank, number of cards); inside 3..A only.
STRAIGHT: dict[tuple[Rank, int], Combo] = {
    (SUITED_RANKS[start], length): Combo._create(
        ComboKind.STRAIGHT,
        SUITED_RANKS[start],
        length,
        SUITED_RANKS[start : start + length],
    )
    for length in range(3, ACE_POSITION + 2)
    for start in range(0, ACE_POSITION + 2 - length)
}
#: Pair straights by (lowest rank, number of cards = 2 x number of pairs); inside 3..A only.
PAIR_STRAIGHT: dict[tuple[Rank, int], Combo] = {
    (SUITED_RANKS[start], 2 * pairs): Combo._create(
        ComboKind.PAIR_STRAIGHT,
        SUITED_RANKS[start],
        2 * pairs,
        tuple(r for r in SUITED_RANKS[start : start + pairs] for _ in range(2)),
    )
    for pairs in range(2, ACE_POSITION + 2)
    for start in range(0, ACE_POSITION + 2 - pairs)
}
ROCKET: Combo = Combo._create(ComboKind.ROCKET, None, 2, (Rank.BLACK_JOKER, Rank.RED_JOKER))

_COMBO_BY_RANKS: dict[tuple[Rank, ...], Combo] = {c.ranks: c for c in _ALL_COMBOS.values()}


def combo_from_ranks(ranks: Sequence[Rank]) -> Combo:
    """The combination whose represented ranks are these (any order).

    >>> from games.rules.cards import parse_ranks
    >>> combo_from_ranks(parse_ranks("6 4 5"))
    <Combo straight 4 5 6>
    """
    combo = _COMBO_BY_RANKS.get(tuple(sorted(ranks)))
    if combo is None:
        raise NotationError(f"{format_ranks(ranks)!r} is not a combination")
    return combo


_BLACK_BIT = BLACK_JOKER.bit
_RED_BIT = RED_JOKER.bit
_JOKER_BITS = _BLACK_BIT | _RED_BIT


def _rank_counts(natural_mask: int) -> list[int]:
    """How many cards of each suited rank position (0..12) the mask holds."""
    return [((natural_mask >> (4 * p)) & 15).bit_count() for p in range(13)]


@functools.lru_cache(maxsize=1 << 16)
def interpretations(mask: int) -> tuple[Combo, ...]:
    """Every combination a set of cards can mean, lowest rank first; empty if none.

    A lone joker is not a combination here: whether it may be played, and as what, depends on the
    position (see the engine).

    >>> from games.rules.cards import mask_of, parse_cards
    >>> interpretations(mask_of(parse_cards("7s 7h BJ")))
    (<Combo soft_bomb 7 7 7>,)
    >>> interpretations(mask_of(parse_cards("5s BJ RJ")))
    ()
    """
    jokers = mask & _JOKER_BITS
    natural = mask & ~_JOKER_BITS
    if jokers == _JOKER_BITS:
        return (ROCKET,) if natural == 0 else ()
    if natural == 0:
        return ()
    wild = 1 if jokers else 0
    counts = _rank_counts(natural)
    present = [p for p in range(13) if counts[p]]
    low, high = present[0], present[-1]
    total = natural.bit_count() + wild

    if low == high:  # one rank, maybe with the joker
        return _same_rank(SUITED_RANKS[low], total)
    if wild == 0:
        if high > ACE_POSITION or high - low + 1 != len(present):
            return ()
        if all(counts[p] == 1 for p in present) and total >= 3:
            return (STRAIGHT[(SUITED_RANKS[low], total)],)
        if all(counts[p] == 2 for p in present):
            return (PAIR_STRAIGHT[(SUITED_RANKS[low], total)],)
        return ()
    # One joker with several ranks: a straight or a pair straight; never a 2 inside them.
    if high > ACE_POSITION:
        return ()
    span = high - low + 1
    if all(counts[p] == 1 for p in present):
        if span == len(present) + 1:  # the joker fills the gap
            return (STRAIGHT[(SUITED_RANKS[low], total)],)
        if span == len(present):  # the joker extends one end or the other
            options = []
            if low > 0:
                options.append(STRAIGHT[(SUITED_RANKS[low - 1], total)])
            if high < ACE_POSITION:
                options.append(STRAIGHT[(SUITED_RANKS[low], total)])
            return tuple(options)
        return ()
    ones = [p for p in present if counts[p] == 1]
    if span == len(present) and len(ones) == 1 and all(counts[p] in (1, 2) for p in present):
        return (PAIR_STRAIGHT[(SUITED_RANKS[low], total)],)
    return ()


def _same_rank(rank: Rank, total: int) -> tuple[Combo, ...]:
    if total == 1:
        return (SINGLE[rank],)
    if total == 2:
        return (PAIR[rank],)
    if total == 3:
        return (SOFT_BOMB[rank],)
    if total == 4:
        return (HARD_BOMB[rank],)
    return ()


def meanings(mask: int, rules: GandengyanRules = STANDARD) -> tuple[Combo, ...]:
    """``interpretations`` that ``rules`` allow, in the same order: no pair straight when
    ``pair_straights`` is off, none longer than ``max_straight`` / ``max_pair_straight``, and no
    joker standing for a 2 with ``joker_not_two``.

    >>> from games.rules.cards import mask_of, parse_cards
    >>> from games.rules.gandengyan.options import GandengyanRules
    >>> meanings(mask_of(parse_cards("2s BJ"))), meanings(
    ...     mask_of(parse_cards("2s BJ")), GandengyanRules(joker_not_two=True))
    ((<Combo pair 2 2>,), ())
    """
    found = interpretations(mask)
    if rules.standard_play or not found:
        return found
    wild = bool(mask & _JOKER_BITS) and mask & _JOKER_BITS != _JOKER_BITS
    return tuple(combo for combo in found if allows(combo, rules, wild=wild))


def allows(combo: Combo, rules: GandengyanRules, *, wild: bool) -> bool:
    """Whether ``rules`` let ``combo`` be played; ``wild``: one joker stands in it."""
    kind = combo.kind
    if kind is ComboKind.STRAIGHT:
        return combo.length <= rules.straight_limit
    if kind is ComboKind.PAIR_STRAIGHT:
        return combo.length <= rules.pair_straight_limit
    return not (wild and rules.joker_not_two and combo.rank is Rank.TWO)


_SINGLE_KIND = ComboKind.SINGLE
_PAIR_KIND = ComboKind.PAIR
_TWO = Rank.TWO


def beats(
    play: Combo,
    table: Combo,
    rules: GandengyanRules = STANDARD,
    *,
    play_wild: bool = False,
    table_wild: bool = False,
) -> bool:
    """Whether ``play`` may be played on ``table`` under ``rules`` (the standard ones unless
    given). ``play_wild`` / ``table_wild``: a joker stands in that combination; only
    ``natural_over_wild`` asks."""
    if table.bomb_class == 3:
        return False
    if play.bomb_class != table.bomb_class:
        return play.bomb_class > table.bomb_class
    if play.kind is not table.kind or play.length != table.length:
        return False
    rank, below = play.rank, table.rank
    assert rank is not None and below is not None
    if play.kind is _SINGLE_KIND and rank is _TWO:
        return below is not _TWO
    if rank == below + 1 and rank <= Rank.ACE:
        return True
    if rules.standard_play:
        return False
    if play.bomb_class:
        return (
            (rules.bombs_any_higher and rank > below)
            or (rules.twos_top_bombs and rank is _TWO and below is not _TWO)
            or (rules.natural_over_wild and rank == below and table_wild and not play_wild)
        )
    return play.kind is _PAIR_KIND and rules.twos_jump_pairs and rank is _TWO and below is not _TWO
