"""A seat's view is made from the public part kept for the last position asked for
(``games.rules.views``): whatever order the positions and seats are asked in, each view is the
one its own position makes, with only its own seat's cards."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.rules.doudizhu import ENGINE as DOUDIZHU
from games.rules.gandengyan import ENGINE as GANDENGYAN
from games.rules.shanghai import ENGINE as SHANGHAI
from games.rules.simulate import positions_played_on

ENGINES = {"gandengyan": (GANDENGYAN, 3), "doudizhu": (DOUDIZHU, 3), "shanghai": (SHANGHAI, 4)}


def _positions(engine: Any, players: int, seed: int, moves: int) -> list[Any]:
    """A seeded game's positions: the deal and the ``moves`` after it (fewer if it ends)."""
    state = engine.deal(seed, players=players, options=engine.default_options)
    return positions_played_on(engine, state, moves, random.Random(seed))


def _made_alone(state: Any, seat: int | None, history: bool) -> dict[str, Any]:
    """The view of ``state`` as it is made with nothing kept."""
    view = {"seat": seat, **state._public_view(history)}
    if seat is not None:
        view["hand"] = state._view_hand(seat)
    return view


@pytest.mark.parametrize("key", sorted(ENGINES))
def test_views_asked_in_any_order_are_each_positions_own(key: str) -> None:
    engine, players = ENGINES[key]
    positions = _positions(engine, players, seed=7, moves=30) + _positions(
        engine, players, seed=8, moves=30
    )
    rng = random.Random(1)
    seats: list[int | None] = [None, *range(players)]
    for _ in range(400):
        state = rng.choice(positions)
        seat = rng.choice(seats)
        history = rng.random() < 0.3
        assert state.view(seat, history=history) == _made_alone(state, seat, history)


@pytest.mark.parametrize("key", sorted(ENGINES))
def test_a_view_changed_by_its_caller_leaves_the_next_one_whole(key: str) -> None:
    engine, players = ENGINES[key]
    state = _positions(engine, players, seed=3, moves=10)[-1]
    first = state.view(0, history=False)
    first["hand"] = []
    first["to_move"] = "changed"
    second = state.view(0, history=False)
    assert second == _made_alone(state, 0, False)
    assert second["to_move"] != "changed"
    assert "hand" not in state.view(None, history=False)
