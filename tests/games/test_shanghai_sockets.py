"""上海斗地主 over websockets: a player at seat 0 plays games against three bots by intents over
the socket (bids, plays by the hand's form, passes; a bomb the bidding no longer allows, which
the server refuses with its reason), while a spectator watches the first games.
Every frame either of them receives shows no card beyond the engine's view of that seat at the
frame's version: no other seat's copy of a card, no bottom card before the landlord takes it,
no card of a redeal still to come, and no seed while the game is played."""

from __future__ import annotations

import json
import os
import random
import re
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from accounts.models import User
from games import services
from games.engines import engine_for
from games.models import Game, Room, Table
from games.rules import Phase
from games.rules.shanghai import NO_BID, GameState, Play
from games.selectors import game_initial_state, game_state
from tests import seeds
from tests.games.helpers import make_player, make_room
from tests.games.live import DATA_CARD, SEED, connect, current_version, follow, intent, version_of

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.usefixtures("live_layer_no_runner"),
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

GAMES = int(os.environ.get("TEST_LIVE_SHANGHAI_GAMES", "6"))
SPECTATED = 2
DEALS = int(os.environ.get("TEST_LIVE_SHANGHAI_DEALS", "3"))
# A card of two decks as the frames write it, with its deck.
DECK_CODE = re.compile(r"(?<![0-9A-Za-z])((?:[2-9TJQKA][shdc]|BJ|RJ)\.[12])(?![0-9A-Za-z])")
NOTICE = re.compile(r'<div id="notice" class="notice is-shown" role="alert">(.*?)</div>', re.S)


def _table_with_bots(user: User) -> Table:
    room = make_room(code="sh-live", base=50)
    room.game = "shanghai"
    room.save(update_fields=["game"])
    table, _seat = services.table_play(user=user, room=Room.objects.get(pk=room.pk))
    services.table_call_bots(user=user, table=table)
    table.refresh_from_db()
    return table


def _latest_game(table_id: int) -> Game:
    game = Game.objects.filter(table_id=table_id).order_by("-number").first()
    assert game is not None
    return game


def _codes_in(value: Any) -> set[str]:
    """Every card named with its deck anywhere in a JSON value (the engine's view)."""
    if isinstance(value, str):
        return set(DECK_CODE.findall(value))
    if isinstance(value, dict):
        return set().union(*map(_codes_in, value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*map(_codes_in, value)) if value else set()
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
    shown = set(DATA_CARD.findall(frame)) | set(DECK_CODE.findall(SEED.sub("", frame)))
    if game_id == "0":
        assert not shown
        return version
    game = Game.objects.get(pk=int(game_id))
    state = _state_at(game, int(events))
    if state.is_terminal:
        return version  # the hands are public once the game is over
    allowed = _codes_in(state.view(seat, history=True))
    leaked = shown - allowed
    assert not leaked, f"seat {seat} was shown {sorted(leaked)} at {version}"
    if state.landlord is None:
        assert not shown & {str(card) for card in state.bottom}
    if seat is None:
        assert 'id="hand-form"' not in frame
    assert game.seed not in frame
    return version


def _step(game: Game, rng: random.Random, tried: set[int]) -> dict[str, Any] | None:
    """Move the game on one step: a bot moves, or (returned) the intent that the player at
    seat 0 sends. The player says 不叫 (a farmer who passed may bomb once), bombs where it can
    and, having no bomb left, tries one more once a game (named by rank and suit only, as a
    person might type it), which the server must refuse; else plays or passes."""
    state = game_state(game=game)
    assert isinstance(state, GameState)
    if state.to_move != 0:
        services.bot_take_turn(game=game)
        return None
    engine = engine_for(game.game)
    if state.phase is Phase.BID:
        move = NO_BID if rng.random() < 0.8 else rng.choice(state.legal_actions(0))
        return {"action": "act", "move": json.dumps(engine.action_to_json(move))}
    plays = [move for move in state.legal_moves() if isinstance(move, Play)]
    bombs = [move for move in plays if move.combo is not None and move.combo.is_bomb]
    held = _bombs_held(state)
    if state.bombs_left[0] == 0 and held and game.pk not in tried:
        tried.add(game.pk)
        return {"action": "play", "cards": held[0], "refused": True}
    if bombs:
        return {"action": "play", "cards": str(bombs[0])}
    if plays and (state.table is None or rng.random() < 0.8):
        return {"action": "play", "cards": str(rng.choice(plays[:4]))}
    return {"action": "pass"}


def _bombs_held(state: GameState) -> list[str]:
    """Bombs in seat 0's hand, written by rank and suit without the deck (as a person might)."""
    by_rank: dict[str, list[str]] = {}
    for card in state.hand(0):
        if card.suit is not None:
            by_rank.setdefault(card.rank.symbol, []).append(str(card).split(".")[0])
    return [" ".join(cards[:4]) for cards in by_rank.values() if len(cards) >= 4]


@pytest.fixture
def seeded_deals() -> Any:
    """The same deals on every run, among them a player's second bomb when one was allowed."""
    seeds.restart(DEALS)
    with override_settings(GAME_SEED_SOURCE=seeds.SOURCE):
        yield


async def test_games_against_bots_never_show_a_card_beyond_the_seats_view(
    seeded_deals: None,
) -> None:
    player = await database_sync_to_async(make_player)("zhang", coins=10**9)
    watcher = await database_sync_to_async(make_player)("kan", coins=10**9)
    table = await database_sync_to_async(_table_with_bots)(player)
    socket = await connect(player, table.pk)
    spectator: WebsocketCommunicator | None = await connect(watcher, table.pk)
    rng = random.Random(20261203)
    frames = finished = refused = 0
    tried: set[int] = set()
    version = await database_sync_to_async(current_version)(table.pk)
    try:
        received, version = await follow(
            socket, seat=0, table_id=table.pk, old=None, check=check_frame
        )
        frames += received
        assert spectator is not None
        frames += (
            await follow(spectator, seat=None, table_id=table.pk, old=None, check=check_frame)
        )[0]
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
                chosen = await database_sync_to_async(_step)(game, rng, tried)
                if chosen is not None and chosen.pop("refused", False):
                    # A bomb the bidding does not allow: refused with its reason, nothing moves.
                    await socket.send_to(text_data=intent(**chosen, version=version))
                    text = await socket.receive_from(timeout=10)
                    notice = NOTICE.search(text)
                    assert notice is not None and "炸弹" in notice.group(1), text[-400:]
                    refused += 1
                    continue
                if chosen is not None:
                    await socket.send_to(text_data=intent(**chosen, version=version))
            received, version = await follow(
                socket, seat=0, table_id=table.pk, old=version, check=check_frame
            )
            frames += received
            if spectator is not None:
                frames += (
                    await follow(
                        spectator, seat=None, table_id=table.pk, old=None, check=check_frame
                    )
                )[0]
    finally:
        await socket.disconnect()
        if spectator is not None:
            await spectator.disconnect()
    assert finished == GAMES and refused > 0
    assert frames > GAMES * 20
