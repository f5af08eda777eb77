"""Attacks on the table socket itself, through the site's real ASGI stack and the channel layer
of the run (in memory by default, Redis when REDIS_URL is set): messages built to crash it, and
sockets that end in every way there is, which must leave nothing running behind them."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings

from accounts.models import User
from games import services
from games.models import Game, Room, Table
from tests.games.helpers import make_player, make_room, start_from_position
from tests.games.live import connect, current_version, intent, receive_frames_until

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.usefixtures("live_layer_no_runner"),
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

NESTED = "[" * 1000 + "]" * 1000


def _table(room: Room, users: list[User]) -> tuple[Table, Game]:
    table = Table.objects.create(room=room)
    for position, user in enumerate(users):
        table.seats.create(position=position, user=user, ready=True)
    game = start_from_position(
        table=table,
        players=users,
        hands=["3s 4s 5s 9h 4d BJ", "6h 7h Kd 5c", "8c 9c Qc 6c"],
        stock="Ah As Ac Ad 2s 2h 7s 7c",
        dealer=0,
    )
    return table, game


async def _three_at_a_table() -> tuple[list[User], Table, Game]:
    room = await database_sync_to_async(make_room)()
    users = [await database_sync_to_async(make_player)(name) for name in ("a", "b", "c")]
    table, game = await database_sync_to_async(_table)(room, users)
    return users, table, game


async def _members(table_id: int) -> int:
    """How many channels the table's group holds in the run's channel layer."""
    layer: Any = get_channel_layer()
    group = services.table_group_name(table_id)
    if hasattr(layer, "_group_key"):  # channels-redis: a sorted set per group
        async with layer.connection(layer.consistent_hash(group)) as connection:
            return int(await connection.zcard(layer._group_key(group)))
    return len(layer.groups.get(group, {}))


def _watches() -> int:
    """The quiet-table watches still running in this event loop."""
    return sum(
        1
        for task in asyncio.all_tasks()
        if not task.done() and "_watch_a_quiet_table" in task.get_coro().__qualname__  # type: ignore[union-attr]
    )


async def _version(table_id: int) -> str:
    return await database_sync_to_async(current_version)(table_id)


async def _moved_on(table_id: int, version: str) -> str:
    """The table's version once it differs from ``version``."""
    for _ in range(500):
        now = await _version(table_id)
        if now != version:
            return now
        await asyncio.sleep(0.01)
    raise AssertionError(f"table {table_id} stayed at version {version}")


async def _opened(user: User, table_id: int, seat: int | None) -> WebsocketCommunicator:
    socket = await connect(user, table_id)
    await receive_frames_until(socket, seat=seat, version=await _version(table_id))
    return socket


async def _ended(socket: WebsocketCommunicator) -> None:
    """Wait for the consumer's application to finish."""
    await asyncio.wait_for(asyncio.shield(socket.future), timeout=10)


async def test_deeply_nested_json_is_refused_and_the_socket_stays_open() -> None:
    users, table, game = await _three_at_a_table()
    socket = await _opened(users[0], table.pk, 0)
    version = await _version(table.pk)
    for text in [
        NESTED,
        '{"action": "play", "cards": ' + NESTED + "}",
        intent("act", move="[" * 100 + "]" * 100, version=version),
        "{" * 5000,
    ]:
        await socket.send_to(text_data=text)
        reply = await socket.receive_output(timeout=10)
        assert reply["type"] == "websocket.send" and "看不懂" in reply["text"], reply
    # The same socket still plays.
    await socket.send_to(text_data=intent("play", cards=["3s"], version=version))
    await receive_frames_until(socket, seat=0, version=await _moved_on(table.pk, version))
    assert await _members(table.pk) == 1
    await socket.disconnect()


async def test_brackets_inside_strings_are_not_nesting() -> None:
    users, table, game = await _three_at_a_table()
    socket = await _opened(users[0], table.pk, 0)
    version = await _version(table.pk)
    await socket.send_to(text_data=intent("play", cards=["3s"], version=version, extra="[{" * 50))
    await receive_frames_until(socket, seat=0, version=await _moved_on(table.pk, version))
    await socket.disconnect()


async def test_a_failing_handler_closes_the_socket_and_leaves_nothing_running(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A crash in a handler (simulated: the service raises) closes that socket with 1011, and
    it leaves the table's group and stops its watch; the others play on. Repeated, nothing
    piles up."""
    users, table, game = await _three_at_a_table()
    other = await _opened(users[1], table.pk, 1)
    assert await _members(table.pk) == 1 and _watches() == 1

    def crash(**_kwargs: Any) -> None:
        raise RuntimeError("a fault in the service")

    monkeypatch.setattr(services, "table_call_bots", crash)
    for _ in range(10):
        socket = await _opened(users[0], table.pk, 0)
        assert await _members(table.pk) == 2 and _watches() == 2
        await socket.send_to(text_data=intent("bots"))
        closed = await socket.receive_output(timeout=10)
        assert closed == {"type": "websocket.close", "code": 1011}
        await _ended(socket)
        assert await _members(table.pk) == 1
        assert _watches() == 1
    monkeypatch.undo()
    # The other socket still hears the table.
    version = await _version(table.pk)
    mover = await _opened(users[0], table.pk, 0)
    await mover.send_to(text_data=intent("play", cards=["3s"], version=version))
    await receive_frames_until(other, seat=1, version=await _moved_on(table.pk, version))
    for socket in (mover, other):
        await socket.disconnect()
    assert await _members(table.pk) == 0 and _watches() == 0


async def test_a_socket_leaves_its_group_however_it_ends() -> None:
    """The client closes; the server cancels the socket (daphne does as it stops, or when the
    connection is lost): either way the group and the watch are left."""
    users, table, game = await _three_at_a_table()
    closed_by_client = await _opened(users[0], table.pk, 0)
    cancelled = await _opened(users[1], table.pk, 1)
    assert await _members(table.pk) == 2 and _watches() == 2
    await closed_by_client.disconnect()
    assert await _members(table.pk) == 1 and _watches() == 1
    cancelled.future.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled.future
    await asyncio.sleep(0.05)  # the shielded clean-up finishes
    assert await _members(table.pk) == 0 and _watches() == 0


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs REDIS_URL: the channel layer on Redis"
)
async def test_the_group_in_redis_holds_no_dead_socket_after_crashes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The group's sorted set in Redis, read with a client of its own: a crashed socket's
    channel is gone from it at once, not only when the layer's expiry would drop it."""
    import redis.asyncio as redis

    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    key = f"{prefix}:group:{services.table_group_name(0)}"
    users, table, game = await _three_at_a_table()
    key = key.replace("table-0", services.table_group_name(table.pk))
    client = redis.Redis.from_url(os.environ["REDIS_URL"])

    def crash(**_kwargs: Any) -> None:
        raise RuntimeError("a fault in the service")

    monkeypatch.setattr(services, "table_call_bots", crash)
    try:
        assert await client.zcard(key) == 0
        for _ in range(5):
            socket = await _opened(users[0], table.pk, 0)
            assert await client.zcard(key) == 1
            await socket.send_to(text_data=intent("bots"))
            assert (await socket.receive_output(timeout=10))["code"] == 1011
            await _ended(socket)
            assert await client.zcard(key) == 0
    finally:
        await client.aclose()
