"""Spectators' frames, shared between the spectator sockets of one process, hold only what every
spectator may see: a socket whose user sits down is a player from then on, and its user's seat
never reaches the frame the others get.

Each frame every socket receives is checked against the position its version names, in the
socket's language (English here, the other language than the site's default, so that the
sockets render for themselves rather than forward the frames of the change's notice).
"""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.models import User
from games import services
from games.models import Room, Table
from tests.games.helpers import make_player, make_room
from tests.games.live import (
    connect,
    current_version,
    receive_frames_until,
    version_of,
)

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
