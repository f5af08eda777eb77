"""Property checks: the classifier and move generator against the brute-force oracle on random
hands, and the game's invariants on random games: views hide what they should, settlements sum
to zero, every legal action applies, records round-trip."""

from __future__ import annotations

import math
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules.shanghai import ENGINE, GameRecord, GameState, Play, beats, classify
from games.rules.shanghai.cards import CARDS, Card, mask_of
from games.rules.shanghai.combos import counts_of_cards
from games.rules.shanghai.movegen import follow_plays, lead_plays
from games.rules.shanghai.moves import action_from_json, parse_action
from tests.games.rules.shanghai.oracle import best, legal_multisets

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
THOROUGH = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LIMIT = 20_000  # sub-multisets the oracle may walk through per hand


def cards_of_counts(counts: list[int]) -> list[Card]:
    """The lowest cards of each rank, ``counts[p]`` of them."""
    cards: list[Card] = []
    for p, count in enumerate(counts):
        cards += [card for card in CARDS if card.position == p][:count]
    return cards


@st.composite
def dense_counts(draw: st.DrawFn) -> list[int]:
    """Counts with a run of triples or pairs (A and 2 often among them) and a few more cards."""
    counts = [0] * 15
    low = draw(st.integers(0, 12))
    width = draw(st.sampled_from([2, 3, 3, 5]))
    for k in range(draw(st.integers(1, 4))):
        p = (low + k) % 13
        counts[p] = width if width < 5 else draw(st.integers(2, 6))
    for p in draw(st.lists(st.integers(0, 14), max_size=6)):
        counts[p] = min(counts[p] + 1, 8 if p < 13 else 2)
    return counts


random_hands = st.lists(st.sampled_from(CARDS), min_size=1, max_size=16, unique=True).map(
    counts_of_cards
)
hands = st.one_of(random_hands, dense_counts())


def small(counts: list[int]) -> bool:
    return math.prod(c + 1 for c in counts) <= LIMIT and sum(counts) > 0


@THOROUGH
@given(hands, st.booleans())
def test_leads_are_the_oracles(counts: list[int], bombs: bool) -> None:
    if not small(counts):
        return
    plays = lead_plays(mask_of(cards_of_counts(counts)), bombs=bombs)
    found = {tuple(counts_of_cards(p.cards)): p.combo for p in plays}
    assert len(found) == len(plays)
    assert set(found) == legal_multisets(counts, None, bombs)
    for key, combo in found.items():
        assert combo is not None
        assert (combo.kind.value, combo.rank, combo.length) == best(key)


@THOROUGH
@given(hands, hands, st.booleans())
def test_follows_are_the_oracles(counts: list[int], table_hand: list[int], bombs: bool) -> None:
    if not small(counts):
        return
    table_plays = lead_plays(mask_of(cards_of_counts(table_hand)))
    table = table_plays[len(table_plays) // 2]
    assert table.combo is not None
    plays = follow_plays(mask_of(cards_of_counts(counts)), table.combo, bombs=bombs)
    found = {tuple(counts_of_cards(p.cards)) for p in plays}
    assert len(found) == len(plays)
    table_key = tuple(counts_of_cards(table.cards))
    assert found == legal_multisets(counts, table_key, bombs)
    for play in plays:
        assert play.combo is not None and beats(play.combo, table.combo)


@FAST
@given(hands)
def test_classify_agrees_with_the_oracle(counts: list[int]) -> None:
    combo = classify(counts)
    reading = best(tuple(counts))
    if combo is None:
        assert reading is None
    else:
        assert reading == (combo.kind.value, combo.rank, combo.length)


@FAST
@given(st.lists(st.sampled_from(CARDS), min_size=1, max_size=30, unique=True))
def test_plays_round_trip(cards: list[Card]) -> None:
    play = Play(cards)
    assert parse_action(str(play)) == play
    assert action_from_json(play.to_json()) == play
    assert play.size == len(cards)


def random_game(seed: int, pick: random.Random) -> list[GameState]:
    state = GameState.deal(seed)
    states = [state]
    while not state.is_terminal:
        seat = state.to_move
        assert seat is not None
        legal = state.legal_actions(seat)
        assert legal
        for other in range(4):
            if other != seat:
                assert state.legal_actions(other) == []
        state = state.apply(seat, pick.choice(legal))
        states.append(state)
    return states


@FAST
@given(st.integers(0, 2**32), st.integers(0, 2**16))
def test_random_games_keep_the_rules(seed: int, choice_seed: int) -> None:
    pick = random.Random(choice_seed)
    states = random_game(seed, pick)
    final = states[-1]
    for state in states[:: max(1, len(states) // 12)]:
        seat = state.to_move
        if seat is not None:
            for action in state.legal_actions(seat):
                state.apply(seat, action)  # every legal action applies
        all_cards = sum(state.hands) | mask_of(state.bottom if state.landlord is None else ())
        played = sum(p.mask for _, p in state.history if isinstance(p, Play))
        assert all_cards & played == 0
        for viewer in (None, 0, 1, 2, 3):
            view = state.view(viewer)
            text = repr(view)
            assert "seed" not in text
            for other in range(4):
                if other == viewer:
                    continue
                for card in state.hand(other):
                    mine = viewer is not None and card in state.hand(viewer)
                    table = state.table is not None and card in state.table.play.cards
                    shown = state.landlord is not None and card in state.bottom
                    history = any(isinstance(p, Play) and card in p.cards for _, p in state.history)
                    face_up = card == state.current_deal.face_up
                    if not (mine or table or shown or history or face_up):
                        assert f"'{card}'" not in text
            if state.landlord is None:
                assert view["bottom"] is None
            assert view["bombs_left"] == list(state.bombs_left)
    settlement = ENGINE.settle(final, base=3)
    assert sum(settlement.payments) == 0
    paid = ENGINE.pay(settlement, [pick.randrange(0, 40) for _ in range(4)])
    assert sum(paid) == 0
    record = ENGINE.record_to_json(final, base=3, seed=seed)
    assert GameRecord.from_json(record).to_json() == record
    assert GameRecord.loads(GameRecord.from_json(record).dumps()).to_json() == record
    result = ENGINE.replay_record(record)
    assert result.ok and result.state == final
    for farmer in range(4):
        if farmer != final.landlord and final.bombs_left[farmer] is not None:
            assert final.bombs_left[farmer] >= 0  # type: ignore[operator]
