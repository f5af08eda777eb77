"""A worker's service processes (games.service_processes): on PostgreSQL, what a socket's event
loop hands over (a game's last move, the 再来一局 that deals) is made in a process of its own,
which sends back the notices and the refusals as the socket's thread would have made them.
tests/games/test_move_paths.py plays whole sessions this way against the services alone."""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from django.db import connection, connections
from django.test import override_settings

from accounts.models import LedgerEntry, User
from games import selectors, service_processes, services
from games.errors import GameActionRefused, TableRefused
from games.models import Game, Table
from games.selectors import game_state, table_version

from .helpers import make_player, make_room, start_from_position
from .live import check_frame, connect, intent, receive_frames_until, version_of

on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="service processes run on PostgreSQL"
)


def test_the_refusals_cross_processes_whole() -> None:
    refused = pickle.loads(pickle.dumps(GameActionRefused("choose_meaning", "哪个？", ["a", "b"])))
    assert (refused.code, refused.message, refused.choices) == (
        "choose_meaning",
        "哪个？",
        ("a", "b"),
    )
    table = pickle.loads(pickle.dumps(TableRefused("not_seated", "你不在座位上。")))
    assert (type(table), table.code, table.message) == (
        TableRefused,
        "not_seated",
        "你不在座位上。",
    )


def test_they_run_on_postgresql_when_the_setting_asks(settings: Any) -> None:
    settings.SERVICE_PROCESSES = 1
    assert service_processes.enabled() == (connection.vendor == "postgresql")
    settings.SERVICE_PROCESSES = 0
    assert not service_processes.enabled()


@pytest_asyncio.fixture
async def processes(settings: Any) -> AsyncIterator[None]:
    """One service process for the test; stopped, and every connection closed, before the test
    database is dropped."""
    settings.SERVICE_PROCESSES = 1
    yield
    await database_sync_to_async(service_processes.shutdown)()
    await database_sync_to_async(connections.close_all)()


def _table_one_card_from_the_end() -> tuple[list[User], Table, Game]:
    room = make_room()
    users = [make_player(name) for name in ("a", "b", "c")]
    table = Table.objects.create(room=room)
    for position, user in enumerate(users):
        table.seats.create(position=position, user=user, ready=True)
    hands = ["3s", "6h 7h Kd 5c", "8c 9c Qc 6c"]
    game = start_from_position(
        table=table, players=users, hands=hands, stock="Ah As Ac Ad 2s 2h 7s 7c", dealer=0
    )
    selectors.game_position_remember(game=game, state=game_state(game=game), event=None)
    return users, table, game


def _version(table: Table) -> str:
    table.refresh_from_db()
    return table_version(table=table)


async def _settlement_frame(socket: Any, *, seat: int) -> str:
    """The first frame that shows the game's settlement (each checked for hidden cards)."""
    while True:
        frame = await socket.receive_from(timeout=20)
        if version_of(frame) is not None:
            await database_sync_to_async(check_frame)(frame, seat=seat)
            if 'class="settlement"' in frame:
                return frame


def _settled(game: Game) -> tuple[str, bool, int]:
    game.refresh_from_db()
    return game.status, game.settled_at is not None, LedgerEntry.objects.filter(game=game).count()


@on_postgresql
@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
async def test_a_socket_s_last_move_is_settled_in_a_service_process_and_every_seat_sees_it(
    processes: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    channel_layers.backends.clear()
    users, table, game = await database_sync_to_async(_table_one_card_from_the_end)()
    made_here: list[Any] = []
    through_services = services.table_game_act

    def counted(**kwargs: Any) -> Any:
        made_here.append(kwargs["action"])
        return through_services(**kwargs)

    # Counts the calls made in this process only: the service process has its own module.
    monkeypatch.setattr(services, "table_game_act", counted)
    with override_settings(TABLE_RUNNER_IN_PROCESS=False, TABLE_MESSAGE_RATE="1000/second"):
        sockets = [await connect(user, table.pk) for user in users]
        try:
            version = await database_sync_to_async(_version)(table)
            for seat, socket in enumerate(sockets):
                await receive_frames_until(socket, seat=seat, version=version)
            await sockets[0].send_to(text_data=intent("play", cards="3s", version=version))
            for seat, socket in enumerate(sockets):
                frame = await _settlement_frame(socket, seat=seat)
                assert 'data-status="waiting"' in frame
        finally:
            for socket in sockets:
                await socket.disconnect()
    assert made_here == []
    status, settled, entries = await database_sync_to_async(_settled)(game)
    assert (status, settled) == (Game.Status.FINISHED, True)
    assert entries == 3  # the winner and the two losers, once


@on_postgresql
@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
async def test_a_refusal_in_a_service_process_is_raised_in_the_worker(processes: None) -> None:
    users, table, _game = await database_sync_to_async(_table_one_card_from_the_end)()
    stranger = await database_sync_to_async(make_player)("stranger")
    with pytest.raises(TableRefused) as refused:
        await service_processes.make(
            user_id=stranger.pk,
            table_id=table.pk,
            language="zh-hans",
            intent={"action": "again", "move": None},
            move=None,
        )
    assert refused.value.code == "not_seated" and refused.value.message
    version = await database_sync_to_async(_version)(table)
    with pytest.raises(GameActionRefused) as out_of_turn:
        await service_processes.make(
            user_id=users[1].pk,
            table_id=table.pk,
            language="zh-hans",
            intent={"action": "act", "version": version, "id": "out-of-turn-1"},
            move={"play": "6h"},
        )
    assert out_of_turn.value.code == "not_your_turn"


@on_postgresql
@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
async def test_a_dead_service_process_leaves_the_call_to_the_thread_and_a_new_one_starts(
    processes: None,
) -> None:
    users, table, game = await database_sync_to_async(_table_one_card_from_the_end)()
    pool = service_processes._service_pool()
    assert pool is not None
    await database_sync_to_async(pool.submit(os.getpid).result)(60)  # started
    for pid in list(pool._processes):
        os.kill(pid, signal.SIGKILL)
    version = await database_sync_to_async(_version)(table)
    call = {"action": "act", "version": version, "id": "after-a-death-1"}
    made = await service_processes.make(
        user_id=users[0].pk, table_id=table.pk, language="zh-hans", intent=call, move={"play": "3s"}
    )
    assert made is None  # nothing written: the socket's thread makes it
    assert (await database_sync_to_async(_settled)(game))[:2] == (Game.Status.PLAYING, False)
    made = await service_processes.make(
        user_id=users[0].pk, table_id=table.pk, language="zh-hans", intent=call, move={"play": "3s"}
    )
    assert made is not None and made[0][1]["kind"] == "finished"
    assert (await database_sync_to_async(_settled)(game))[:2] == (Game.Status.FINISHED, True)
