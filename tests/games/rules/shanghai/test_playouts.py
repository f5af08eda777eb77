"""Seeded random playouts: the same seeds play the same games, every game ends and settles, and
the bomb limits hold throughout."""

from __future__ import annotations

import random

from games.rules.shanghai import ENGINE, GameState, Play
from games.rules.shanghai.simulate import play_phase_start, simulate


def test_play_phase_start() -> None:
    state = play_phase_start(4)
    assert state.phase.value == "play" and state.bid == "small"
    assert state.to_move == state.landlord and state.hand_count(state.landlord) == 33
    assert sorted(state.bombs_left, key=lambda b: b is None) == [1, 1, 1, None]


def test_playouts_are_seeded() -> None:
    report = simulate(30, 100)
    assert (report.games, report.actions, report.bombs, report.landlord_wins) == (30, 3362, 98, 11)
    again = simulate(30, 100)
    assert (again.actions, again.bombs, again.landlord_wins) == (3362, 98, 11)
    data = report.to_json()
    assert data["game"] == "shanghai" and data["actions_per_game"] == 112.07
    assert "landlord wins" in report.to_text()


def test_whole_games_keep_the_bomb_limits() -> None:
    pick = random.Random(8)
    for seed in range(40):
        state = GameState.deal(seed)
        allowed: tuple[int | None, ...] | None = None
        while not state.is_terminal:
            seat = state.to_move
            assert seat is not None
            legal = state.legal_actions(seat)
            bombs = [a for a in legal if isinstance(a, Play) and a.combo and a.combo.is_bomb]
            action = bombs[0] if bombs and pick.random() < 0.8 else pick.choice(legal)
            state = state.apply(seat, action)
            if allowed is None and state.landlord is not None:
                allowed = state.bombs_left
        assert allowed is not None and state.landlord is not None
        for seat in range(4):
            limit = allowed[seat]
            if limit is not None:
                assert state.bombs_played[seat] <= limit
                assert state.bombs_left[seat] == limit - state.bombs_played[seat]
        assert sum(ENGINE.settle(state, base=2).payments) == 0
