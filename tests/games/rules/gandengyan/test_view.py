"""What each seat is shown: ``GameState.view_for``, for a position played by hand."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.rules.gandengyan import PASS, GameState, GandengyanRules, parse_move

HANDS = ["3s 4h 5d Kc Kd 8c", "4s 5s 6s Jd Qs", "7s 7h 7d 2d BJ"]
STOCK = "Ad 6d 7c 8h"
ACTIONS = [
    "3s 4h 5d",  # seat 0 leads the straight 3-4-5
    "4s 5s 6s",  # seat 1: 4-5-6
    "7s 7h 7d",  # seat 2: a soft bomb, x2
    "pass",  # seat 0
    "pass",  # seat 1: the round ends; seat 2 draws Ad, seat 0 6d, seat 1 7c
    "2d BJ",  # seat 2 leads a pair of 2s, the joker standing for a 2
    "pass",  # seat 0
]
HISTORY = [
    {"seat": 0, "play": "3s 4h 5d", "as": "3 4 5"},
    {"seat": 1, "play": "4s 5s 6s", "as": "4 5 6"},
    {"seat": 2, "play": "7s 7h 7d", "as": "7 7 7"},
    {"seat": 0, "pass": True},
    {"seat": 1, "pass": True},
    {"seat": 2, "play": "2d BJ", "as": "2 2"},
    {"seat": 0, "pass": True},
]


def play(state: GameState, actions: list[str]) -> GameState:
    for text in actions:
        state = state.apply(state.to_move, parse_move(text))
    return state


@pytest.fixture
def state() -> GameState:
    return play(GameState.from_position(HANDS, STOCK, dealer=0), ACTIONS)


def common(**changes: Any) -> dict[str, Any]:
    view = {
        "players": 3,
        "phase": "play",
        "dealer": 0,
        "to_move": 1,
        "leader": 2,
        "hand_counts": [4, 3, 1],
        "stock": 1,
        "table": {"seat": 2, "cards": "2d BJ", "kind": "pair", "rank": 16, "as": "2 2"},
        "passes": 1,
        "multiplier": 2,
        "history": HISTORY,
        "round_start": 5,
        "winner": None,
        "rules": {},
    }
    view.update(changes)
    return view


def test_each_seat_sees_its_own_hand_and_the_public_game(state: GameState) -> None:
    assert state.view_for(0) == {"seat": 0, **common(), "hand": ["6d", "8c", "Kd", "Kc"]}
    assert state.view_for(1) == {"seat": 1, **common(), "hand": ["7c", "Jd", "Qs"]}
    assert state.view_for(2) == {"seat": 2, **common(), "hand": ["Ad"]}


def test_a_spectator_sees_no_hand(state: GameState) -> None:
    view = state.view_for(None)
    assert view == {"seat": None, **common()}
    assert "hand" not in view


def test_views_are_json(state: GameState) -> None:
    for seat in (0, 1, 2, None):
        view = state.view_for(seat)
        assert json.loads(json.dumps(view)) == view


def test_the_view_at_the_start() -> None:
    state = GameState.from_position(HANDS, STOCK, dealer=0)
    assert state.view_for(0) == {
        "seat": 0,
        "players": 3,
        "phase": "play",
        "dealer": 0,
        "to_move": 0,
        "leader": 0,
        "hand_counts": [6, 5, 5],
        "stock": 4,
        "table": None,
        "passes": 0,
        "multiplier": 1,
        "history": [],
        "round_start": 0,
        "winner": None,
        "rules": {},
        "hand": ["3s", "4h", "5d", "8c", "Kd", "Kc"],
    }


def test_the_view_states_the_house_rules() -> None:
    rules = GandengyanRules.from_dict(
        {"players": 2, "lone_joker_last": False, "joker_not_two": True}
    )
    state = GameState.from_position(["BJ", "5s 6s"], "7s", dealer=0, rules=rules)
    for seat in (0, 1, None):
        view = state.view_for(seat)
        assert view["rules"] == {"players": 2, "lone_joker_last": False, "joker_not_two": True}
        assert view["players"] == 2 and view["leader"] == 0 and view["to_move"] == 0
    after = state.apply(0, PASS)  # a lone joker's pass as leader: no round, seat 1 leads
    view = after.view_for(0)
    assert view["leader"] == 1 and view["to_move"] == 1 and view["table"] is None
    assert view["passes"] == 0 and view["round_start"] == 1 and view["stock"] == 1
    assert view["history"] == [{"seat": 0, "pass": True}] and view["hand"] == ["BJ"]


def test_the_view_at_the_end(state: GameState) -> None:
    # Seat 1 passes: seat 2 wins the round and draws the last card, 8h; nobody else draws.
    # Seat 2 then plays 8h, both others pass, and it leads its last card, the Ad.
    final = play(state, ["pass", "8h", "pass", "pass", "Ad"])
    history = [
        *HISTORY,
        {"seat": 1, "pass": True},
        {"seat": 2, "play": "8h", "as": "8"},
        {"seat": 0, "pass": True},
        {"seat": 1, "pass": True},
        {"seat": 2, "play": "Ad", "as": "A"},
    ]
    expected = {
        "players": 3,
        "phase": "over",
        "dealer": 0,
        "to_move": None,
        "leader": 2,
        "hand_counts": [4, 3, 0],
        "stock": 0,
        "table": {"seat": 2, "cards": "Ad", "kind": "single", "rank": 14, "as": "A"},
        "passes": 0,
        "multiplier": 2,
        "history": history,
        "round_start": 11,
        "winner": 2,
        "rules": {},
    }
    assert final.view_for(0) == {"seat": 0, **expected, "hand": ["6d", "8c", "Kd", "Kc"]}
    assert final.view_for(1) == {"seat": 1, **expected, "hand": ["7c", "Jd", "Qs"]}
    assert final.view_for(2) == {"seat": 2, **expected, "hand": []}
    assert final.view_for(None) == {"seat": None, **expected}


def test_a_named_meaning_and_a_lone_joker_in_the_view() -> None:
    # Seat 0 leads 5s 6h BJ as 5-6-7 (not the lowest meaning, so it is named); the stock is
    # empty, and seat 2 answers the 9c with its last card, the red joker, as a T.
    state = GameState.from_position(["5s 6h BJ 9c Kd", "7s 9s", "RJ"], "", dealer=0)
    state = play(state, ["5s 6h BJ = 5 6 7", "pass", "pass", "9c", "pass", "RJ"])
    view = state.view_for(1)
    assert view["history"][0] == {"seat": 0, "play": "5s 6h BJ", "as": "5 6 7"}
    assert view["history"][-1] == {"seat": 2, "play": "RJ", "as": "T"}
    assert view["table"] == {"seat": 2, "cards": "RJ", "kind": "single", "rank": 10, "as": "T"}
    assert view["winner"] == 2 and view["to_move"] is None and view["phase"] == "over"
    assert view["hand"] == ["7s", "9s"] and view["hand_counts"] == [1, 2, 0]


@pytest.mark.parametrize("seat", [-1, 3, 4, "0", 1.0, True, False, [0]])
def test_invalid_seats_are_refused(state: GameState, seat: Any) -> None:
    with pytest.raises(ValueError):
        state.view_for(seat)


def test_the_current_round_and_a_view_without_the_history(state: GameState) -> None:
    # The round that seat 2's pair of 2s opened: the pair, then seat 0's pass.
    assert [(seat, str(move)) for seat, move in state.round_actions] == [
        (2, "2d BJ"),
        (0, "pass"),
    ]
    assert state.round_actions == state.history[state.round_start :]
    assert state.leader == 2
    for seat in (0, 1, 2, None):
        full, short = state.view_for(seat), state.view_for(seat, history=False)
        assert short["history"] == [] and full["history"] == HISTORY
        assert {**full, "history": []} == short


def test_the_round_at_each_step_of_seeded_games() -> None:
    for seed in range(20):
        state = GameState.deal(seed)
        rng = random.Random(seed)
        while not state.is_terminal:
            assert state.round_actions == state.history[state.round_start :]
            state = state.apply(state.to_move, rng.choice(state.legal_moves()))
