"""Slow, obviously-correct reference answers that the fast engine is checked against."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from games.rules.cards import CARDS, Rank
from games.rules.combos import _ALL_COMBOS, Combo, ComboKind, next_rank

ALL_COMBOS: list[Combo] = list(_ALL_COMBOS.values())
JOKERS = (Rank.BLACK_JOKER, Rank.RED_JOKER)


def meanings_by_definition(ranks: list[Rank]) -> set[Combo]:
    """Every combination a multiset of ranks can mean, straight from the rule text: natural cards
    are exactly the combination's ranks but at most one, which one joker stands for."""
    jokers = [r for r in ranks if r in JOKERS]
    naturals = Counter(r for r in ranks if r not in JOKERS)
    found = set()
    for combo in ALL_COMBOS:
        if combo.kind is ComboKind.ROCKET:
            if sorted(ranks) == list(JOKERS):
                found.add(combo)
            continue
        if len(ranks) != combo.length or len(jokers) > 1:
            continue
        needed = Counter(combo.ranks)
        if any(naturals[r] > needed[r] for r in naturals):
            continue
        # what is left over is what the joker stands for: one card, or none
        if sum((needed - naturals).values()) == len(jokers):
            found.add(combo)
    return found


def beats_by_definition(play: Combo, table: Combo) -> bool:
    order = {
        ComboKind.SOFT_BOMB: 1,
        ComboKind.HARD_BOMB: 2,
        ComboKind.ROCKET: 3,
    }
    p, t = order.get(play.kind, 0), order.get(table.kind, 0)
    if t == 3:
        return False
    if p != t:
        return p > t
    if play.kind != table.kind or play.length != table.length:
        return False
    assert play.rank is not None and table.rank is not None
    if play.kind is ComboKind.SINGLE and play.rank == Rank.TWO:
        return table.rank != Rank.TWO
    return next_rank(table.rank) == play.rank


def legal_actions_by_brute_force(
    hand: list[int], table: Combo | None, stock_empty: bool
) -> set[tuple[tuple[Rank, ...], Combo | None]]:
    """Every distinct action (ranks used, meaning), from every subset of the hand; None = pass."""
    actions: set[tuple[tuple[Rank, ...], Combo | None]] = set()
    if table is not None:
        actions.add(((), None))
    for size in range(1, len(hand) + 1):
        for subset in combinations(hand, size):
            ranks = sorted(CARDS[i].rank for i in subset)
            if size == 1 and ranks[0] in JOKERS:
                if len(hand) == 1 and stock_empty:
                    lone = _lone_joker(table)
                    if lone is not None:
                        actions.add((tuple(ranks), lone))
                continue
            for combo in meanings_by_definition(ranks):
                if table is None or beats_by_definition(combo, table):
                    actions.add((tuple(ranks), combo))
    return actions


def _lone_joker(table: Combo | None) -> Combo | None:
    from games.rules.combos import SINGLE

    if table is None:
        return SINGLE[Rank.THREE]
    if table.kind is not ComboKind.SINGLE or table.rank == Rank.TWO:
        return None
    assert table.rank is not None
    return SINGLE[next_rank(table.rank) or Rank.TWO]
