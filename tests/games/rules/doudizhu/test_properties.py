"""Property checks: the engine's classifier and move generator against the brute-force oracle,
on random hands and on dense ones where triples, chains and airplanes are common."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules.cards import CARDS, Card, mask_of
from games.rules.doudizhu import Play, beats, classify
from games.rules.doudizhu.combos import counts_of_cards
from games.rules.doudizhu.movegen import follow_plays, lead_plays, rank_counts
from games.rules.doudizhu.moves import action_from_json, parse_action
from tests.games.rules.doudizhu.oracle import legal_multisets, readings

FAST = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
THOROUGH = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LIMIT = 30_000  # sub-multisets the oracle may walk through per hand


def cards_of_counts(counts: list[int]) -> list[Card]:
    cards: list[Card] = []
    for p in range(13):
        cards += [CARDS[4 * p + s] for s in range(counts[p])]
    cards += [CARDS[52]] * counts[13] + [CARDS[53]] * counts[14]
    return cards


@st.composite
def dense_counts(draw: st.DrawFn) -> list[int]:
    """Counts with a run of triples or pairs and a few more cards around it."""
    counts = [0] * 15
    low = draw(st.integers(0, 10))
    width = draw(st.sampled_from([2, 3, 3, 4]))
    for p in range(low, min(low + draw(st.integers(1, 4)), 13)):
        counts[p] = width if width < 4 else draw(st.integers(2, 4))
    for p in draw(st.lists(st.integers(0, 14), max_size=6)):
        counts[p] = min(counts[p] + 1, 4 if p < 13 else 1)
    return counts


random_hands = st.lists(st.sampled_from(CARDS), min_size=1, max_size=14, unique=True).map(
    lambda cards: counts_of_cards(cards)
)
hands = st.one_of(random_hands, dense_counts())


def small(counts: list[int]) -> bool:
    return math.prod(c + 1 for c in counts) <= LIMIT and sum(counts) > 0


@THOROUGH
@given(hands)
def test_leads_are_the_oracles(counts: list[int]) -> None:
    if not small(counts):
        return
    plays = lead_plays(mask_of(cards_of_counts(counts)))
    found = {tuple(rank_counts(p.mask)): p.combo for p in plays}
    assert len(found) == len(plays)
    oracle = legal_multisets(counts, None)
    assert set(found) == set(oracle)
    for multiset, combo in found.items():
        assert combo is not None
        assert (combo.kind.value, combo.rank, combo.length) == oracle[multiset]


@THOROUGH
@given(hands, hands)
def test_follows_are_the_oracles(counts: list[int], table_hand: list[int]) -> None:
    if not small(counts):
        return
    table_plays = lead_plays(mask_of(cards_of_counts(table_hand)))
    table = table_plays[len(table_plays) // 2]
    assert table.combo is not None
    plays = follow_plays(mask_of(cards_of_counts(counts)), table.combo)
    found = {tuple(rank_counts(p.mask)) for p in plays}
    assert len(found) == len(plays)
    assert found == set(legal_multisets(counts, rank_counts(table.mask)))
    for play in plays:
        assert play.combo is not None and beats(play.combo, table.combo)


@THOROUGH
@given(hands)
def test_a_multiset_is_one_combination_at_most(counts: list[int]) -> None:
    """Which is why a play never needs to say what it means (no AmbiguousPlayError)."""
    if not small(counts):
        return
    for multiset in legal_multisets(counts, None):
        assert len(readings(multiset)) == 1


@FAST
@given(hands)
def test_classify_agrees_with_the_oracle(counts: list[int]) -> None:
    combo = classify(counts)
    found = readings(counts)
    if combo is None:
        assert not found
    else:
        assert found == {(combo.kind.value, combo.rank, combo.length)}


@FAST
@given(st.lists(st.sampled_from(CARDS), min_size=1, max_size=20, unique=True))
def test_plays_round_trip(cards: list[Card]) -> None:
    play = Play(cards)
    assert parse_action(str(play)) == play
    assert action_from_json(play.to_json()) == play
    assert play.size == len(cards)


def test_every_multiset_of_up_to_six_cards_against_the_oracle() -> None:
    """All 46,439 multisets of one to six cards: each is what the oracle reads, and at most one
    combination."""
    caps = [4] * 13 + [1, 1]
    checked = 0

    def walk(position: int, left: int, counts: list[int]) -> None:
        nonlocal checked
        if position == 15:
            if any(counts):
                checked += 1
                combo = classify(counts)
                found = readings(counts)
                assert len(found) <= 1, counts
                expected = (
                    set() if combo is None else {(combo.kind.value, combo.rank, combo.length)}
                )
                assert found == expected, counts
            return
        for count in range(min(caps[position], left) + 1):
            walk(position + 1, left - count, [*counts, count])

    walk(0, 6, [])
    assert checked == 46_439
