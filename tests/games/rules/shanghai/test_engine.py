"""``ENGINE``: the game for the platform, through ``games.rules.protocol`` only."""

from __future__ import annotations

import random

import pytest

from games.rules.errors import IllegalMoveError, NotationError, RulesError
from games.rules.protocol import GameEngine, GameStateProtocol, Phase, Policy
from games.rules.shanghai import BIG, ENGINE, NO_BID, PASS, SMALL, GameState, Play
from games.rules.shanghai.engine import ShanghaiEngine


def playout(seed: int, pick: random.Random) -> tuple[GameState, list[tuple[int, dict]]]:
    state = ENGINE.deal(seed, players=4, options=ENGINE.default_options)
    stored: list[tuple[int, dict]] = []
    while not state.is_terminal:
        seat = state.to_move
        assert seat is not None
        legal = state.legal_actions(seat)
        action = ENGINE.action_from_json(ENGINE.action_to_json(pick.choice(legal)))
        action = state.resolve(seat, action, strict=True)
        stored.append((seat, ENGINE.action_to_json(action)))
        state = state.apply(seat, action)
    return state, stored


def test_engine_follows_the_protocol() -> None:
    assert isinstance(ENGINE, GameEngine) and isinstance(ENGINE, ShanghaiEngine)
    assert ENGINE.key == "shanghai" and ENGINE.title == "上海斗地主"
    assert ENGINE.player_counts == (4,) and ENGINE.seat_count(ENGINE.default_options) == 4
    assert isinstance(GameState.deal(0), GameStateProtocol)
    assert isinstance(ENGINE.bot_policy(), Policy)
    assert ENGINE.options_from_json({}) == ENGINE.default_options
    assert ENGINE.options_from_json(None) == ENGINE.default_options
    assert ENGINE.options_to_json(ENGINE.default_options) == {}
    with pytest.raises(RulesError):
        ENGINE.options_from_json({"three_levels": True})
    with pytest.raises(ValueError):
        ENGINE.deal(0, players=3, options=ENGINE.default_options)
    with pytest.raises(ValueError):
        ENGINE.deal_next(GameState.deal(0))
    assert ENGINE.start_actions(ENGINE.default_options) == ()


def test_whole_games_through_the_protocol() -> None:
    pick = random.Random(11)
    for seed in range(8):
        state, stored = playout(seed, pick)
        settlement = ENGINE.settle(state, base=10)
        assert sum(settlement.payments) == 0
        assert settlement.winner == state.winner
        record = ENGINE.record_to_json(state, base=10, seed=seed, meta={"table": 1})
        assert record["format"] == "shanghai-record/1"
        rebuilt = ENGINE.record_from_deal(
            options=ENGINE.default_options,
            deal=ENGINE.deal_to_json(state),
            actions=stored,
            base=10,
            seed=seed,
            meta={"table": 1},
        )
        assert rebuilt == record
        result = ENGINE.replay_record(record)
        assert result.ok and result.state == state
        assert result.settlement is not None
        assert result.settlement.to_json() == settlement.to_json()
        coins = [pick.randrange(0, 100) for _ in range(4)]
        paid = ENGINE.pay(settlement, coins)
        assert sum(paid) == 0 and all(p >= -c for p, c in zip(paid, coins, strict=True))


def test_deal_json_round_trip() -> None:
    state = ENGINE.deal(42, players=4, options=ENGINE.default_options)
    assert ENGINE.deal_from_json(ENGINE.deal_to_json(state), ENGINE.default_options) == state
    assert "seed" in ENGINE.deal_to_json(state)["deals"][0]


def test_action_json() -> None:
    for action in (SMALL, BIG, NO_BID, PASS, Play.parse("As.2 As.1 BJ")):
        assert ENGINE.action_from_json(ENGINE.action_to_json(action)) == action
    assert ENGINE.action_to_json(NO_BID) == {"bid": "pass"}
    assert ENGINE.action_to_json(Play.parse("as as")) == {"play": "As.1 As.2"}
    for bad in ({"bid": "call"}, {"pass": False}, {"play": 3}, {}, {"deal": 1}):
        with pytest.raises(NotationError):
            ENGINE.action_from_json(bad)


def test_timeouts() -> None:
    state = GameState.deal(1)
    seat = state.to_move
    assert seat is not None
    assert ENGINE.timeout_action(state, seat) == NO_BID
    with pytest.raises(IllegalMoveError):
        ENGINE.timeout_action(state, (seat + 1) % 4)
    state = GameState.play_position(["5s 3s 9h", "4s", "6s", "7s"], landlord=0)
    assert ENGINE.timeout_action(state, 0) == Play.parse("3s")
    state = state.apply_text(0, "5s")
    assert ENGINE.timeout_action(state, 1) == PASS
    assert state.phase is Phase.PLAY


def test_the_engines_bot_plays_a_whole_game_legally() -> None:
    bot = ENGINE.bot_policy()
    state = GameState.deal(9)
    while not state.is_terminal:
        seat = state.to_move
        assert seat is not None
        legal = state.legal_actions(seat)
        action = bot.choose(state.view(seat), legal)
        assert action in legal
        state = state.apply(seat, action)
    assert ENGINE.settle(state, base=1).landlord == state.landlord
