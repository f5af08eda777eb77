"""斗地主 over websockets: a player at seat 0 plays game after game against two bots by intents
over the socket, shows the hand now and then, while a spectator watches the first games. Every
frame either of them receives shows no card beyond the engine's view of that seat at the frame's
version: no other hand before it is shown (and then only as far as it is dealt), no bottom card
before the landlord takes it, no card of a redeal still to come, and no seed while the game is
played."""

from __future__ import annotations

import json
import os
import random
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.models import User
from games import services
from games.engines import engine_for
from games.models import Game, Room, Table
from games.rules import Phase
from games.rules.doudizhu import GameState
from games.rules.doudizhu.moves import DealOn, Show
from games.selectors import game_initial_state, game_state
from tests.games.helpers import make_player, make_room
from tests.games.live import (
    CARD_WORD,
    DATA_CARD,
    SEED,
    connect,
    current_version,
    follow,
    intent,
    version_of,
)

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.usefixtures("live_layer_no_runner"),
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

GAMES = int(os.environ.get("TEST_LIVE_DOUDIZHU_GAMES", "40"))
SPECTATED = 8


def _table_with_bots(user: User) -> Table:
    room = make_room(code="ddz-live", base=50)
    room.game = "doudizhu"
    room.save(update_fields=["game"])
    table, _seat = services.table_play(user=user, room=Room.objects.get(pk=room.pk))
    services.table_call_bots(user=user, table=table)
    table.refresh_from_db()
    return table


def _latest_game(table_id: int) -> Game:
    game = Game.objects.filter(table_id=table_id).order_by("-number").first()
    assert game is not None
    return game


def _cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a JSON value (the engine's view)."""
    if isinstance(value, str):
        return set(CARD_WORD.findall(value))
    if isinstance(value, dict):
        return set().union(*map(_cards_in, value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*map(_cards_in, value)) if value else set()
    return set()


def _state_at(game: Game, events: int) -> GameState:
    engine = engine_for(game.game)
    state = game_initial_state(game=game)
    for seat, action in game.events.order_by("number").values_list("seat", "action")[:events]:
        state = state.apply(seat, engine.action_from_json(action))
    assert isinstance(state, GameState)
    return state


def check_frame(frame: str, *, seat: int | None) -> str:
    """Assert that ``frame`` shows ``seat`` only cards of the engine's view of it at the version
    the frame names; returns that version."""
    version = version_of(frame)
    assert version is not None, frame[:300]
    _table_version, game_id, events = version.split(".")
    shown = set(DATA_CARD.findall(frame)) | set(CARD_WORD.findall(SEED.sub("", frame)))
    if game_id == "0":
        assert not shown
        return version
    game = Game.objects.get(pk=int(game_id))
    state = _state_at(game, int(events))
    if state.is_terminal:
        return version  # the hands are public once the game is over
    allowed = _cards_in(state.view(seat, history=True))
    leaked = shown - allowed
    assert not leaked, f"seat {seat} was shown {sorted(leaked)} at {version}"
    for other in range(3):
        if other != seat and not state.shown[other]:
            hidden = {str(card) for card in state.hand(other)}
            if state.landlord is not None:
                hidden -= {str(card) for card in state.bottom}
            assert not shown & hidden, f"seat {seat} saw seat {other}'s hand at {version}"
    if state.landlord is None and not any(state.shown):
        assert not shown & {str(card) for card in state.bottom}
    if seat is None:
        assert 'id="hand-form"' not in frame
    assert game.seed not in frame
    return version


async def _frames_until(socket: WebsocketCommunicator, *, seat: int | None, version: str) -> int:
    """Receive (and check) frames until one shows ``version``; returns how many came."""
    received = 0
    while True:
        text = await socket.receive_from(timeout=10)
        received += 1
        if version_of(text) is None:
            continue
        if await database_sync_to_async(check_frame)(text, seat=seat) == version:
            return received


def _step(game: Game, rng: random.Random, *, show: bool) -> dict[str, Any] | None:
    """Move the game on one step: the clock deals, a bot moves, or (returned) the intent that
    the player at seat 0 sends (``show``: the hand shown at the first chance)."""
    state = game_state(game=game)
    assert isinstance(state, GameState)
    engine = engine_for(game.game)
    legal = [action for action in state.legal_actions(0) if not isinstance(action, DealOn)]
    shows = [action for action in legal if isinstance(action, Show)]
    if shows and (show or rng.random() < 0.15):
        return {"action": "act", "move": json.dumps(engine.action_to_json(shows[0]))}
    if state.phase is Phase.DEAL:
        assert game.turn_deadline is not None
        services.game_turn_due(game=game, now=game.turn_deadline + timedelta(seconds=1))
        return None
    if state.to_move != 0 and not (state.phase is Phase.DOUBLE and state.doubles[0] is None):
        services.bot_take_turn(game=game)
        return None
    moves = [action for action in legal if not isinstance(action, Show)]
    move = rng.choice(moves)
    return {"action": "act", "move": json.dumps(engine.action_to_json(move))}


async def test_many_games_against_bots_never_show_a_card_beyond_the_seats_view() -> None:
    player = await database_sync_to_async(make_player)("zhang", coins=10**9)
    watcher = await database_sync_to_async(make_player)("kan", coins=10**9)
    table = await database_sync_to_async(_table_with_bots)(player)
    socket = await connect(player, table.pk)
    spectator: WebsocketCommunicator | None = await connect(watcher, table.pk)
    rng = random.Random(20261202)
    frames = finished = shown = 0
    version = await database_sync_to_async(current_version)(table.pk)
    try:
        frames += await _frames_until(socket, seat=0, version=version)
        assert spectator is not None
        frames += await _frames_until(spectator, seat=None, version=version)
        while True:
            game = await database_sync_to_async(_latest_game)(table.pk)
            if game.status != Game.Status.PLAYING:
                finished += 1
                if finished == GAMES:
                    break
                if finished == SPECTATED:
                    await spectator.disconnect()
                    spectator = None
                await socket.send_to(text_data=intent("again"))
            else:
                chosen = await database_sync_to_async(_step)(game, rng, show=not shown)
                if chosen is not None:
                    shown += '"show"' in chosen["move"]
                    await socket.send_to(text_data=intent(**chosen, version=version))
            received, version = await follow(
                socket, seat=0, table_id=table.pk, old=version, check=check_frame
            )
            frames += received
            if spectator is not None:
                frames += await _frames_until(spectator, seat=None, version=version)
    finally:
        await socket.disconnect()
        if spectator is not None:
            await spectator.disconnect()
    assert finished == GAMES and shown > 0
    assert frames > GAMES * 20
