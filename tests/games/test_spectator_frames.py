"""Spectators' frames, shared between the spectator sockets of one process, hold only what every
spectator may see: a socket whose user sits down is a player from then on, and its user's seat
never reaches the frame the others get.

Each frame every socket receives is checked against the position its version names, in the
socket's language (English here, the other language than the site's default, so that the
sockets render for themselves rather than forward the frames of the change's notice).
"""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings

from accounts.models import User
from games import selectors, services
from games.bots import choose_for
from games.engines import engine_for
from games.models import Game, Room, Table
from tests.games.helpers import make_player, make_room, set_balance
from tests.games.live import (
    connect,
    current_version,
    receive_frames_until,
    version_of,
)
from tests.games.test_hidden_information import COUNTER_BLOCK, SEAT_BOX, Secrets, leaks

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.usefixtures("live_layer_no_runner"),
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def _waiting_table(room: Room, users: list[User]) -> Table:
    table = None
    for user in users:
        table, _seat = services.table_play(user=user, room=room)
    assert table is not None
    table.refresh_from_db()
    assert table.status == Table.Status.WAITING
    return table


def _seat_of(user: User, table_id: int) -> int | None:
    table = Table.objects.get(pk=table_id)
    seat = table.seats.filter(user=user).first()
    return None if seat is None else seat.position


async def test_a_spectator_who_sits_down_never_hands_the_others_their_own_frame() -> None:
    room = await database_sync_to_async(make_room)(rules={"players": 3})
    sitting = [await database_sync_to_async(make_player)(name) for name in ("dong", "nan")]
    table = await database_sync_to_async(_waiting_table)(room, sitting)
    newcomer = await database_sync_to_async(make_player)("xi")
    watchers = [await database_sync_to_async(make_player)(name) for name in ("kan", "wang")]

    # The newcomer's socket opens first, as a spectator, so that it is the first of the
    # process's spectator sockets to hear of the deal.
    sockets: list[WebsocketCommunicator] = []
    for user in (newcomer, *watchers):
        sockets.append(await connect(user, table.pk, language="en"))
    version = await database_sync_to_async(current_version)(table.pk)
    for socket in sockets:
        await receive_frames_until(socket, seat=None, version=version)

    # 开始游戏 in the room: the newcomer takes the last seat and the game is dealt at once.
    await database_sync_to_async(services.table_play)(user=newcomer, room=room)
    dealt = await database_sync_to_async(current_version)(table.pk)
    assert dealt.split(".")[1] != "0"
    seat = await database_sync_to_async(_seat_of)(newcomer, table.pk)
    assert seat is not None

    # Every frame of the watchers is checked: no card of any hand, the newcomer's included.
    for socket in sockets[1:]:
        frames = await receive_frames_until(socket, seat=None, version=dealt)
        assert all('id="hand-form"' not in frame for frame in frames)
    # The newcomer's own socket shows them their seat and hand now.
    frames = await receive_frames_until(sockets[0], seat=seat, version=dealt)
    assert 'id="hand-form"' in frames[-1]
    assert version_of(frames[-1]) == dealt
    for socket in sockets:
        await socket.disconnect()


def _public_table_with_bots(room_code: str, user: User) -> Table:
    room = Room.objects.get(code=room_code)
    set_balance(user, room.min_coins * 3 if room.max_coins is None else room.max_coins)
    table, _seat = services.table_play(user=user, room=room)
    services.table_call_bots(user=user, table=table)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING and not table.is_private
    return table


def _state_at(version: str) -> tuple[Game, Any] | None:
    """The game a frame of ``version`` shows and its position then; None between games."""
    _table, game_id, events = version.split(".")
    if game_id == "0":
        return None
    game = Game.objects.get(pk=int(game_id))
    stored = list(game.events.order_by("number").values_list("id", "seat", "action"))
    replayed = selectors.game_state_after(game=game, events=stored[: int(events)], since=0)
    assert replayed is not None
    state, _last = replayed
    assert state.log_length == int(events)
    return game, state


def _check(frame: str, seat: int | None) -> str:
    """``frame`` checked with the hidden-information detector for ``seat`` (None: a
    spectator) at the position its version names: no hidden card in any notation, no hidden
    order or seed, and no number (the card counter, a seat's count) the view does not give."""
    version = version_of(frame)
    assert version is not None, frame[:300]
    shown = _state_at(version)
    if shown is not None:
        game, state = shown
        if not state.is_terminal:
            # The numbers are there to be read: the detector's reading of them counts.
            assert COUNTER_BLOCK.search(frame) and len(SEAT_BOX.findall(frame)) == state.players
            found = leaks(frame, Secrets.of(game, state, seat))
            assert not found, f"a frame of {version} shows seat {seat} {found}"
        if seat is None:
            assert 'id="hand-form"' not in frame
    return version


async def _frames_until(socket: WebsocketCommunicator, seat: int | None, version: str) -> int:
    """Receive and check frames until one shows ``version``; how many came."""
    count = 0
    while True:
        text = await socket.receive_from(timeout=15)
        if version_of(text) is None:
            continue
        count += 1
        if await database_sync_to_async(_check)(text, seat) == version:
            return count


def _move(table_id: int) -> str | None:
    """The next move of the table's game, chosen by its bot policy and made through the
    services (the deal's steps too); the table's version after it, None once it is over."""
    table = Table.objects.get(pk=table_id)
    game = selectors.table_current_game(table=table)
    assert game is not None
    state = selectors.game_state(game=game)
    if state.is_terminal:
        return None
    engine = engine_for(game.game)
    seat = state.to_move
    assert seat is not None
    action = choose_for(state, engine.bot_policy())
    services.game_act(game=game, seat=seat, action=engine.action_to_json(action))
    return current_version(table_id)


@pytest.mark.parametrize(
    "room_code", ["novice", "ddz-novice", "sh-novice"], ids=["gandengyan", "doudizhu", "shanghai"]
)
async def test_every_frame_of_a_game_hides_from_each_socket_what_its_seat_may_not_see(
    room_code: str,
) -> None:
    """A whole game watched by two spectator sockets in each of the site's languages (which
    share their frames within the process) and played by one person whose socket is in each
    language too: every frame each socket receives passes the hidden-information detector."""
    player = await database_sync_to_async(make_player)("wanjia")
    table = await database_sync_to_async(_public_table_with_bots)(room_code, player)
    seat = await database_sync_to_async(_seat_of)(player, table.pk)
    languages = [code for code, _name in settings.LANGUAGES]
    assert len(languages) >= 2
    watching: list[WebsocketCommunicator] = []
    for number, language in enumerate(languages * 2):
        watcher = await database_sync_to_async(make_player)(f"kan{number}")
        watching.append(await connect(watcher, table.pk, language=language))
    playing = [await connect(player, table.pk, language=language) for language in languages]
    sockets = [(socket, None) for socket in watching] + [(socket, seat) for socket in playing]
    version = await database_sync_to_async(current_version)(table.pk)
    frames = 0
    moves = 0
    while version is not None:
        for socket, viewer in sockets:
            frames += await _frames_until(socket, viewer, version)
        version = await database_sync_to_async(_move)(table.pk)
        moves += 1
    # The deal is the game's own (a seed of the services'): a game may end after a play or two.
    assert moves >= 2 and frames >= moves * len(sockets)
    for socket, _viewer in sockets:
        await socket.disconnect()
