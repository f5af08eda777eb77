"""Every game's ``ENGINE`` follows ``games.rules.protocol``: checked through the protocol only.

Seeded random games are played with nothing but the protocol's calls, for 干瞪眼 and for the toy
game of the tests (``tests.games.toy``), with the checks of OpenSpiel's random simulation test:
only the seat to move has legal actions, any other seat is refused and nothing changes, no view
shows another seat's hidden cards, actions round-trip through JSON, the clock's and the bot's
actions are legal, a finished game settles to zero and replays from its record.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from games.bots import choose_for
from games.rules import IllegalMoveError, RecordError
from games.rules.gandengyan import ENGINE as GANDENGYAN
from games.rules.gandengyan import GameState
from games.rules.protocol import GameEngine, GameStateProtocol, Phase, Policy, SettlementProtocol
from games.rules.shanghai import ENGINE as SHANGHAI
from games.rules.shanghai import GameState as ShanghaiState
from tests.games.toy.rules import ENGINE as HIGHCARD
from tests.games.toy.rules import HighcardState

CARD_TOKEN = re.compile(r"\b(?:[2-9TJQKA][shdc]|BJ|RJ)\b")
BASE = 100


def _gandengyan_secrets(state: GameState, seat: int | None) -> set[str]:
    hidden = {
        str(card) for other in range(state.players) if other != seat for card in state.hand(other)
    }
    return hidden | {str(card) for card in state.stock_cards()}


def _gandengyan_shown(view: dict[str, Any]) -> set[str]:
    return set(CARD_TOKEN.findall(json.dumps(view)))


SHANGHAI_TOKEN = re.compile(r"\b(?:[2-9TJQKA][shdc]|BJ|RJ)\.[12]\b")


def _shanghai_secrets(state: ShanghaiState, seat: int | None) -> set[str]:
    hidden = {
        str(card) for other in range(state.players) if other != seat for card in state.hand(other)
    }
    bottom = {str(card) for card in state.bottom}
    # The bottom is shown once the landlord takes it; the face-up card is public from the deal.
    hidden = hidden | bottom if state.landlord is None else hidden - bottom
    return hidden - {str(state.current_deal.face_up)}


def _shanghai_shown(view: dict[str, Any]) -> set[str]:
    return set(SHANGHAI_TOKEN.findall(json.dumps(view)))


def _highcard_secrets(state: HighcardState, seat: int | None) -> set[str]:
    return {
        str(card) for other in range(state.players) if other != seat for card in state.hidden(other)
    }


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def _highcard_shown(view: dict[str, Any]) -> set[str]:
    # The toy's cards are 7 to 14; nothing else in its views (seats, counts) reaches 7.
    return {str(leaf) for leaf in _leaves(view) if type(leaf) is int and leaf >= 7}


@dataclasses.dataclass(frozen=True)
class Game:
    """An engine, options from a room's rules, and how to find card names in its views."""

    engine: GameEngine[Any, Any, Any]
    rules: dict[str, Any]
    secrets: Callable[[Any, int | None], set[str]]
    shown: Callable[[dict[str, Any]], set[str]]

    def __str__(self) -> str:
        return f"{self.engine.key}{self.rules or ''}"


GAMES = [
    Game(GANDENGYAN, {}, _gandengyan_secrets, _gandengyan_shown),
    Game(GANDENGYAN, {"players": 4}, _gandengyan_secrets, _gandengyan_shown),
    Game(HIGHCARD, {}, _highcard_secrets, _highcard_shown),
    Game(HIGHCARD, {"players": 2}, _highcard_secrets, _highcard_shown),
    Game(SHANGHAI, {}, _shanghai_secrets, _shanghai_shown),
]
ENGINES = [GANDENGYAN, HIGHCARD, SHANGHAI]
by_game = pytest.mark.parametrize("game", GAMES, ids=str)


def deal(game: Game, seed: int, dealer: int | None = None) -> Any:
    options = game.engine.options_from_json(game.rules)
    players = game.engine.seat_count(options)
    return game.engine.deal(seed, players=players, options=options, dealer=dealer)


def json_round_trip(data: Any) -> Any:
    return json.loads(json.dumps(data))


# The engine object --------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES, ids=lambda engine: engine.key)
def test_the_engine_is_a_game_engine(engine: GameEngine[Any, Any, Any]) -> None:
    assert isinstance(engine, GameEngine)
    assert isinstance(engine.key, str) and engine.key
    assert isinstance(engine.title, str) and engine.title
    assert isinstance(engine.bot_policy(), Policy)
    default = engine.default_options
    assert engine.seat_count(default) in engine.player_counts
    assert engine.options_to_json(default) == {}
    assert engine.options_from_json({}) == default
    assert engine.options_from_json(None) == default


def test_engine_keys_are_distinct() -> None:
    assert len({engine.key for engine in ENGINES}) == len(ENGINES)


@by_game
def test_options_round_trip_through_json(game: Game) -> None:
    options = game.engine.options_from_json(game.rules)
    assert game.engine.options_to_json(options) == game.rules
    assert (
        game.engine.options_from_json(json_round_trip(game.engine.options_to_json(options)))
        == options
    )


# Dealing ------------------------------------------------------------------------------------------


@by_game
@pytest.mark.parametrize("seed", [0, 1, 7, 2**200 + 3])
def test_the_same_seed_deals_the_same_game(game: Game, seed: int) -> None:
    state = deal(game, seed)
    assert isinstance(state, GameStateProtocol)
    assert state == deal(game, seed)
    options = game.engine.options_from_json(game.rules)
    stored = json_round_trip(game.engine.deal_to_json(state))
    assert stored == game.engine.deal_to_json(state)
    assert game.engine.deal_from_json(stored, options) == state
    assert state.players == game.engine.seat_count(options)
    assert state.log_length == 0 and not state.is_terminal and state.winner is None
    assert state.phase is not Phase.OVER
    for dealer in range(state.players):
        assert deal(game, seed, dealer) == deal(game, seed, dealer)


@by_game
def test_seeds_deal_different_games(game: Game) -> None:
    deals = {json.dumps(game.engine.deal_to_json(deal(game, seed))) for seed in range(20)}
    assert len(deals) > 10


@by_game
def test_a_deal_for_the_wrong_number_of_players_is_refused(game: Game) -> None:
    options = game.engine.options_from_json(game.rules)
    players = game.engine.seat_count(options)
    with pytest.raises(ValueError):
        game.engine.deal(1, players=players + 1, options=options)


# Random games through the protocol ----------------------------------------------------------------


def check_views(game: Game, state: Any) -> None:
    """Each seat sees its own cards at most, a spectator none; views are plain JSON."""
    for seat in [*range(state.players), None]:
        view = state.view(seat)
        assert json_round_trip(view) == view
        assert view == state.view(seat)
        leaked = game.shown(view) & game.secrets(state, seat)
        assert not leaked, (seat, leaked)
        short = state.view(seat, history=False)
        assert game.shown(short) <= game.shown(view)


def check_other_seats_refused(state: Any, action: Any) -> None:
    """Any seat but the one to move is refused (``not_your_turn``), and nothing changes."""
    before = [state.view(seat) for seat in range(state.players)]
    for seat in range(state.players):
        if seat == state.to_move:
            continue
        assert list(state.legal_actions(seat)) == []
        for attempt in (state.apply, state.resolve):
            with pytest.raises(IllegalMoveError) as refused:
                attempt(seat, action)
            assert refused.value.code == "not_your_turn"
            assert refused.value.message == (
                f"seat {seat} acted, but it is seat {state.to_move}'s turn"
            )
    assert [state.view(seat) for seat in range(state.players)] == before


def play(game: Game, seed: int) -> tuple[Any, list[Any]]:
    """A game from ``seed``, each action chosen at random, every step checked."""
    engine = game.engine
    rng = random.Random(seed)
    state = deal(game, seed)
    deal_json = engine.deal_to_json(state)
    states = [state]
    while not state.is_terminal:
        seat = state.to_move
        assert seat is not None and 0 <= seat < state.players
        assert state.phase is not Phase.OVER and state.winner is None
        legal = list(state.legal_actions(seat))
        assert legal and legal == list(state.legal_actions(seat))
        for action in legal:
            assert state.resolve(seat, action) == action
            assert state.resolve(seat, action, strict=True) == action
            stored = json_round_trip(engine.action_to_json(action))
            assert engine.action_from_json(stored) == action
        check_views(game, state)
        check_other_seats_refused(state, legal[0])
        assert engine.timeout_action(state, seat) in legal
        assert choose_for(state, engine.bot_policy()) in legal
        with pytest.raises(ValueError):
            engine.settle(state, base=BASE)
        action = legal[rng.randrange(len(legal))]
        after = state.apply(seat, action)
        assert after.log_length == state.log_length + 1
        assert engine.deal_to_json(after) == deal_json
        state = after
        states.append(state)
        assert len(states) < 2000, "the game does not end"
    return state, states


@by_game
@pytest.mark.parametrize("seed", range(12))
def test_random_games_through_the_protocol(game: Game, seed: int) -> None:
    engine = game.engine
    end, states = play(game, seed)
    assert end.phase is Phase.OVER and end.to_move is None
    assert end.winner in range(end.players)
    check_views(game, end)
    last = states[-2]
    action = last.legal_actions(last.to_move)[0]
    for seat in range(end.players):
        assert list(end.legal_actions(seat)) == []
        with pytest.raises(IllegalMoveError) as refused:
            end.apply(seat, action)
        assert refused.value.code == "game_over"

    settlement = engine.settle(end, base=BASE)
    assert isinstance(settlement, SettlementProtocol)
    assert len(settlement.payments) == end.players
    assert sum(settlement.payments) == 0
    assert settlement.winner == end.winner and settlement.payments[end.winner] > 0
    assert settlement.base == BASE
    assert json_round_trip(settlement.to_json()) == settlement.to_json()

    record = json_round_trip(engine.record_to_json(end, base=BASE, seed=seed))
    replay = engine.replay_record(record)
    assert replay.ok and replay.error is None
    assert replay.applied == end.log_length
    assert replay.state == end
    assert replay.settlement == settlement


@by_game
@pytest.mark.parametrize("seed", range(3))
def test_a_record_from_the_stored_deal_and_actions_is_the_engines_record(
    game: Game, seed: int
) -> None:
    """What a game's row and events keep gives, without a replay, the very record (key order
    included) that the engine writes of the position they lead to."""
    engine = game.engine
    options = engine.options_from_json(game.rules)
    rng = random.Random(seed)
    state = deal(game, seed)
    stored_deal = json_round_trip(engine.deal_to_json(state))
    stored_actions: list[tuple[int, dict[str, Any]]] = []
    meta = {"game": seed, "number": 1}
    while True:
        for secret in (None, seed):
            written = engine.record_to_json(state, base=BASE, seed=secret, meta=meta)
            built = engine.record_from_deal(
                options=options,
                deal=stored_deal,
                actions=stored_actions,
                base=BASE,
                seed=secret,
                meta=meta,
            )
            assert json.dumps(built) == json.dumps(written)
        if state.is_terminal:
            break
        seat = state.to_move
        legal = list(state.legal_actions(seat))
        action = legal[rng.randrange(len(legal))]
        stored_actions.append((seat, json_round_trip(engine.action_to_json(action))))
        state = state.apply(seat, action)


@by_game
def test_a_record_with_an_action_out_of_turn_stops_there(game: Game) -> None:
    engine = game.engine
    end, states = play(game, 5)
    record = json_round_trip(engine.record_to_json(end, base=BASE))
    index = len(record["actions"]) // 2
    wrong = (record["actions"][index]["seat"] + 1) % end.players
    record["actions"][index]["seat"] = wrong
    replay = engine.replay_record(record)
    assert not replay.ok and replay.applied == index
    assert replay.error.code == "not_your_turn"
    assert replay.error.index == index
    assert replay.state == states[index]
    assert replay.settlement is None
    # A record cut short replays to the state it reached, unsettled.
    record = json_round_trip(engine.record_to_json(states[index], base=BASE))
    replay = engine.replay_record(record)
    assert replay.ok and replay.state == states[index] and replay.settlement is None


@pytest.mark.parametrize("engine", ENGINES, ids=lambda engine: engine.key)
def test_a_malformed_record_is_a_record_error(engine: GameEngine[Any, Any, Any]) -> None:
    with pytest.raises(RecordError):
        engine.replay_record({"format": "no-such-format/1"})
    with pytest.raises(RecordError):
        engine.replay_record([])
