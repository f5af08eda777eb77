"""Perft: known positions whose legal actions were counted by hand from the rules.

The positions, their counts and the reasoning behind each count are in ``perft_positions.json``. A
count is of distinct actions: the multiset of ranks used (the two jokers told apart, suits ignored)
and the meaning. The order of ``legal_moves()`` is fixed too (see ``movegen``): pass first, then by
kind, length and rank, the natural cards before the black joker's variants before the red joker's.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from games.rules.gandengyan import GameState, Pass, Play
from tests.games.rules.gandengyan.oracle import legal_actions_by_brute_force
from tests.games.rules.gandengyan.strategies import action_key, follow_position, lead_position

DATA = json.loads((Path(__file__).parent / "perft_positions.json").read_text(encoding="utf-8"))
POSITIONS: list[dict[str, Any]] = DATA["positions"]
SEQUENCES: list[dict[str, Any]] = DATA["sequences"]
ORDERS: list[dict[str, Any]] = DATA["orders"]


def build(entry: dict[str, Any]) -> GameState:
    if entry["table"] is None:
        return lead_position(entry["hand"], stock_empty=entry["stock_empty"])
    return follow_position(
        entry["hand"], entry["table"], stock_empty=entry["stock_empty"], meaning=entry.get("as")
    )


def kind_counts(moves: list[Any]) -> dict[str, int]:
    return dict(Counter("pass" if isinstance(m, Pass) else m.combo.kind.value for m in moves))


def perft(state: GameState, depth: int) -> int:
    if depth == 0:
        return 1
    moves = state.legal_moves()
    if depth == 1:
        return len(moves)
    return sum(perft(state.apply(state.to_move, move), depth - 1) for move in moves)


def test_the_data_file_is_big_enough_and_consistent() -> None:
    assert len(POSITIONS) >= 30
    names = [entry["name"] for entry in POSITIONS]
    assert len(set(names)) == len(names)
    for entry in POSITIONS:
        assert sum(entry["kinds"].values()) == entry["count"], entry["name"]
        assert f"= {entry['count']}" in entry["breakdown"], entry["name"]


@pytest.mark.parametrize("entry", POSITIONS, ids=[entry["name"] for entry in POSITIONS])
def test_perft_position(entry: dict[str, Any]) -> None:
    state = build(entry)
    assert state.stock_count == (0 if entry["stock_empty"] else 1)
    assert (state.table is None) == (entry["table"] is None)
    moves = state.legal_moves()
    keys = [action_key(m) for m in moves]
    assert len(set(keys)) == len(keys), "an action is listed twice"
    assert kind_counts(moves) == entry["kinds"]
    assert len(moves) == entry["count"]
    # Every listed action is accepted as it stands, by the player to move, from their hand.
    for move in moves:
        after = state.apply(state.to_move, move)
        assert after.history[-1] == (state.to_move, move)
        if isinstance(move, Play):
            assert set(move.cards) <= set(state.hand(state.to_move))


@pytest.mark.parametrize(
    "entry",
    [e for e in POSITIONS if len(e["hand"].split()) <= 14],
    ids=[e["name"] for e in POSITIONS if len(e["hand"].split()) <= 14],
)
def test_perft_position_matches_brute_force(entry: dict[str, Any]) -> None:
    state = build(entry)
    seat = state.to_move
    assert seat is not None
    table = None if state.table is None else state.table.combo
    expected = legal_actions_by_brute_force(state.hand(seat), table, state.stock_count == 0)
    assert {action_key(m) for m in state.legal_moves()} == expected
    assert len(expected) == entry["count"]


@pytest.mark.parametrize("entry", SEQUENCES, ids=[entry["name"] for entry in SEQUENCES])
def test_perft_sequences(entry: dict[str, Any]) -> None:
    state = GameState.from_position(entry["hands"], entry["stock"], entry["dealer"])
    counts = [perft(state, depth) for depth in range(1, len(entry["perft"]) + 1)]
    assert counts == entry["perft"]


@pytest.mark.parametrize("entry", ORDERS, ids=[f"{e['hand']} on {e['table']}" for e in ORDERS])
def test_move_order_snapshot(entry: dict[str, Any]) -> None:
    if entry["table"] is None:
        state = lead_position(entry["hand"], stock_empty=False)
    else:
        state = follow_position(entry["hand"], entry["table"], stock_empty=False)
    assert [str(m) for m in state.legal_moves()] == entry["moves"]


def test_no_position_where_a_lone_joker_leads_while_the_stock_lasts() -> None:
    """By the rules that leader could neither pass nor play (0 actions); it cannot arise in play,
    since a round's winner draws before leading, and a position cannot start that way."""
    with pytest.raises(ValueError):
        GameState.from_position(["RJ", "3s", "4s"], "5s", dealer=0)
    # With the stock empty the same joker may lead (see the perft positions).
    assert [str(m) for m in GameState.from_position(["RJ", "3s", "4s"], "", 0).legal_moves()] == [
        "RJ = 3"
    ]
