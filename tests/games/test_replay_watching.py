"""Watching through the table's socket: a spectator of a game in play is remembered once, so
that they may replay it when it is over; a player is not."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from games import selectors, services
from games.models import GameWatch, Room
from tests.games.helpers import make_player
from tests.games.live import connect

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.usefixtures("live_layer_no_runner"),
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def _seated_game(room: Room, players: list[User]) -> tuple[int, int]:
    for user in players:
        table, _seat = services.table_play(user=user, room=room)
    game = selectors.table_current_game(table=table)
    assert game is not None and not game.is_over
    return table.pk, game.pk


def _watches() -> list[tuple[int, int]]:
    return list(GameWatch.objects.values_list("game_id", "user_id"))


async def _watches_after_a_while(expected: int) -> list[tuple[int, int]]:
    for _ in range(50):
        watches = await database_sync_to_async(_watches)()
        if len(watches) >= expected:
            return watches
        await asyncio.sleep(0.05)
    return await database_sync_to_async(_watches)()


async def test_a_spectators_socket_records_the_watch_once(room: Room) -> None:
    players = [await database_sync_to_async(make_player)(name) for name in ("zhao", "qian", "sun")]
    watcher = await database_sync_to_async(make_player)("kan")
    table_id, game_id = await database_sync_to_async(_seated_game)(room, players)

    seated = await connect(players[0], table_id)
    await seated.receive_from(timeout=10)
    for _ in range(2):
        spectator = await connect(watcher, table_id)
        await spectator.receive_from(timeout=10)
        assert await _watches_after_a_while(1) == [(game_id, watcher.pk)]
        await spectator.disconnect()
    await seated.disconnect()
    assert await database_sync_to_async(_watches)() == [(game_id, watcher.pk)]
