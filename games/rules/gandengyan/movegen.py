"""Generating every legal play of a hand, fast, on bit masks.

A hand is an ``int`` with bit ``i`` set for card index ``i`` (see ``cards``): the four suits of
rank position ``p`` (3 -> 0 ... A -> 11, 2 -> 12) sit in the nibble ``p``. Counting is done on all
nibbles at once: ``one``/``two``/``three`` have bit ``4p`` set when rank ``p`` has at least
that many cards, and ``low1``/``low2``/``low3`` hold each rank's lowest one, two or three
cards.

Each distinct action (the multiset of ranks used, jokers told apart, and the meaning) is generated
once, with the hand's lowest suits, in a fixed order: kind (single, pair, straight, pair straight,
soft bomb, hard bomb, rocket), then length, then rank; within one combination the natural cards
first, then the black joker's variants, then the red joker's, each by the rank the joker stands for.

``lead_plays`` and ``follow_plays`` are the standard game's. House rules that change the plays
(``GandengyanRules.standard_play`` false) go through ``ruled_lead_plays`` and
``ruled_follow_plays``: the same generators, with the beating ranks widened by the rules and the
meanings the rules refuse filtered out (per-rules tables, built once), in the same order.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import cast

from ..cards import BLACK_JOKER, RED_JOKER, SUITED_RANKS
from .combos import (
    ACE_POSITION,
    HARD_BOMB,
    PAIR,
    PAIR_STRAIGHT,
    RANK_POSITION,
    ROCKET,
    SINGLE,
    SOFT_BOMB,
    STRAIGHT,
    Combo,
    ComboKind,
)
from .combos import (
    PAIR_STRAIGHT as PAIR_STRAIGHTS,
)
from .combos import (
    STRAIGHT as STRAIGHTS,
)
from .moves import Move, Play
from .options import GandengyanRules

__all__ = ["follow_plays", "lead_plays", "ruled_follow_plays", "ruled_lead_plays"]

# Plays are built straight from their fields, (mask, combo): the generator's hottest line.
_new_play = tuple.__new__

BLACK_BIT = BLACK_JOKER.bit
RED_BIT = RED_JOKER.bit
JOKER_BITS = BLACK_BIT | RED_BIT
NATURAL_BITS = (1 << 52) - 1
TWO = 12  # rank position of the 2

_M0 = sum(1 << (4 * p) for p in range(13))  # bit 0 of every nibble
_NIBBLE = [15 << (4 * p) for p in range(13)]
_BIT0 = [1 << (4 * p) for p in range(13)]
_JOKERS_HELD: tuple[tuple[int, ...], ...] = ((), (BLACK_BIT,), (RED_BIT,), (BLACK_BIT, RED_BIT))
_STRAIGHT_BIT0 = sum(_BIT0[: ACE_POSITION + 1])  # no 2 in a straight or pair straight
_STRAIGHT_RANKS = sum(_NIBBLE[: ACE_POSITION + 1])  # 3..A: no 2 in a straight

# Enum members as plain globals: a global read is several times cheaper than ``ComboKind.X``.
_SINGLE_KIND = ComboKind.SINGLE
_PAIR_KIND = ComboKind.PAIR
_STRAIGHT_KIND = ComboKind.STRAIGHT
_PAIR_STRAIGHT_KIND = ComboKind.PAIR_STRAIGHT
_ROCKET_KIND = ComboKind.ROCKET

_SINGLE = [SINGLE[r] for r in SUITED_RANKS]
_PAIR = [PAIR[r] for r in SUITED_RANKS]
_SOFT = [SOFT_BOMB[r] for r in SUITED_RANKS]
_HARD = [HARD_BOMB[r] for r in SUITED_RANKS]
_STRAIGHT = {(RANK_POSITION[r], n): c for (r, n), c in STRAIGHT.items()}
_PAIR_STRAIGHT = {(RANK_POSITION[r], n // 2): c for (r, n), c in PAIR_STRAIGHT.items()}
# Window masks: bit 0 of each nibble in a window, and all four bits of each nibble in it.
# Indexed [start][length] (length 0 unused).
_WINDOW_BITS = [
    [sum(1 << (4 * p) for p in range(s, s + n)) for n in range(ACE_POSITION + 2 - s)]
    for s in range(ACE_POSITION + 1)
]
_WINDOW_CARDS = [[bits * 15 for bits in row] for row in _WINDOW_BITS]
_STRAIGHT_AT = [
    [_STRAIGHT.get((s, n)) for n in range(ACE_POSITION + 2 - s)] for s in range(ACE_POSITION + 1)
]
_PAIR_STRAIGHT_AT = [
    [_PAIR_STRAIGHT.get((s, n)) for n in range(ACE_POSITION + 2 - s)]
    for s in range(ACE_POSITION + 1)
]


def _nibble_table(per_nibble: Callable[[int], int]) -> bytes:
    """A 256-byte table applying ``per_nibble`` to both nibbles of a byte (for bytes.translate)."""
    return bytes(per_nibble(b & 15) | (per_nibble(b >> 4) << 4) for b in range(256))


def _lowest(nibble: int, count: int) -> int:
    """The lowest ``count`` cards of a nibble, or all of them when it has fewer."""
    out = 0
    for bit in (1, 2, 4, 8):
        if nibble & bit and count:
            out |= bit
            count -= 1
    return out


# Per-nibble counting and lowest-card tables: a hand's 52 natural bits are 7 bytes, and
# ``bytes.translate`` maps them all at C speed.
# Bit k of each nibble: the rank has more than k cards (so bit 0: at least one, bit 1: two ...).
_COUNTS = _nibble_table(lambda nibble: (1 << nibble.bit_count()) - 1)
_LOWEST = [_nibble_table(functools.partial(_lowest, count=k)) for k in range(4)]
_LOWEST_OF = [[_lowest(n, k) for n in range(16)] for k in range(4)]  # of one nibble


def _translate(data: bytes, table: bytes) -> int:
    return int.from_bytes(data.translate(table), "little")


def _positions(bits: int) -> tuple[int, ...]:
    """Rank positions of the set bits of a nibble-position mask, ascending (memoised: there are
    at most 2**13 such masks)."""
    positions = _POSITIONS.get(bits)
    if positions is None:
        found = []
        rest = bits
        while rest:
            low = rest & -rest
            found.append((low.bit_length() - 1) >> 2)
            rest ^= low
        positions = _POSITIONS[bits] = tuple(found)
    return positions


_POSITIONS: dict[int, tuple[int, ...]] = {}


class _Hand:
    """Counting tables of one hand, for leads and straights."""

    __slots__ = ("jokers", "low1", "low2", "low3", "natural", "one", "three", "two")

    def __init__(self, hand: int) -> None:
        natural = hand & NATURAL_BITS
        self.natural = natural
        data = natural.to_bytes(7, "little")
        counts = _translate(data, _COUNTS)
        self.one = counts & _M0
        self.two = two = (counts >> 1) & _M0
        self.three = three = (counts >> 2) & _M0
        self.low1 = low1 = _translate(data, _LOWEST[1])
        self.low2 = low2 = _translate(data, _LOWEST[2]) if two else low1
        self.low3 = _translate(data, _LOWEST[3]) if three else low2
        self.jokers = _JOKERS_HELD[hand >> 52]


def _straight(out: list[Move], h: _Hand, start: int, length: int, gap: bool) -> None:
    """Plays of the straight of ``length`` ranks from position ``start``; ``gap``: one rank is
    missing from the hand and a joker fills it."""
    natural = h.low1 & _WINDOW_CARDS[start][length]
    _run(
        out,
        h.jokers,
        natural,
        h.low1,
        _STRAIGHT_AT[start][length],
        range(start, start + length),
        gap,
    )


def _pair_straight(out: list[Move], h: _Hand, start: int, pairs: int, gap: bool) -> None:
    """Plays of the pair straight of ``pairs`` ranks from position ``start``; ``gap``: one rank
    has a single card and a joker completes it."""
    # low2 holds two cards of each rank that has two, and the one card of a rank that has one;
    # a joker may stand for the second card of any pair.
    natural = h.low2 & _WINDOW_CARDS[start][pairs]
    second = h.low2 ^ h.low1
    combo = _PAIR_STRAIGHT_AT[start][pairs]
    _run(out, h.jokers, natural, second, combo, range(start, start + pairs), gap)


def _run(
    out: list[Move],
    jokers: Sequence[int],
    natural: int,
    replaceable: int,
    combo: Combo | None,
    ranks: range,
    gap: bool,
) -> None:
    """A (pair) straight's plays: with a gap, the natural cards and a joker in it; without, the
    natural cards, then a joker instead of each rank's ``replaceable`` card in turn."""
    if gap:
        for joker in jokers:
            out.append(_new_play(Play, (natural | joker, combo)))
        return
    out.append(_new_play(Play, (natural, combo)))
    for joker in jokers:
        for p in ranks:
            out.append(_new_play(Play, (natural ^ (replaceable & _NIBBLE[p]) | joker, combo)))


def _window_gap(h: _Hand, full: int, partial: int, start: int, length: int) -> bool | None:
    """For one window: False if every rank is in ``full``, True if one rank is not but a joker
    can fill it (it must be in ``partial``), None if the window cannot be made."""
    missing = _WINDOW_BITS[start][length] & ~full
    if not missing:
        return False
    if h.jokers and not missing & (missing - 1) and missing & partial:
        return True
    return None


@functools.lru_cache(maxsize=1 << 16)
def _windows(
    full: int, partial: int, wild: bool, shortest: int
) -> tuple[tuple[int, int, bool], ...]:
    """(length, start, has_gap) of every window of rank positions 0..11 at least ``shortest``
    long where every rank is in ``full`` except at most one in ``partial`` (the gap a joker
    fills; only when ``wild``), by length, then start. ``full`` and ``partial`` are nibble-position
    masks; all windows of one length are found at once by shifting."""
    full &= _STRAIGHT_BIT0
    partial &= _STRAIGHT_BIT0
    complete = full  # windows of the current length with every rank full
    gapped = partial if wild else full  # ... with at most one partial rank
    windows = []
    for length in range(2, ACE_POSITION + 2):
        shift = 4 * (length - 1)
        next_full = full >> shift
        complete, gapped = (
            complete & next_full,
            (gapped & next_full) | (complete & (partial >> shift) if wild else 0),
        )
        if not gapped:
            break
        if length >= shortest:
            for start in _positions(gapped):
                windows.append((length, start, not complete & _BIT0[start]))
    return tuple(windows)


def _bombs(
    out: list[Move], natural: int, jokers: Sequence[int], two: int, three: int, soft: int, hard: int
) -> None:
    """Soft bombs of the rank positions whose bits are set in ``soft``, then hard bombs.
    ``two`` and ``three`` mark the ranks with at least two and three natural cards."""
    if not three and not (jokers and two):
        return
    for p in _positions(soft & (two if jokers else three)):
        shift = 4 * p
        nibble = (natural >> shift) & 15
        combo = _SOFT[p]
        if three & _BIT0[p]:
            out.append(_new_play(Play, (_LOWEST_OF[3][nibble] << shift, combo)))
        for joker in jokers:
            out.append(_new_play(Play, ((_LOWEST_OF[2][nibble] << shift) | joker, combo)))
    for p in _positions(hard & three):
        shift = 4 * p
        nibble = (natural >> shift) & 15
        combo = _HARD[p]
        if nibble == 15:
            out.append(_new_play(Play, (15 << shift, combo)))
        for joker in jokers:
            out.append(_new_play(Play, ((_LOWEST_OF[3][nibble] << shift) | joker, combo)))


def _same_rank(
    out: list[Move], hand: int, jokers: Sequence[int], position: int, pair: bool
) -> None:
    """The single, or the natural and wild pairs, of one rank position."""
    shift = 4 * position
    nibble = (hand >> shift) & 15
    if not nibble:
        return
    if not pair:
        out.append(_new_play(Play, (_LOWEST_OF[1][nibble] << shift, _SINGLE[position])))
        return
    combo = _PAIR[position]
    if _LOWEST_OF[2][nibble] != _LOWEST_OF[1][nibble]:
        out.append(_new_play(Play, (_LOWEST_OF[2][nibble] << shift, combo)))
    for joker in jokers:
        out.append(_new_play(Play, ((_LOWEST_OF[1][nibble] << shift) | joker, combo)))


def _only_jokers(hand: int, stock_empty: bool, lone_position: int) -> list[Move]:
    if hand == JOKER_BITS:
        return [_new_play(Play, (hand, ROCKET))]
    if stock_empty and lone_position >= 0:  # a lone joker: the last card, the stock empty
        return [_new_play(Play, (hand, _SINGLE[lone_position]))]
    return []


def lead_plays(
    hand: int, stock_empty: bool, longest: int = ACE_POSITION + 1, longest_pairs: int = 12
) -> list[Move]:
    """Every distinct play a round's leader can make with this hand; ``longest`` and
    ``longest_pairs``: the most ranks a straight and a pair straight may span (house rules;
    0 pairs: no pair straight)."""
    if not hand & NATURAL_BITS:
        return _only_jokers(hand, stock_empty, 0)
    h = _Hand(hand)
    low1, low2, jokers = h.low1, h.low2, h.jokers
    held = _positions(h.one)
    out: list[Move] = [_new_play(Play, (low1 & _NIBBLE[p], _SINGLE[p])) for p in held]
    if not jokers:
        out += [_new_play(Play, (low2 & _NIBBLE[p], _PAIR[p])) for p in _positions(h.two)]
    else:
        two = h.two
        for p in held:
            combo = _PAIR[p]
            if two & _BIT0[p]:
                out.append(_new_play(Play, (low2 & _NIBBLE[p], combo)))
            single = low1 & _NIBBLE[p]
            for joker in jokers:
                out.append(_new_play(Play, (single | joker, combo)))
    wild = bool(jokers)
    if h.one.bit_count() + wild >= 3:
        for length, start, gap in _windows(h.one & _STRAIGHT_BIT0, _M0, wild, 3):
            if length > longest:
                break
            _straight(out, h, start, length, gap)
    if h.two.bit_count() + wild >= 2 and longest_pairs >= 2:
        partial = h.one & _STRAIGHT_BIT0 if wild else 0
        for pairs, start, gap in _windows(h.two & _STRAIGHT_BIT0, partial, wild, 2):
            if pairs > longest_pairs:
                break
            _pair_straight(out, h, start, pairs, gap)
    _bombs(out, h.natural, jokers, h.two, h.three, _M0, _M0)
    if hand & JOKER_BITS == JOKER_BITS:
        out.append(_new_play(Play, (JOKER_BITS, ROCKET)))
    return out


def follow_plays(hand: int, table: Combo, stock_empty: bool) -> list[Move]:
    """Every distinct play with this hand that beats ``table``."""
    kind = table.kind
    if kind is _ROCKET_KIND:
        return []
    assert table.rank is not None
    position = RANK_POSITION[table.rank]
    above = position + 1 if position < ACE_POSITION else -1  # -1: nothing is one higher
    if not hand & NATURAL_BITS:
        if kind is _SINGLE_KIND and position != TWO:
            return _only_jokers(hand, stock_empty, above if above >= 0 else TWO)
        return _only_jokers(hand, stock_empty, -1)
    out: list[Move] = []
    natural = hand & NATURAL_BITS
    if kind is _STRAIGHT_KIND or kind is _PAIR_STRAIGHT_KIND:
        h = _Hand(hand)
        jokers = h.jokers
        if kind is _STRAIGHT_KIND:
            length = table.length
            if above >= 0 and above + length - 1 <= ACE_POSITION:
                gap = _window_gap(h, h.one, _M0, above, length)
                if gap is not None:
                    _straight(out, h, above, length, gap)
        else:
            pairs = table.length // 2
            if above >= 0 and above + pairs - 1 <= ACE_POSITION:
                gap = _window_gap(h, h.two, h.one, above, pairs)
                if gap is not None:
                    _pair_straight(out, h, above, pairs, gap)
        two, three = h.two, h.three
    else:
        jokers = _JOKERS_HELD[hand >> 52]
        if kind is _SINGLE_KIND or kind is _PAIR_KIND:
            if above >= 0:
                _same_rank(out, hand, jokers, above, kind is _PAIR_KIND)
            if kind is _SINGLE_KIND and position != TWO:
                _same_rank(out, hand, (), TWO, False)
        counts = _translate(natural.to_bytes(7, "little"), _COUNTS)
        two, three = (counts >> 1) & _M0, (counts >> 2) & _M0
    bomb_class = table.bomb_class
    if bomb_class == 0:
        _bombs(out, natural, jokers, two, three, _M0, _M0)
    else:
        one_higher = _BIT0[above] if above >= 0 else 0
        if bomb_class == 1:
            _bombs(out, natural, jokers, two, three, one_higher, _M0)
        else:
            _bombs(out, natural, jokers, two, three, 0, one_higher)
    if hand & JOKER_BITS == JOKER_BITS:
        out.append(_new_play(Play, (JOKER_BITS, ROCKET)))
    return out


# House rules ------------------------------------------------------------------------------------


class _Rules:
    """What one set of rules changes in the plays, as tables: the combinations never allowed,
    whether a joker may stand for a 2, the lone joker, and which bombs beat which."""

    __slots__ = (
        "any_higher",
        "banned",
        "longest",
        "longest_pairs",
        "lone_joker",
        "natural_over_wild",
        "no_wild_two",
        "twos_jump_pairs",
        "twos_top_bombs",
    )

    def __init__(self, rules: GandengyanRules) -> None:
        banned = {c for c in STRAIGHTS.values() if c.length > rules.straight_limit}
        banned |= {c for c in PAIR_STRAIGHTS.values() if c.length > rules.pair_straight_limit}
        self.banned = frozenset(banned)
        self.longest = rules.straight_limit  # in ranks, as lead_plays counts them
        self.longest_pairs = rules.pair_straight_limit // 2
        self.no_wild_two = rules.joker_not_two
        self.lone_joker = rules.lone_joker_last
        self.twos_jump_pairs = rules.twos_jump_pairs
        self.twos_top_bombs = rules.twos_top_bombs
        self.natural_over_wild = rules.natural_over_wild
        self.any_higher = rules.bombs_any_higher


def _rules_tables(rules: GandengyanRules) -> _Rules:
    """The tables of ``rules``, kept on the rules object (reading them is one attribute lookup,
    where a cache keyed by the rules would hash all their fields on every call)."""
    tables = rules.play_tables
    if tables is None:
        tables = _Rules(rules)
        object.__setattr__(rules, "play_tables", tables)  # a cache on a frozen value
    return cast("_Rules", tables)


_TWO_RANK = SUITED_RANKS[TWO]


def _keep(plays: list[Move], r: _Rules) -> list[Move]:
    """``plays`` without those the rules refuse, in order."""
    banned, no_wild_two = r.banned, r.no_wild_two
    if not banned and not no_wild_two:
        return plays
    out = []
    for play in plays:
        mask, combo = play  # type: ignore[misc]  # the generators make plays only, with combos
        if combo in banned:
            continue
        if no_wild_two and mask & JOKER_BITS and combo.rank is _TWO_RANK:  # type: ignore[union-attr]
            continue
        out.append(play)
    return out


def ruled_lead_plays(hand: int, stock_empty: bool, rules: GandengyanRules) -> list[Move]:
    """``lead_plays`` under house rules. Empty for a lone joker when ``lone_joker_last`` is
    off: its holder's one action is a pass."""
    r = _rules_tables(rules)
    if not r.lone_joker and hand in _LONE_JOKERS:
        return []
    plays = lead_plays(hand, stock_empty, r.longest, r.longest_pairs)
    return _keep(plays, r) if r.no_wild_two else plays


_LONE_JOKERS = (BLACK_BIT, RED_BIT)


def ruled_follow_plays(
    hand: int, table: Combo, stock_empty: bool, rules: GandengyanRules, table_mask: int = 0
) -> list[Move]:
    """``follow_plays`` under house rules; ``table_mask``: the cards of the table's play (whether
    a joker stands in it matters to ``natural_over_wild``)."""
    r = _rules_tables(rules)
    if hand in _LONE_JOKERS:
        return _keep(follow_plays(hand, table, stock_empty), r) if r.lone_joker else []
    kind = table.kind
    if kind is _ROCKET_KIND or not hand & NATURAL_BITS:
        return _keep(follow_plays(hand, table, stock_empty), r)
    if kind is _STRAIGHT_KIND or kind is _PAIR_STRAIGHT_KIND:
        # Same kind and length one higher, as in the standard game; only bombs may differ, and
        # they do not beat a normal combination differently.
        return _keep(follow_plays(hand, table, stock_empty), r)
    assert table.rank is not None
    position = RANK_POSITION[table.rank]
    above = position + 1 if position < ACE_POSITION else -1
    natural = hand & NATURAL_BITS
    jokers = _JOKERS_HELD[hand >> 52]
    out: list[Move] = []
    if kind is _SINGLE_KIND or kind is _PAIR_KIND:
        if above >= 0:
            _same_rank(out, hand, jokers, above, kind is _PAIR_KIND)
        if position != TWO and (kind is _SINGLE_KIND or r.twos_jump_pairs):
            _same_rank(out, hand, () if kind is _SINGLE_KIND else jokers, TWO, kind is _PAIR_KIND)
    counts = _translate(natural.to_bytes(7, "little"), _COUNTS)
    two, three = (counts >> 1) & _M0, (counts >> 2) & _M0
    bomb_class = table.bomb_class
    if bomb_class == 0:
        _bombs(out, natural, jokers, two, three, _M0, _M0)
    else:
        beating = _BIT0[above] if above >= 0 else 0
        if r.any_higher:
            beating |= _M0 & ~((_BIT0[position] << 1) - 1)  # every rank above the table's
        if r.twos_top_bombs and position != TWO:
            beating |= _BIT0[TWO]
        if r.natural_over_wild and table_mask & JOKER_BITS:  # a bomb holds one joker at most
            _natural_bomb(out, natural, position, bomb_class)
        if bomb_class == 1:
            _bombs(out, natural, jokers, two, three, beating, _M0)
        else:
            _bombs(out, natural, jokers, two, three, 0, beating)
    if hand & JOKER_BITS == JOKER_BITS:
        out.append(_new_play(Play, (JOKER_BITS, ROCKET)))
    return _keep(out, r)


def _natural_bomb(out: list[Move], natural: int, position: int, bomb_class: int) -> None:
    """The natural bomb of the table's class and rank, when the hand holds it (it beats the
    wild one under ``natural_over_wild``; with one deck the two never meet in a game)."""
    shift = 4 * position
    nibble = (natural >> shift) & 15
    if bomb_class == 1 and nibble.bit_count() >= 3:
        out.append(_new_play(Play, (_LOWEST_OF[3][nibble] << shift, _SOFT[position])))
    elif bomb_class == 2 and nibble == 15:
        out.append(_new_play(Play, (15 << shift, _HARD[position])))
