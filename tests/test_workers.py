"""Several real daphne workers on PostgreSQL and Redis: the players of one table sit on different
processes and each sees every move; a worker killed mid-game (SIGKILL) loses nothing, its players
reconnect to the other worker and the game goes on to its exact settlement."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
import websockets
from django.conf import settings
from django.db import connection
from django.test import Client

from accounts.models import LedgerEntry, LedgerReason, User
from games import services
from games.models import Game, Table
from games.selectors import table_version
from tests.games.helpers import make_player, make_room
from tests.games.live import check_frame, choose_intent, version_of

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Worker:
    port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


def start_worker(env: dict[str, str]) -> Worker:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
        + ["gandengyan.asgi:application"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return Worker(port, process)
        time.sleep(0.1)
    process.kill()
    raise AssertionError("a daphne worker did not start")


def worker_env(name: str, **overrides: str) -> dict[str, str]:
    """The environment of the daphne workers a test starts: the production settings, read from
    the environment as in a deployment, on the test's database; ``name`` sets their Redis prefix
    apart, and ``overrides`` are further variables."""
    database = connection.settings_dict
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.server_settings",
        # A channel prefix of this run's own: another test run on the same Redis numbers its
        # tables alike, and its workers must not hear these.
        "TEST_CHANNEL_PREFIX": f"{name}{os.getpid()}-{settings.TEST_DB_SUFFIX}",
        "DATABASE_URL": (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/"
            f"{database['NAME']}"
        ),
        "TABLE_RUNNER_IN_PROCESS": "false",
        # The test acts far faster than a person.
        "TABLE_MESSAGE_RATE": "1000/second",
        # The test's sessions are signed with the test's key.
        "SECRET_KEY": settings.SECRET_KEY,
        **overrides,
    }


def stop_workers(started: list[Worker]) -> None:
    for worker in started:
        if worker.process.poll() is None:
            worker.process.terminate()
            worker.process.wait(timeout=10)


@pytest.fixture
def workers() -> Iterator[list[Worker]]:
    if not os.environ.get("REDIS_URL"):
        pytest.skip("needs REDIS_URL: workers share table updates through Redis")
    env = worker_env("workers")
    started = [start_worker(env), start_worker(env)]
    yield started
    stop_workers(started)


@dataclass
class Player:
    user: User
    seat: int
    cookie: str
    frames: list[str] = field(default_factory=list)
    socket: websockets.ClientConnection | None = None

    async def connect(self, worker: Worker, table_id: int) -> None:
        self.socket = await websockets.connect(
            f"{worker.url}/ws/tables/{table_id}/",
            origin=websockets.Origin("http://127.0.0.1"),
            additional_headers={"Cookie": f"sessionid={self.cookie}; django_language=en"},
            open_timeout=10,
        )

    async def frame_at(self, version: str) -> str:
        """Receive until a frame shows ``version``; every frame is checked for hidden cards."""
        assert self.socket is not None
        while True:
            text = await asyncio.wait_for(self.socket.recv(), timeout=15)
            assert isinstance(text, str)
            seen = version_of(text)
            if seen is None:
                continue
            await asyncio.to_thread(check_frame_in_thread, text, self.seat)
            self.frames.append(text)
            if seen == version:
                return text


def check_frame_in_thread(text: str, seat: int) -> None:
    from django.db import connections

    try:
        check_frame(text, seat=seat)
    finally:
        connections.close_all()


def in_thread(function, *args, **kwargs):  # type: ignore[no-untyped-def]
    def call():  # type: ignore[no-untyped-def]
        from django.db import connections

        try:
            return function(*args, **kwargs)
        finally:
            connections.close_all()

    return asyncio.to_thread(call)


def current(table_id: int) -> tuple[str, Game]:
    table = Table.objects.get(pk=table_id)
    game = Game.objects.filter(table=table).order_by("-number").first()
    assert game is not None
    return table_version(table=table), game


def seat_three(room_code: str) -> tuple[Table, list[Player]]:
    room = make_room(code=room_code)
    users = [make_player(name) for name in ("dong", "nan", "xi")]
    table = None
    for user in users:
        table, _ = services.table_play(user=user, room=room)
    assert table is not None
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    players = []
    for user in users:
        client = Client()
        client.force_login(user)
        seat = table.seats.get(user=user).position
        players.append(Player(user=user, seat=seat, cookie=client.cookies["sessionid"].value))
    return table, players


def test_players_on_two_workers_see_every_move_and_survive_a_killed_worker(
    workers: list[Worker],
) -> None:
    table, players = seat_three("workers")
    rng = random.Random(6)
    moves = asyncio.run(_play(table.pk, players, workers, rng))

    game = Game.objects.get(table=table)
    assert game.status == Game.Status.FINISHED and game.settled_at is not None
    assert game.events.count() == moves
    rows = LedgerEntry.objects.filter(game=game, reason=LedgerReason.GAME)
    assert sum(row.amount for row in rows) == 0
    coins = {p.user_id: p.coins for p in game.players.all()}
    for row in rows:
        assert coins[row.wallet.user_id] == row.amount
    # Everyone's last frame shows the settlement with each seat's coins.
    for player in players:
        last = player.frames[-1]
        assert 'class="settlement"' in last and game.seed in last
        for p in game.players.all():
            change = re.search(
                rf'<tr[^>]*data-seat="{p.seat}">.*?class="coin-change" data-coins="(-?\d+)"',
                last,
                re.S,
            )
            assert change is not None and int(change.group(1)) == p.coins


async def _play(
    table_id: int, players: list[Player], workers: list[Worker], rng: random.Random
) -> int:
    first, second = workers
    # Two players on the first worker, one on the second.
    for player, worker in zip(players, (first, first, second), strict=True):
        await player.connect(worker, table_id)
    version, game = await in_thread(current, table_id)
    for player in players:
        await player.frame_at(version)
    by_seat = {player.seat: player for player in players}
    moves = 0
    killed = False
    while True:
        version, game = await in_thread(current, table_id)
        if game.status != Game.Status.PLAYING:
            return moves
        if moves == 6 and not killed:
            # The first worker dies without a word; its players reconnect to the second.
            first.process.send_signal(signal.SIGKILL)
            first.process.wait(timeout=10)
            killed = True
            for player in players[:2]:
                await player.connect(second, table_id)
                await player.frame_at(version)
        seat, intent = await in_thread(choose_intent, game, rng)
        mover = by_seat[seat]
        assert mover.socket is not None
        message = {**intent, "version": version, "action_id": uuid.uuid4().hex, "HEADERS": {}}
        await mover.socket.send(json.dumps(message))
        moves += 1
        new_version = await _wait_for_change(table_id, version)
        for player in players:
            await player.frame_at(new_version)


async def _wait_for_change(table_id: int, version: str) -> str:
    for _ in range(1000):
        now, _game = await in_thread(current, table_id)
        if now != version:
            return now
        await asyncio.sleep(0.02)
    raise AssertionError(f"table {table_id} stayed at {version}")
