"""Crash safety on PostgreSQL: the processes that write (two daphne workers and two table
runners, ``manage.py run_tables``) are killed with SIGKILL at random moments, one of them or all
at once 1–3 s after the last restart, and started again while games are played, until 100 games
have ended (``CRASH_GAMES``) and, when ``CRASH_KILL_MOMENTS`` asks for it, the server was killed
at that many moments (``benchmarks/crash_safety.sh``: 100).
Players on websockets reconnect to whichever worker answers and play on; bots and 托管 seats are
played by the runners.

Then the server is killed once more, for good, and the database must show:

- every game that ended is settled exactly once: the engine's replay of its stored record agrees
  with the stored result, and its ledger rows (one per wallet) sum to zero and match each seat's
  coins (``selectors.game_replay_steps``);
- every game still being played resumes from its event log: the events replay with the engine,
  the stored turn agrees with the replay, a deadline is set for the runner, and the game can be
  played on to its end and settled; no game is voided;
- no table is stuck: during the run every table moves on within ``STALL_SECONDS``, and after it
  a table plays exactly when it has a game being played;
- coins are conserved: each balance is the sum of its wallet's ledger rows and never negative,
  no row but game settlements was written during the run, and the sum of all balances (the
  house's included) stayed equal to the opening grants and staff adjustments at every kill.

The figures (games, kills, kills that hit an open transaction, moves, reconnections, CPU time)
are printed and recorded as properties of the test suite (``--junitxml``); docs/security.md
quotes them. ``CRASH_SEED`` changes the seed of the kills and of the players' choices.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from typing import Any

import pytest
import websockets
from django.conf import settings
from django.db import connection, connections
from django.db.models import Count, Max, Sum
from django.db.models.functions import Greatest
from django.utils import timezone

from accounts.models import LedgerEntry, LedgerReason, User, Wallet
from accounts.services import house_wallet
from games import services
from games.bots import SensiblePolicy, choose_for
from games.models import Game, GameEvent, Room, Seat, Table
from games.rules.gandengyan import GameState, Play
from games.selectors import game_replay_steps, game_state, table_current_game, table_version
from tests.games.helpers import make_player, make_room, play_out
from tests.games.live import random_intent, session_cookie
from tests.test_workers import Worker, in_thread, start_worker

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

# Play goes on until this many games have ended and the server was killed at this many moments
# at least: the suite's run keeps to its games; benchmarks/crash_safety.sh asks for 100 moments.
GAMES = int(os.environ.get("CRASH_GAMES", "100"))
KILL_MOMENTS = int(os.environ.get("CRASH_KILL_MOMENTS", "0"))
SEED = int(os.environ.get("CRASH_SEED", "20261130"))
# A table where nothing happened for this long is stuck: the test stops and says which. A player
# whose every worker is down cannot press 再来一局, and is stood up only after READY_SECONDS.
STALL_SECONDS = settings.READY_SECONDS + 15
# A backstop: seconds of play after which the test gives up (the suite's run takes about two
# minutes; a kill moment comes every two seconds or so).
TIME_LIMIT = max(300, 8 * KILL_MOMENTS)
# The pace of the server: the bots' pause before a move and the runner's idle interval.
BOT_PAUSE = "0.05"
RUNNER_INTERVAL = "0.05"
# A seat whose player is away (its socket on a killed worker) is played for after this long.
TURN_SECONDS = 5
# Reasons that create coins; a game settlement only moves them.
MINTING = {
    LedgerReason.SIGNUP_GRANT,
    LedgerReason.RELIEF,
    LedgerReason.COMPENSATION,
    LedgerReason.STAFF_ADJUSTMENT,
    LedgerReason.HOUSE_FUNDING,
}
LANGUAGE = f"{settings.LANGUAGE_COOKIE_NAME}={settings.LANGUAGE_CODE}"
LOGS = settings.BASE_DIR / ".test-artifacts" / "crash"


# The server: what is killed and started again ----------------------------------------------------


class Server:
    """Two daphne workers and two table runners on the test database, as docs/deploy.md runs
    them. Each process has its own ``application_name``, so that ``pg_stat_activity`` tells
    whether a kill hit one of its transactions."""

    WORKERS = ("worker0", "worker1")
    RUNNERS = ("runner0", "runner1")

    def __init__(self) -> None:
        self.workers: dict[str, Worker] = {}
        self.runners: dict[str, subprocess.Popen[bytes]] = {}
        self.names: dict[str, str] = {}
        self.starts: Counter[str] = Counter()
        self.kills: Counter[str] = Counter()
        self.moments = 0
        self.kills_in_transaction = 0
        self.totals: list[int] = []
        self.prefix = f"crash{os.getpid()}"
        LOGS.mkdir(parents=True, exist_ok=True)
        self.runner_log = LOGS / "run_tables.log"
        self.runner_log.write_bytes(b"")

    @property
    def parts(self) -> list[str]:
        return [*self.WORKERS, *self.RUNNERS]

    def env(self, part: str) -> dict[str, str]:
        self.starts[part] += 1
        name = f"{self.prefix}-{part}-{self.starts[part]}"
        self.names[part] = name
        database = connection.settings_dict
        return {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.server_settings",
            "TEST_CHANNEL_PREFIX": f"{self.prefix}-{settings.TEST_DB_SUFFIX}",
            "DATABASE_URL": (
                f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/"
                f"{database['NAME']}?application_name={name}"
            ),
            "DEBUG": "true",
            "SECRET_KEY": settings.SECRET_KEY,  # the test's sessions are signed with it
            "TABLE_RUNNER_IN_PROCESS": "false",
            "BOT_FILL_SECONDS": "0",
            "BOT_MOVE_DELAY_SECONDS": BOT_PAUSE,
            # A killed worker's sockets hold their players' places until these expire; with a
            # kill every few seconds they must expire well before READY_SECONDS.
            "TABLE_RESYNC_SECONDS": "2",
            "TABLE_RESYNC_GRACE_SECONDS": "0.5",
            "TABLE_SOCKET_SLOT_SECONDS": "10",
            # The scripted players answer every frame at once, faster than people: a message
            # the rate limit drops is never sent again (a page would show the warning), and a
            # player who misses 再来一局 so is stood up. The limit has tests of its own.
            "TABLE_MESSAGE_RATE": "100/second;6000/minute",
        }

    def start(self, part: str) -> None:
        if part in self.RUNNERS:
            with self.runner_log.open("ab") as log:
                self.runners[part] = subprocess.Popen(
                    [sys.executable, "manage.py", "run_tables", "--interval", RUNNER_INTERVAL],
                    cwd=settings.BASE_DIR,
                    env=self.env(part),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
        else:
            self.workers[part] = start_worker(self.env(part))

    def process(self, part: str) -> subprocess.Popen[bytes] | None:
        if part in self.RUNNERS:
            return self.runners.get(part)
        worker = self.workers.get(part)
        return None if worker is None else worker.process

    def kill(self, parts: list[str]) -> None:
        """SIGKILL ``parts`` at once, then check the coins as the database has them."""
        names = [self.names[part] for part in parts if self.process(part) is not None]
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE application_name = ANY(%s) AND xact_start IS NOT NULL",
                [names],
            )
            self.kills_in_transaction += min(cursor.fetchone()[0], 1)
        self.moments += 1
        processes = []
        for part in parts:
            process = self.process(part)
            if process is None:
                continue
            self.workers.pop(part, None)
            self.runners.pop(part, None)
            process.send_signal(signal.SIGKILL)
            processes.append(process)
            self.kills[part] += 1
        for process in processes:
            process.wait(timeout=10)
        self.totals.append(total_coins())

    def alive(self) -> dict[str, bool]:
        return {
            part: process is not None and process.poll() is None
            for part in self.parts
            for process in [self.process(part)]
        }

    def live_workers(self) -> list[Worker]:
        return [w for w in list(self.workers.values()) if w.process.poll() is None]


def total_coins() -> int:
    return Wallet.objects.aggregate(total=Sum("balance"))["total"] or 0


async def chaos(server: Server, rng: random.Random, stop: asyncio.Event) -> None:
    """Every 1–3 s kill a worker, a runner, or everything at once, and start it again."""
    choices = [[part] for part in server.parts] + [server.parts]
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=rng.uniform(1.0, 3.0))
        if stop.is_set():
            return
        victims = rng.choice(choices)
        await in_thread(server.kill, victims)
        await asyncio.sleep(rng.uniform(0.0, 0.5))
        await asyncio.gather(*(asyncio.to_thread(server.start, part) for part in victims))


# Players -----------------------------------------------------------------------------------------


class DatabaseThread:
    """One thread, with one database connection kept open, for the players' reads: a new
    connection for every read would cost more than the read."""

    def __init__(self) -> None:
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="players-db")

    async def run(self, function: Callable[..., Any], **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, partial(function, **kwargs))

    def close(self) -> None:
        self.executor.submit(connections.close_all).result()
        self.executor.shutdown()


def choose_move(state: GameState, rng: random.Random) -> tuple[int, dict[str, Any]]:
    """The seat to move and its intent: mostly the bot's choice, so that games last about as
    long as people's; now and then a random legal one (``random_intent``)."""
    if rng.random() < 0.25:
        return random_intent(state, rng)
    move = choose_for(state, SensiblePolicy())
    assert state.to_move is not None
    if not isinstance(move, Play):
        return state.to_move, {"action": "pass"}
    assert move.combo is not None
    cards = [str(card) for card in move.cards]
    return state.to_move, {"action": "play", "cards": cards, "as": move.combo.ranks_text()}


def next_intent(
    *, table_id: int, user_id: int, auto: bool, rng: random.Random
) -> dict[str, Any] | None:
    """What the player sends now, as the page would: a move on their turn (none when ``auto``:
    托管 plays for them), 取消托管 when timeouts put the seat in 托管, 再来一局 after a game."""
    table = Table.objects.get(pk=table_id)
    seat = Seat.objects.get(table=table, user_id=user_id)
    game = table_current_game(table=table)
    if game is not None and game.status == Game.Status.PLAYING:
        if seat.auto_play != auto:
            return {"action": "auto" if auto else "resume"}
        if auto or game.to_move != seat.position:
            return None
        # The game's events are read once, after its row: a move that commits in between
        # (the last one, even) shows in the position, and the next look sees the row agree.
        state = game_state(game=game)
        if state.is_terminal or state.to_move != seat.position:
            return None
        version = table_version(table=table, game=game)
        _, intent = choose_move(state, rng)
        return {**intent, "version": version}
    if table.status == Table.Status.WAITING and not seat.ready:
        return {"action": "again", "version": table_version(table=table, game=game)}
    return None


@dataclass
class Player:
    user_id: int
    table_id: int
    cookie: str
    auto: bool
    rng: random.Random
    socket: websockets.ClientConnection | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    connections: int = 0
    sent: int = 0
    errors: list[str] = field(default_factory=list)

    async def run(self, server: Server, database: DatabaseThread, stop: asyncio.Event) -> None:
        last: dict[str, Any] | None = None
        while not stop.is_set():
            if self.socket is None:
                if not await self.connect(server):
                    await asyncio.sleep(0.2)
                    continue
                last = None  # a new connection may send again what the old one lost
            # A player in 托管 only asks for the next game: a look every second will do.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), timeout=1.0 if self.auto else 0.5)
            self.changed.clear()
            socket = self.socket
            if socket is None or stop.is_set():
                continue
            try:
                intent = await database.run(
                    next_intent,
                    table_id=self.table_id,
                    user_id=self.user_id,
                    auto=self.auto,
                    rng=self.rng,
                )
            except Exception:
                self.errors.append(traceback.format_exc())
                continue
            if intent is None or intent == last:
                continue
            # The page gives the same action on the same view the same id, so that a resend
            # (after a reconnection) is recognised.
            action_id = hashlib.sha256(json.dumps(intent).encode()).hexdigest()[:32]
            try:
                await socket.send(json.dumps({**intent, "action_id": action_id, "HEADERS": {}}))
            except websockets.ConnectionClosed:
                continue
            last = intent
            self.sent += 1
        if self.socket is not None:
            await self.socket.close()

    async def connect(self, server: Server) -> bool:
        live = server.live_workers()
        if not live:
            return False
        worker = self.rng.choice(live)
        try:
            socket = await websockets.connect(
                f"{worker.url}/ws/tables/{self.table_id}/",
                origin=websockets.Origin("http://127.0.0.1"),
                # The site's language: the socket forwards the frames rendered with the move.
                additional_headers={"Cookie": f"sessionid={self.cookie}; {LANGUAGE}"},
                open_timeout=5,
            )
        except (OSError, TimeoutError, websockets.WebSocketException):
            return False
        self.socket = socket
        self.connections += 1
        asyncio.get_running_loop().create_task(self.read(socket))
        return True

    async def read(self, socket: websockets.ClientConnection) -> None:
        """Every frame (or the end of the connection) wakes the player up, unless in 托管."""
        try:
            async for _frame in socket:
                if not self.auto:
                    self.changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            if self.socket is socket:
                self.socket = None
            self.changed.set()


# The tables --------------------------------------------------------------------------------------


def open_tables(rng: random.Random) -> list[Player]:
    """Fourteen tables, played in every way a table is played:

    - two private tables of three players, who make every move over their sockets;
    - a public table with one player and two bots, and one with two players and a bot: the
      runner seats the bots (``BOT_FILL_SECONDS`` is 0) and makes their moves;
    - ten public tables of the two-seat variant (``{"players": 2}``, shorter games) with a
      player in 托管 and a bot: the runner makes every move, the player asks for the next game.
    """
    house_wallet()  # the bots' coins exist before the count starts
    players: list[Player] = []

    def seat(user: User, table: Table, *, auto: bool = False) -> None:
        players.append(
            Player(
                user_id=user.pk,
                table_id=table.pk,
                cookie=session_cookie(user),
                auto=auto,
                rng=random.Random(rng.random()),
            )
        )

    def room(code: str, rules: dict[str, Any] | None = None) -> Room:
        made = make_room(code=code, rules=rules)
        Room.objects.filter(pk=made.pk).update(turn_seconds=TURN_SECONDS)
        made.refresh_from_db()
        return made

    users = iter(make_player(f"crash{number}") for number in range(1, 100))
    private = room("crash-private")
    for _ in range(2):
        trio = [next(users) for _ in range(3)]
        table = services.table_create_private(user=trio[0], room=private)
        assert table.invite_code is not None
        for user in trio[1:]:
            services.table_join_by_invite(user=user, code=table.invite_code)
        for user in trio:
            seat(user, table)
    for code, count in (("crash-one", 1), ("crash-two", 2)):
        public = room(code)
        for _ in range(count):
            user = next(users)
            table, _position = services.table_play(user=user, room=public)
            seat(user, table)
    duo = room("crash-duo", {"players": 2})
    for _ in range(10):
        user = next(users)
        table, _position = services.table_play(user=user, room=duo)
        services.table_set_auto_play(user=user, table=table, on=True)
        services.table_call_bots(user=user, table=table)
        seat(user, table, auto=True)
    return players


# The run -----------------------------------------------------------------------------------------


def finished_games() -> int:
    return Game.objects.filter(status=Game.Status.FINISHED).count()


def stalled_tables(*, seconds: float) -> list[str]:
    """Tables where no game started or moved for ``seconds``: stuck, since every turn has a
    deadline of at most ``TURN_SECONDS`` and every player asks for the next game at once. A
    closed table is not stuck: its players were away past ``READY_SECONDS`` (a long run)."""
    since = timezone.now() - timedelta(seconds=seconds)
    return [
        f"table {table.pk} ({table.status}, last change {table.last:%T}): {stuck_report(table)}"
        for table in Table.objects.exclude(status=Table.Status.CLOSED)
        .annotate(last=Greatest(Max("games__started_at"), Max("games__events__created_at")))
        .filter(last__lt=since)
    ]


def long_transactions() -> list[tuple[Any, ...]]:
    """The database's transactions open for more than 5 s: who, doing what, and waiting for
    what."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, application_name, state, wait_event_type, wait_event,"
            " now() - xact_start, pg_blocking_pids(pid), left(query, 300)"
            " FROM pg_stat_activity"
            " WHERE datname = current_database() AND xact_start < now() - interval '5 seconds'"
        )
        return cursor.fetchall()


def stuck_report(table: Table) -> str:
    game = table_current_game(table=table)
    if game is None:
        return "no game"
    seats = list(table.seats.values_list("position", "user_id", "is_bot", "ready", "auto_play"))
    return (
        f"game {game.pk} {game.status}, {game.events.count()} events, to move {game.to_move}, "
        f"deadline {game.turn_deadline}; seats {seats}"
    )


async def play(server: Server, players: list[Player], rng: random.Random) -> float:
    """Play under kills until ``GAMES`` games have ended and ``KILL_MOMENTS`` kills came;
    returns the seconds it took. Every part of the server is killed at the end, for good.
    Fails when a table is stuck."""
    await asyncio.gather(*(asyncio.to_thread(server.start, part) for part in server.parts))
    started = time.monotonic()
    stop = asyncio.Event()
    database = DatabaseThread()
    killer = asyncio.create_task(chaos(server, rng, stop))
    tasks = [killer] + [
        asyncio.create_task(player.run(server, database, stop)) for player in players
    ]
    try:
        while (finished := await in_thread(finished_games)) < GAMES or (
            server.moments < KILL_MOMENTS
        ):
            assert time.monotonic() - started < TIME_LIMIT, f"{finished} games in {TIME_LIMIT} s"
            await asyncio.sleep(1)
            if killer.done():
                killer.result()  # a part that did not start again
            stalled = await in_thread(stalled_tables, seconds=STALL_SECONDS)
            if stalled:
                errors = [error for player in players for error in player.errors]
                raise AssertionError(
                    f"stuck: {stalled}\nlong transactions: {await in_thread(long_transactions)}"
                    f"\nalive: {server.alive()}\nplayers' errors: {errors[:3]}"
                    f"\nrunners' log: {server.runner_log.read_text(errors='replace')[-3000:]}"
                )
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        database.close()
        await in_thread(server.kill, server.parts)
    return time.monotonic() - started


def test_games_survive_the_server_being_killed_at_random_moments(
    record_testsuite_property: Callable[[str, object], None],
) -> None:
    if not os.environ.get("REDIS_URL"):
        pytest.skip("needs REDIS_URL: workers share table updates through Redis")
    rng = random.Random(SEED)
    players = open_tables(rng)
    opening_total = total_coins()
    last_setup_row = LedgerEntry.objects.order_by("-pk").values_list("pk", flat=True).first()
    server = Server()
    cpu = os.times()
    try:
        seconds = asyncio.run(play(server, players, rng))
    finally:
        for part in server.parts:
            process = server.process(part)
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(timeout=10)

    cpu_seconds = sum(os.times()[:4]) - sum(cpu[:4])
    finished = finished_games()
    moves = GameEvent.objects.count()
    errors = [error for player in players for error in player.errors]
    assert not errors, errors[:3]
    # The runners logged no failure (a failing turn is logged and skipped, not raised).
    log = server.runner_log.read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]
    # The coins never changed while games were settled and processes died.
    assert set(server.totals) == {opening_total}, server.totals

    check_tables()
    resumed = check_games()
    check_coins(opening_total=opening_total, last_setup_row=last_setup_row)

    kills = sum(server.kills.values())
    figures = {
        "seed": SEED,
        "seconds": round(seconds, 1),
        "games_ended": finished,
        "games_resumed_after_the_last_kill": resumed,
        "moves_stored": moves,
        "kills": kills,
        "kill_moments": server.moments,  # the last one for good, the games resumed here
        "kills_by_process": dict(server.kills),
        "kills_during_a_transaction": server.kills_in_transaction,
        "player_connections": sum(player.connections for player in players),
        "intents_sent": sum(player.sent for player in players),
        "cpu_seconds_of_test_and_server": round(cpu_seconds),
    }
    for name, value in figures.items():
        record_testsuite_property(f"crash_safety_{name}", value)
    print(f"\ncrash safety: {json.dumps(figures)}")
    assert kills >= 10
    assert server.moments > KILL_MOMENTS  # the last, for good, comes after the play


def check_tables() -> None:
    """A table plays exactly when one game is being played there; a waiting table whose seats
    are all taken has a player who has not asked for the next game."""
    for table in Table.objects.prefetch_related("seats"):
        playing = table.games.filter(status=Game.Status.PLAYING).count()
        assert playing <= 1, table
        assert (table.status == Table.Status.PLAYING) == (playing == 1), table
        seats = list(table.seats.all())
        if table.status == Table.Status.WAITING and all(s.user_id or s.is_bot for s in seats):
            assert not all(s.ready for s in seats if s.user_id), f"{table} is stuck"


def check_games() -> int:
    """Every ended game settled once; every other one resumes from its event log and is played
    to its end here. Returns how many resumed."""
    resumed = 0
    for game in Game.objects.order_by("pk"):
        numbers = list(game.events.order_by("number").values_list("number", flat=True))
        assert numbers == list(range(1, len(numbers) + 1)), game
        state = game_state(game=game)  # raises if the log does not replay
        if game.status == Game.Status.PLAYING:
            assert not state.is_terminal and game.to_move == state.to_move, game
            assert game.turn_deadline is not None and game.settled_at is None, game
            assert not game.ledger_entries.exists(), game
            play_out(game, seed=game.pk)
            game.refresh_from_db()
            resumed += 1
        assert game.status == Game.Status.FINISHED and state.winner in (None, game.winner), game
        assert game.settled_at is not None, game
        replay = game_replay_steps(game=game)
        assert replay.ok, [(check.code, check.detail) for check in replay.checks if not check.ok]
    return resumed


def check_coins(*, opening_total: int, last_setup_row: int | None) -> None:
    twice = (
        LedgerEntry.objects.filter(reason=LedgerReason.GAME)
        .values("wallet", "game")
        .annotate(rows=Count("pk"))
        .filter(rows__gt=1)
    )
    assert not twice.exists(), list(twice)
    unsettled = LedgerEntry.objects.filter(reason=LedgerReason.GAME).exclude(
        game__status=Game.Status.FINISHED, game__settled_at__isnull=False
    )
    assert not unsettled.exists()
    during = LedgerEntry.objects.filter(pk__gt=last_setup_row or 0)
    assert set(during.values_list("reason", flat=True)) <= {LedgerReason.GAME}
    game_sum = LedgerEntry.objects.filter(reason=LedgerReason.GAME).aggregate(s=Sum("amount"))["s"]
    assert game_sum == 0
    for wallet in Wallet.objects.all():
        entries = LedgerEntry.objects.filter(wallet=wallet)
        assert wallet.balance >= 0, wallet
        assert wallet.balance == (entries.aggregate(s=Sum("amount"))["s"] or 0), wallet
        last = entries.order_by("-pk").first()
        assert last is None or last.balance_after == wallet.balance, wallet
    minted = LedgerEntry.objects.filter(reason__in=MINTING).aggregate(s=Sum("amount"))["s"]
    assert total_coins() == opening_total == minted
