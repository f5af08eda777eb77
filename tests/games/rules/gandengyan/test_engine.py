"""干瞪眼's ``ENGINE``: the same deals, stored actions and records as the platform made before."""

from __future__ import annotations

import random

import pytest

from games.bots import SensiblePolicy
from games.rules import IllegalMoveError, RulesError, format_cards
from games.rules.gandengyan import (
    ENGINE,
    PASS,
    STANDARD,
    GameRecord,
    GameState,
    GandengyanRules,
    deal_from_seed,
    parse_move,
)
from games.rules.gandengyan.records import Action
from games.rules.protocol import GameEngine

SEED = 0x1F2E3D4C5B6A79880123456789ABCDEF0123456789ABCDEF0123456789ABCDEF


def test_engine_is_the_protocol_s() -> None:
    assert isinstance(ENGINE, GameEngine)
    assert ENGINE.key == "gandengyan"
    assert ENGINE.default_options is STANDARD
    assert 3 in ENGINE.player_counts


@pytest.mark.parametrize("seed", [0, 1, 42, 2**64 + 7, SEED])
@pytest.mark.parametrize("dealer", [None, 0, 1, 2])
def test_deal_is_the_platform_s_deal(seed: int, dealer: int | None) -> None:
    """What ``game_start`` stores from ``deal_from_seed`` and rebuilds the first state from."""
    hands, stock, dealt_by = deal_from_seed(seed, STANDARD, dealer)
    stored = {
        "dealer": dealt_by,
        "hands": [format_cards(hand) for hand in hands],
        "stock": " ".join(str(card) for card in stock),
    }
    state = ENGINE.deal(seed, players=3, options=STANDARD, dealer=dealer)
    assert state == GameState.from_position(stored["hands"], stored["stock"], dealt_by)
    assert ENGINE.deal_to_json(state) == stored
    assert ENGINE.deal_from_json(stored, STANDARD) == state
    # Later states still tell their deal.
    later = state.apply(state.to_move, state.legal_moves()[0])
    assert ENGINE.deal_to_json(later) == stored


def test_deal_with_options_and_a_wrong_number_of_players() -> None:
    four = ENGINE.options_from_json({"players": 4})
    assert ENGINE.seat_count(four) == 4
    state = ENGINE.deal(5, players=4, options=four)
    assert state == GameState.deal(5, rules=four)
    assert state.players == 4
    with pytest.raises(ValueError, match="seat 4 players, not 3"):
        ENGINE.deal(5, players=3, options=four)


def test_options_are_the_room_s_rules_object() -> None:
    assert ENGINE.options_from_json({}) is STANDARD
    assert ENGINE.options_from_json(None) is STANDARD
    options = ENGINE.options_from_json({"draw": "winner", "rocket_multiplier": 4})
    assert options == GandengyanRules(draw="winner", rocket_multiplier=4)
    assert ENGINE.options_to_json(options) == {"draw": "winner", "rocket_multiplier": 4}
    assert ENGINE.options_to_json(STANDARD) == {}
    with pytest.raises(RulesError):
        ENGINE.options_from_json({"jokers": 3})


def test_stored_actions_are_what_the_platform_stored() -> None:
    """``GameEvent.action`` held ``Action(seat, resolved).to_json()`` without the seat."""
    rng = random.Random(3)
    seen_as = seen_pass = 0
    for seed in range(40):
        state = GameState.deal(seed)
        while (seat := state.to_move) is not None:
            for move in state.legal_moves():
                stored = Action(seat, state.resolve(seat, move)).to_json()
                del stored["seat"]
                assert ENGINE.action_to_json(move) == stored
                assert list(ENGINE.action_to_json(move)) == list(stored)  # same key order
                assert ENGINE.action_from_json(stored) == move
                seen_as += "as" in stored
                seen_pass += move is PASS
            moves = state.legal_moves()
            state = state.apply(seat, moves[rng.randrange(len(moves))])
    assert seen_as and seen_pass


def test_an_intent_is_read_as_the_platform_read_it() -> None:
    assert ENGINE.action_from_json({"pass": True}) is PASS
    assert ENGINE.action_from_json({"play": "6h 5s BJ", "as": "5 6 7"}) == parse_move(
        "5s 6h BJ = 5 6 7"
    )
    assert ENGINE.action_to_json(parse_move("5s 6h BJ = 4 5 6")) == {
        "play": "5s 6h BJ",
        "as": "4 5 6",
    }
    assert ENGINE.action_to_json(parse_move("7h 7s")) == {"play": "7s 7h"}


def test_timeout_passes_when_following_and_leads_the_smallest_play() -> None:
    state = GameState.from_position(["5s 5h 9d Kc", "6d 6c 2s", "Th Jh Qh"], "", 0)
    assert ENGINE.timeout_action(state, 0) == parse_move("5s")
    assert ENGINE.timeout_action(state, 0) == state.legal_moves()[0]
    state = state.apply(0, parse_move("5s 5h"))
    assert ENGINE.timeout_action(state, 1) is PASS
    for seat in (0, 2):
        with pytest.raises(IllegalMoveError) as refused:
            ENGINE.timeout_action(state, seat)
        assert refused.value.code == "not_your_turn"
    over = GameState.from_position(["4s", "7s 8s", "9s Ts"], "", 0).apply(0, parse_move("4s"))
    with pytest.raises(IllegalMoveError) as refused:
        ENGINE.timeout_action(over, 0)
    assert refused.value.code == "game_over"


def test_records_and_replays() -> None:
    state = GameState.deal(9)
    rng = random.Random(9)
    while (seat := state.to_move) is not None:
        moves = state.legal_moves()
        state = state.apply(seat, moves[rng.randrange(len(moves))])
    data = ENGINE.record_to_json(state, base=400, seed=9, meta={"game": 1})
    record = GameRecord.from_state(state, base=400, seed=9)
    assert data == {**record.to_json(), "meta": {"game": 1}}
    result = ENGINE.replay_record(data)
    assert result.ok and result.state == state
    assert result.settlement == ENGINE.settle(state, base=400)
    assert sum(result.settlement.payments) == 0


def test_the_bot_is_the_sensible_one() -> None:
    assert isinstance(ENGINE.bot_policy(), SensiblePolicy)
