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
from django.test import override_settings
from limits import parse_many

from accounts.models import User
from games import consumers, services, socket_limits
from games.models import Game, Room, Table
from tests.games.helpers import make_player, make_room, start_from_position
from tests.games.live import (
    connect,
    current_version,
    intent,
    receive_frames_until,
    session_cookie,
)

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


# Too many sockets ---------------------------------------------------------------------------------


async def _refused(user: User, table_id: int) -> str:
    """Open a socket that must be refused as one too many; the words the page shows."""
    socket = await connect(user, table_id, language="en")
    told = await socket.receive_output(timeout=10)
    assert told["type"] == "websocket.send" and 'id="connection-busy-text"' in told["text"], told
    assert await socket.receive_output(timeout=10) == {"type": "websocket.close", "code": 4429}
    await socket.disconnect()  # as the server does once the close is done
    return str(told["text"])


def _count_renders(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int | None, str]]:
    """Record the seat (None: a spectator's) and version of every frame the sockets render
    (and render it)."""
    renders: list[tuple[int | None, str]] = []
    render = consumers.render_frame_and_version

    def counted(**kwargs: Any) -> tuple[str, str]:
        frame, version = render(**kwargs)
        renders.append((kwargs["seat"], version))
        return frame, version

    def counted_for_spectators(**kwargs: Any) -> tuple[str, str] | None:
        rendered = render_for_spectators(**kwargs)
        if rendered is not None:
            renders.append((None, rendered[1]))
        return rendered

    render_for_spectators = consumers.render_spectator_frame
    monkeypatch.setattr(consumers, "render_frame_and_version", counted)
    monkeypatch.setattr(consumers, "render_spectator_frame", counted_for_spectators)
    return renders


@override_settings(TABLE_SOCKETS_PER_USER=5, TABLE_SPECTATORS_MAX=8)
async def test_one_account_cannot_flood_a_table_with_sockets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One account opens spectator sockets on a busy table until refused; other accounts fill
    the spectators' places. The refused get 4429 and words that say why; the spectators' frame
    of each move is rendered once for all of them; another table's move is answered."""
    users, table, game = await _three_at_a_table()
    room = await Room.objects.aget(pk=table.room_id)
    others = [await database_sync_to_async(make_player)(name) for name in ("d", "e", "f")]
    other_table, _other_game = await database_sync_to_async(_table)(room, others)
    flooder = await database_sync_to_async(make_player)("flood")
    watchers = [await database_sync_to_async(make_player)(f"w{n}") for n in range(4)]

    flood = [await _opened(flooder, table.pk, None) for _ in range(5)]
    for _ in range(3):
        assert "too many table pages" in await _refused(flooder, table.pk)
    # The account's cap counts its sockets at every table.
    assert "too many table pages" in await _refused(flooder, other_table.pk)
    crowd = [await _opened(watcher, table.pk, None) for watcher in watchers[:3]]
    assert "all the spectators" in await _refused(watchers[3], table.pk)
    # Players are not spectators: every seat still connects.
    players = [await _opened(user, table.pk, seat) for seat, user in enumerate(users)]
    assert await _members(table.pk) == 5 + 3 + 3

    renders = _count_renders(monkeypatch)
    version = await _version(table.pk)
    await players[0].send_to(text_data=intent("play", cards=["3s"], version=version))
    after = await _moved_on(table.pk, version)
    for socket in [*flood, *crowd]:
        await receive_frames_until(socket, seat=None, version=after)
    spectators_renders = [render for render in renders if render[0] is None]
    assert spectators_renders == [(None, after)]  # once for the eight spectators

    # Meanwhile another table plays on.
    mover = await _opened(others[0], other_table.pk, 0)
    other_version = await _version(other_table.pk)
    await mover.send_to(text_data=intent("play", cards=["3s"], version=other_version))
    await receive_frames_until(
        mover, seat=0, version=await _moved_on(other_table.pk, other_version)
    )

    # A socket closed gives its place back.
    await flood.pop().disconnect()
    flood.append(await _opened(flooder, table.pk, None))
    for socket in [*flood, *crowd, *players, mover]:
        await socket.disconnect()
    assert await _members(table.pk) == 0


async def test_the_places_of_sockets_that_died_with_their_worker_expire() -> None:
    """A killed worker frees nothing: its sockets' places (here taken directly, as its sockets
    took them) expire; a live socket renews its own as it watches the table."""
    users, table, game = await _three_at_a_table()
    with override_settings(
        TABLE_SOCKETS_PER_USER=1, TABLE_SOCKET_SLOT_SECONDS=1, TABLE_RESYNC_SECONDS=0.2
    ):
        dead = await database_sync_to_async(socket_limits.place_take)(
            kind=f"user:{users[0].pk}", capacity=1, owner="a socket of a killed worker"
        )
        assert dead is not None
        assert "too many table pages" in await _refused(users[0], table.pk)
        await asyncio.sleep(1.2)
        socket = await _opened(users[0], table.pk, 0)
        await asyncio.sleep(1.5)  # past the place's life: renewed
        assert "too many table pages" in await _refused(users[0], table.pk)
        await socket.disconnect()
        await _opened(users[0], table.pk, 0)


# Message limits across workers ----------------------------------------------------------------

needs_redis_cache = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"),
    reason="needs REDIS_URL: without it the cache is this process's memory (one worker)",
)


def _worker() -> Any:
    """The table sockets of a worker process of their own, as far as message limits go: its
    own in-process windows, the run's cache (Redis: shared with every other worker)."""
    from channels.auth import AuthMiddlewareStack
    from channels.routing import URLRouter
    from django.urls import path

    consumer = consumers.TableConsumer.as_asgi(windows=socket_limits.MovingWindows())
    return AuthMiddlewareStack(URLRouter([path("ws/tables/<int:table_id>/", consumer)]))


async def _connect_to(worker: Any, user: User, table_id: int) -> WebsocketCommunicator:
    cookie = await database_sync_to_async(session_cookie)(user)
    socket = WebsocketCommunicator(
        worker,
        f"/ws/tables/{table_id}/",
        headers=[(b"cookie", f"django_language=zh-hans; sessionid={cookie}".encode())],
    )
    connected, _code = await socket.connect(timeout=10)
    assert connected
    await receive_frames_until(socket, seat=1, version=await _version(table_id))
    return socket


@needs_redis_cache
async def test_a_user_on_two_workers_gets_one_budget_of_messages() -> None:
    """Two tabs of one player, each on its own worker: the 5 messages a minute are counted
    across both, not 5 on each."""
    users, table, game = await _three_at_a_table()
    first = await _connect_to(_worker(), users[1], table.pk)
    second = await _connect_to(_worker(), users[1], table.pk)
    version = await _version(table.pk)
    out_of_turn = intent("play", cards=["6h"], version=version)
    with override_settings(TABLE_MESSAGE_RATE="5/minute"):
        for _ in range(3):
            await first.send_to(text_data=out_of_turn)
            assert "还没轮到你" in await first.receive_from(timeout=10)
        for _ in range(5):
            await second.send_to(text_data=out_of_turn)
        texts = [await second.receive_from(timeout=10) for _ in range(3)]
        assert await second.receive_nothing(timeout=0.3)
        await first.send_to(text_data=out_of_turn)
        assert "太频繁" in await first.receive_from(timeout=10)
    assert ["还没轮到你" in text for text in texts] == [True, True, False]
    assert "太频繁" in texts[2]
    for socket in (first, second):
        await socket.disconnect()


@needs_redis_cache
async def test_the_shared_windows_are_moving_windows() -> None:
    shared = socket_limits.shared_windows()
    assert shared is not None
    rates = parse_many("3/second;5/minute")
    hits = [await shared.hit(41, rates, now) for now in (100.0, 100.1, 100.2, 100.5)]
    assert hits == [True, True, True, False]
    assert await shared.hit(41, rates, 101.05)  # the first left the second's window
    assert not await shared.hit(41, rates, 102.0)  # five in the minute
    assert await shared.hit(42, rates, 102.0)  # another user's own windows
