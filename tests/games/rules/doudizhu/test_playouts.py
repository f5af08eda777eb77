"""Seeded random playouts through every phase, out-of-turn 明牌 and 加倍 included: each game
ends, cards are conserved, payments sum to zero, the record replays to the same state."""

from __future__ import annotations

import random

import pytest

from games.bots.doudizhu import DoudizhuPolicy
from games.bots.policy import choose_for
from games.rules.doudizhu import ENGINE, GameState, Phase, Play
from games.rules.doudizhu.moves import Double, Show
from games.rules.doudizhu.simulate import simulate


def random_game(seed: int) -> GameState:
    rng = random.Random(seed)
    state = ENGINE.deal(seed, players=3, options=ENGINE.default_options)
    while not state.is_terminal:
        choices = [(s, a) for s in range(3) for a in state.legal_actions(s)]
        assert state.to_move is not None and state.legal_actions(state.to_move)
        if state.phase is Phase.PLAY:
            others = [s for s in range(3) if s != state.to_move]
            assert all(not isinstance(a, Play) for s in others for a in state.legal_actions(s))
        for seat in range(3):
            # 明牌 and 加倍 end the legal actions, whoever is to move.
            side = state.side_actions(seat)
            legal = state.legal_actions(seat)
            assert legal[len(legal) - len(side) :] == side
            assert all(isinstance(a, (Show, Double)) for a in side)
            assert all(not isinstance(a, (Show, Double)) for a in legal[: len(legal) - len(side)])
        seat, action = rng.choice(choices)
        state = state.apply(seat, action)
    return state


@pytest.mark.parametrize("seed", range(40))
def test_random_games_end_and_replay(seed: int) -> None:
    state = random_game(seed)
    assert state.winner is not None and state.landlord is not None
    played = sum(a.size for _, a in state.history if isinstance(a, Play))
    assert played + sum(state.hand_count(s) for s in range(3)) == 54
    assert state.hand_count(state.winner) == 0
    settlement = ENGINE.settle(state, base=7)
    assert sum(settlement.payments) == 0
    assert settlement.multiplier == state.multiplier
    record = ENGINE.record_to_json(state, base=7, seed=seed)
    result = ENGINE.replay_record(record)
    assert result.ok and result.state == state
    assert result.settlement is not None and result.settlement.payments == settlement.payments
    assert random_game(seed) == state  # the same seed, the same game


def test_bots_play_whole_games() -> None:
    bot = ENGINE.bot_policy()
    assert isinstance(bot, DoudizhuPolicy)
    for seed in range(10):
        state = ENGINE.deal(seed, players=3, options=ENGINE.default_options)
        while not state.is_terminal:
            state = state.apply(state.to_move, choose_for(state, bot))  # type: ignore[arg-type]
        assert sum(ENGINE.settle(state, base=1).payments) == 0


def test_simulate_reports() -> None:
    report = simulate(30, 5)
    data = report.to_json()
    assert data["games"] == 30 and data["games_per_second"] > 0
    assert data["legal_calls"] == report.actions
    assert simulate(30, 5).to_json()["actions_per_game"] == data["actions_per_game"]
    assert "games per second" in report.to_text()
