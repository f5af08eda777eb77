"""Two real daphne workers on PostgreSQL under load hold no more database connections than their
pools allow (docs/deploy.md, the connection budget): every page request runs in a thread of its
own under ASGI, and each thread must give its connection back rather than keep one."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from tests.games.helpers import make_player
from tests.test_workers import Player, Worker, seat_three, start_worker, stop_workers, worker_env

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

HTTP_REQUESTS = 1_000
SOCKET_CONNECTS = 200
#: Requests and sockets at once: enough for a worker's threads to overlap.
HTTP_CLIENTS = 12
SOCKETS_AT_ONCE = 10


def connection_budget(env: dict[str, str]) -> dict[str, int]:
    """What a worker started with ``env`` holds at most, by what holds it, as the site computes
    it from its settings (in a process of those settings, not the test's)."""
    script = (
        "import json, django; django.setup(); "
        "from gandengyan.database import connections_per_worker; "
        "print(json.dumps(connections_per_worker()))"
    )
    found = subprocess.run(
        [sys.executable, "-c", script],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return dict(json.loads(found.stdout.splitlines()[-1]))


@dataclass
class Held:
    """The connections the workers' processes hold, sampled while the load runs (they name
    themselves by ``application_name``, which libpq reads from PGAPPNAME)."""

    application: str
    budget: int
    most: int = 0
    over: threading.Event = field(default_factory=threading.Event)

    def count(self) -> int:
        database = connection.settings_dict
        with psycopg.connect(
            host=database["HOST"],
            port=database["PORT"],
            user=database["USER"],
            dbname=database["NAME"],
            autocommit=True,
        ) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = %s AND application_name = %s",
                [database["NAME"], self.application],
            ).fetchone()
        assert row is not None
        return int(row[0])

    def sample(self) -> int:
        now = self.count()
        self.most = max(self.most, now)
        if now > self.budget:
            # The load stops at once: past the budget it would only take the connections other
            # users of the server need.
            self.over.set()
        return now

    def watch(self, done: threading.Event) -> None:
        while not done.is_set():
            self.sample()
            done.wait(0.05)


@pytest.fixture
def loaded_workers() -> Iterator[tuple[list[Worker], Held]]:
    if not os.environ.get("REDIS_URL"):
        pytest.skip("needs REDIS_URL: workers share table updates through Redis")
    application = f"budget-{os.getpid()}{settings.TEST_DB_SUFFIX}"
    env = worker_env(
        "budget",
        PGAPPNAME=application,
        # As deployed: each worker runs a table runner, with the pools' sizes of the defaults.
        TABLE_RUNNER_IN_PROCESS="true",
        TABLE_SOCKETS_PER_USER="50",
        LOG_LEVEL="WARNING",
    )
    per_worker = connection_budget(env)
    started = [start_worker(env), start_worker(env)]
    try:
        yield started, Held(application=application, budget=2 * sum(per_worker.values()))
    finally:
        stop_workers(started)


def test_two_workers_under_load_hold_no_more_connections_than_their_pools(
    loaded_workers: tuple[list[Worker], Held],
) -> None:
    workers, held = loaded_workers
    table, players = seat_three("budget")
    signed_in = Client()
    signed_in.force_login(make_player("guest"))
    cookie = signed_in.cookies["sessionid"].value
    # Pages that read the database, for anonymous and signed-in visitors alike.
    paths = ["/", "/rooms/budget/", "/accounts/login/", f"/tables/{table.pk}/", "/leaderboard/"]

    done = threading.Event()
    watcher = threading.Thread(target=held.watch, args=(done,), daemon=True)
    watcher.start()
    started = time.monotonic()
    try:
        with ThreadPoolExecutor(HTTP_CLIENTS) as clients:
            pages = [
                clients.submit(_get_pages, workers[n % 2], paths, cookie if n % 2 else "", n, held)
                for n in range(HTTP_CLIENTS)
            ]
            sockets = asyncio.run(_connect_sockets(workers, table.pk, players, held))
            statuses = [status for page in pages for status in page.result()]
    finally:
        done.set()
        watcher.join(timeout=10)
    elapsed = time.monotonic() - started
    assert not held.over.is_set(), (
        f"the workers held {held.most} connections, more than their pools' {held.budget}"
    )
    assert len(statuses) >= HTTP_REQUESTS and set(statuses) <= {200, 302}, sorted(set(statuses))
    assert sockets >= SOCKET_CONNECTS
    # And after the load, what the pools keep is within the budget too.
    assert held.sample() <= held.budget
    assert held.most > 0
    print(
        f"{len(statuses)} pages, {sockets} sockets in {elapsed:.1f} s: at most {held.most} "
        f"connections of {held.budget}"
    )


def _get_pages(worker: Worker, paths: list[str], cookie: str, client: int, held: Held) -> list[int]:
    """This client's share of the requests, on one kept-alive HTTP connection to ``worker``."""
    statuses: list[int] = []
    conn = http.client.HTTPConnection("127.0.0.1", worker.port, timeout=30)
    headers = {"Cookie": f"sessionid={cookie}"} if cookie else {}
    try:
        for n in range(client, HTTP_REQUESTS, HTTP_CLIENTS):
            if held.over.is_set():
                break
            conn.request("GET", paths[n % len(paths)], headers=headers)
            response = conn.getresponse()
            response.read()
            statuses.append(response.status)
    finally:
        conn.close()
    return statuses


async def _connect_sockets(
    workers: list[Worker], table_id: int, players: list[Player], held: Held
) -> int:
    """Open the table's socket ``SOCKET_CONNECTS`` times, ``SOCKETS_AT_ONCE`` at a time, as its
    players on both workers: each gets the table's frame (read from the database), then
    closes."""

    async def once(n: int) -> None:
        seated = players[n % len(players)]
        player = Player(user=seated.user, seat=seated.seat, cookie=seated.cookie)
        await player.connect(workers[n % 2], table_id)
        assert player.socket is not None
        try:
            text = await asyncio.wait_for(player.socket.recv(), timeout=15)
            assert isinstance(text, str) and text
        finally:
            await player.socket.close()

    made = 0
    while made < SOCKET_CONNECTS and not held.over.is_set():
        await asyncio.gather(*(once(made + n) for n in range(SOCKETS_AT_ONCE)))
        made += SOCKETS_AT_ONCE
    return made
