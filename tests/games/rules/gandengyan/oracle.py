"""Slow, obviously-correct reference answers that the fast engine is checked against.

Everything here is written from the rules text (``gandengyan-rules.md``), not from the engine: the
combinations are listed from the table of section 4 as tuples of rank values, a set of cards means a
combination when its natural cards are exactly that combination's ranks but at most one, which one
joker stands for, and the legal actions are found by trying every subset of the hand (as the
multisets of ranks the subsets have: suits never matter) against every combination. Only the
``Combo`` objects are the engine's, so that answers can be compared with it.

The house rules of section 10 are read here from the same text ("Readings where a line above is
short"), with the engine's rules object only as the bag of option values.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Iterator

from games.rules.cards import CARDS, Card, Rank
from games.rules.gandengyan.combos import Combo, ComboKind
from games.rules.gandengyan.options import STANDARD, GandengyanRules

# Rank values of section 1.
NATURAL_RANKS: tuple[int, ...] = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16)
STRAIGHT_RANKS: tuple[int, ...] = tuple(range(3, 15))  # 3..A: no 2 in a straight
ACE, TWO, BLACK, RED = 14, 16, 20, 21
JOKERS = (Rank.BLACK_JOKER, Rank.RED_JOKER)

BOMB_CLASS = {ComboKind.SOFT_BOMB: 1, ComboKind.HARD_BOMB: 2, ComboKind.ROCKET: 3}

Action = tuple[tuple[Rank, ...], "Combo | None"]


def _definitions() -> Iterator[tuple[ComboKind, int | None, tuple[int, ...]]]:
    """Every combination of the table in section 4: (kind, rank, the ranks it is made of)."""
    for rank in NATURAL_RANKS:
        yield ComboKind.SINGLE, rank, (rank,)
        yield ComboKind.PAIR, rank, (rank, rank)
        yield ComboKind.SOFT_BOMB, rank, (rank,) * 3
        yield ComboKind.HARD_BOMB, rank, (rank,) * 4
    for low in STRAIGHT_RANKS:
        for length in range(3, 13):
            ranks = tuple(range(low, low + length))
            if ranks[-1] <= ACE:
                yield ComboKind.STRAIGHT, low, ranks
        for pairs in range(2, 13):
            ranks = tuple(r for r in range(low, low + pairs) for _ in range(2))
            if ranks[-1] <= ACE:
                yield ComboKind.PAIR_STRAIGHT, low, ranks
    yield ComboKind.ROCKET, None, (BLACK, RED)


#: Each combination of the rules, as the engine's Combo, with the ranks it is made of.
DEFINITIONS: dict[Combo, tuple[int, ...]] = {
    Combo(kind, None if rank is None else Rank(rank), len(ranks)): ranks
    for kind, rank, ranks in _definitions()
}
ALL_COMBOS: list[Combo] = list(DEFINITIONS)
#: The same, grouped by number of cards (a set of n cards can only mean a combination of n cards).
BY_LENGTH: dict[int, list[tuple[Combo, tuple[int, ...]]]] = {}
for _combo, _ranks in DEFINITIONS.items():
    BY_LENGTH.setdefault(len(_ranks), []).append((_combo, _ranks))
ROCKET = next(c for c in ALL_COMBOS if c.kind is ComboKind.ROCKET)
SINGLES = {int(c.rank): c for c in ALL_COMBOS if c.kind is ComboKind.SINGLE and c.rank}


def meanings_by_definition(ranks: Iterable[int], rules: GandengyanRules = STANDARD) -> set[Combo]:
    """Every combination a multiset of ranks can mean (jokers as 20 and 21) under ``rules``.

    The two jokers alone are the rocket. Otherwise at most one joker, and the natural cards must be
    the combination's ranks with exactly as many missing as there are jokers. A joker alone is no
    combination (section 4: a single is "any one card but a joker"; section 6 is about positions).
    """
    key = tuple(sorted(int(r) for r in ranks))
    return {combo for combo in _meanings(key) if allowed_by_definition(combo, key, rules)}


def allowed_by_definition(combo: Combo, ranks: tuple[int, ...], rules: GandengyanRules) -> bool:
    """Section 10: whether the house rules let ``ranks`` be played as ``combo``."""
    made_of = DEFINITIONS[combo]
    if combo.kind is ComboKind.PAIR_STRAIGHT:
        if not rules.pair_straights:
            return False
        if rules.max_pair_straight is not None and len(made_of) > rules.max_pair_straight:
            return False
    too_long = rules.max_straight is not None and len(made_of) > rules.max_straight
    if combo.kind is ComboKind.STRAIGHT and too_long:
        return False
    jokers = [r for r in ranks if r >= BLACK]
    if rules.joker_not_two and len(jokers) == 1:
        # the joker stands for the one rank the natural cards lack
        missing = Counter(made_of) - Counter(r for r in ranks if r < BLACK)
        if TWO in missing:
            return False
    return True


@functools.cache
def _meanings(ranks: tuple[int, ...]) -> frozenset[Combo]:
    jokers = [r for r in ranks if r >= BLACK]
    naturals = Counter(r for r in ranks if r < BLACK)
    if ranks == (BLACK, RED):
        return frozenset({ROCKET})
    if len(jokers) > 1 or not naturals:
        return frozenset()
    found = set()
    for combo, needed in BY_LENGTH.get(len(ranks), []):
        if combo is ROCKET:
            continue
        need = Counter(needed)
        if naturals - need:  # a natural card the combination has no place for
            continue
        if sum((need - naturals).values()) == len(jokers):
            found.add(combo)
    return frozenset(found)


def _bomb_class(combo: Combo) -> int:
    return BOMB_CLASS.get(combo.kind, 0)


def beats_by_definition(
    play: Combo,
    table: Combo,
    rules: GandengyanRules = STANDARD,
    *,
    play_wild: bool = False,
    table_wild: bool = False,
) -> bool:
    """Section 5, rule by rule, then the house rules of section 10 that let more plays beat."""
    if _beats_standard(play, table):
        return True
    if play.kind is not table.kind or play.length != table.length or play.kind is ComboKind.ROCKET:
        return False
    assert play.rank is not None and table.rank is not None
    p, t = int(play.rank), int(table.rank)
    if play.kind is ComboKind.PAIR:  # a pair of 2s beats any pair but a pair of 2s
        return rules.twos_jump_pairs and p == TWO and t != TWO
    if _bomb_class(play) == 0:
        return False
    if rules.twos_top_bombs and p == TWO and t != TWO:
        return True
    if rules.bombs_any_higher and p > t:
        return True
    return rules.natural_over_wild and p == t and table_wild and not play_wild


def _beats_standard(play: Combo, table: Combo) -> bool:
    if table.kind is ComboKind.ROCKET:  # 1. nothing beats a rocket
        return False
    if play.kind is ComboKind.ROCKET:  # 1. a rocket beats everything
        return True
    p, t = _bomb_class(play), _bomb_class(table)
    if p != t:  # 2, 3: a bomb beats every lower class
        return p > t
    if play.kind is not table.kind or play.length != table.length:
        return False
    assert play.rank is not None and table.rank is not None
    if play.kind is ComboKind.SINGLE and int(play.rank) == TWO:  # 5. the single 2
        return int(table.rank) != TWO
    # 2, 3, 4, 6: exactly one higher, and nothing is one higher than an A (15 is no rank).
    return int(play.rank) == int(table.rank) + 1 and int(play.rank) in NATURAL_RANKS


def lone_joker_meaning(table: Combo | None, rules: GandengyanRules = STANDARD) -> Combo | None:
    """Section 6: the single a lone last joker counts as, or None when it cannot be played.

    Leading, the lowest meaning is taken (section 4); following, the lowest single that beats the
    table (one higher, or the 2 on an A); it may follow any single but a 2. Section 10: never with
    ``lone_joker_last`` off; never as a 2 with ``joker_not_two``.
    """
    if not rules.lone_joker_last:
        return None
    if table is None:
        return SINGLES[3]
    if table.kind is not ComboKind.SINGLE or table.rank == Rank.TWO:
        return None
    ranks = [r for r in NATURAL_RANKS if not (rules.joker_not_two and r == TWO)]
    beating = [SINGLES[r] for r in ranks if beats_by_definition(SINGLES[r], table)]
    return beating[0] if beating else None


def _sub_multisets(counts: list[tuple[int, int]]) -> Iterator[tuple[int, ...]]:
    """Every multiset of ranks that some subset of the hand has (suits never matter)."""
    if not counts:
        yield ()
        return
    (rank, count), rest = counts[0], counts[1:]
    for tail in _sub_multisets(rest):
        for k in range(count + 1):
            yield (rank,) * k + tail


def legal_actions_by_brute_force(
    hand: Iterable[int | Card],
    table: Combo | None,
    stock_empty: bool,
    rules: GandengyanRules = STANDARD,
    table_wild: bool = False,
) -> set[Action]:
    """Every distinct action (ranks used, jokers told apart; meaning), from every subset of the
    hand: the ranks of every subset are tried against every combination. A pass is ``((), None)``;
    a leader may pass only holding a lone joker that ``lone_joker_last: false`` forbids.
    """
    cards = [CARDS[c] if isinstance(c, int) else c for c in hand]
    counts = sorted(Counter(int(card.rank) for card in cards).items())
    actions: set[Action] = set()
    lone = len(cards) == 1 and cards[0].rank >= BLACK
    if table is not None or (lone and not rules.lone_joker_last):
        actions.add(((), None))
    for ranks in _sub_multisets(counts):
        if not ranks:
            continue
        key = tuple(Rank(r) for r in ranks)
        if len(ranks) == 1 and ranks[0] >= BLACK:  # section 6
            if len(cards) == 1 and stock_empty:
                meaning = lone_joker_meaning(table, rules)
                if meaning is not None:
                    actions.add((key, meaning))
            continue
        wild = sum(1 for r in ranks if r >= BLACK) == 1
        for combo in meanings_by_definition(ranks, rules):
            if table is None or beats_by_definition(
                combo, table, rules, play_wild=wild, table_wild=table_wild
            ):
                actions.add((key, combo))
    return actions
