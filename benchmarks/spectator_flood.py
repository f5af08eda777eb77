"""``python -m benchmarks.spectator_flood``: does a flood of spectators at one table slow the
others down? (see docs/performance.md, "Spectators at another table").

One daphne worker on PostgreSQL and the Redis layer (``benchmarks.load``'s setup), a few
"measured" tables of three scripted players at human pace, and one "busy" table played on beside
them (human pace unless ``--busy-pace flat``). Three phases, each on a fresh worker and a flushed
Redis, each measuring the moves of the measured tables (``benchmarks.load.clients``' latency: from
the send to the last of the table's sockets getting the next version):

1. baseline: no spectators;
2. one account: one signed-in account opens ``--sockets`` spectator sockets to the busy table
   (the site keeps ``TABLE_SOCKETS_PER_USER`` of them and closes the rest with 4429);
3. many accounts: ``--sockets`` accounts open one spectator socket each to the busy table (the
   site keeps ``TABLE_SPECTATORS_MAX`` of them, the rest closed with 4429).

The spectators connect before the players start, stay for the whole phase and count the frames
they receive. Prints one row per phase: the measured tables' median, p90 and p99 and their ratios
to the baseline's, the busy table's, the spectators accepted and refused, and their frames.

Examples::

    .venv/bin/python -m benchmarks.spectator_flood
    .venv/bin/python -m benchmarks.spectator_flood --sockets 300 --duration 40 --busy-pace flat
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import websockets

from .load import database
from .load.__main__ import DEFAULT_DATABASE_URL, Runner
from .load.clients import HEAD, VERSION, StepConfig, StepOutcome, run_step
from .load.server import cpu_seconds, start_workers, stop_workers

#: The site's close code for one socket too many (``games.consumers.CLOSE_TOO_MANY``).
CLOSE_TOO_MANY = 4429
SPECTATORS_AT_ONCE = 32


@dataclass
class Spectators:
    """The spectator sockets of a phase and what they received."""

    accepted: int = 0
    refused: int = 0  # closed with 4429
    other: Counter[str] = field(default_factory=Counter)  # any other outcome
    frames: int = 0  # table frames after the first, over every accepted socket
    sockets: list[websockets.ClientConnection] = field(default_factory=list)
    listening: list[asyncio.Task[None]] = field(default_factory=list)


@dataclass
class Phase:
    name: str
    measured: StepOutcome
    busy: StepOutcome
    spectators: Spectators
    worker_cpu: float  # % of one core over the phase


async def spectator_open(
    url: str, cookie: str, watch: Spectators, limit: asyncio.Semaphore
) -> None:
    """Open one spectator socket: a table frame first means accepted (it then listens); a close
    with 4429 after the page's message means refused."""
    async with limit:
        try:
            socket = await websockets.connect(
                url,
                origin=websockets.Origin("http://127.0.0.1"),
                additional_headers={"Cookie": cookie},
                compression=None,
                proxy=None,
                ping_interval=None,
                open_timeout=60,
                close_timeout=5,
            )
        except Exception as exc:
            watch.other[f"connect: {type(exc).__name__}"] += 1
            return
        try:
            while True:
                text = await asyncio.wait_for(socket.recv(), timeout=60)
                if isinstance(text, str) and VERSION.search(text, 0, HEAD):
                    break
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else 1006
            if code == CLOSE_TOO_MANY:
                watch.refused += 1
            else:
                watch.other[f"closed: {code}"] += 1
            return
        except Exception as exc:
            watch.other[f"first frame: {type(exc).__name__}"] += 1
            await socket.close()
            return
    watch.accepted += 1
    watch.sockets.append(socket)
    watch.listening.append(asyncio.create_task(spectator_listen(socket, watch)))


async def spectator_listen(socket: websockets.ClientConnection, watch: Spectators) -> None:
    try:
        async for text in socket:
            if isinstance(text, str) and VERSION.search(text, 0, HEAD):
                watch.frames += 1
    except websockets.ConnectionClosed:
        pass


async def phase_run(
    measured: StepConfig,
    busy: StepConfig,
    tables: list[database.SeatedTable],
    busy_table: database.SeatedTable,
    cookies: list[str],
) -> tuple[StepOutcome, StepOutcome, Spectators]:
    """Connect the spectators (one per cookie) to the busy table, then play the measured and the
    busy tables side by side for the same window."""
    watch = Spectators()
    url = f"{measured.urls[0]}/ws/tables/{busy_table.table_id}/"
    limit = asyncio.Semaphore(SPECTATORS_AT_ONCE)
    await asyncio.gather(
        *(
            spectator_open(url, f"sessionid={cookie}; django_language=zh-hans", watch, limit)
            for cookie in cookies
        )
    )
    try:
        measured_outcome, busy_outcome = await asyncio.gather(
            run_step(measured, tables), run_step(busy, [busy_table])
        )
    finally:
        await asyncio.gather(*(socket.close() for socket in watch.sockets), return_exceptions=True)
        await asyncio.gather(*watch.listening, return_exceptions=True)
    return measured_outcome, busy_outcome, watch


def spectator_cookies(prefix: str, accounts: int) -> list[str]:
    """Session cookies of ``accounts`` fresh signed-in accounts that sit at no table."""
    from django.test import Client

    from accounts.models import User
    from accounts.services import wallet_create

    cookies = []
    for number in range(accounts):
        user = User.objects.create_user(username=f"{prefix}-{number}", password=None)
        wallet_create(user=user)
        client = Client()
        client.force_login(user)
        cookies.append(client.cookies["sessionid"].value)
    database.close_connections()
    return cookies


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def figures(outcome: StepOutcome) -> tuple[float, float, float, int]:
    """Median, p90 and p99 in ms, and the count of the measured moves."""
    latencies = [1000 * seconds for seconds in outcome.recorder.latencies]
    if not latencies:
        return float("nan"), float("nan"), float("nan"), 0
    return (
        statistics.median(latencies),
        percentile(latencies, 0.90),
        percentile(latencies, 0.99),
        len(latencies),
    )


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.spectator_flood",
        description="Another table's move latency, without spectators, with one account's flood "
        "of spectator sockets at a busy table, and with many accounts' (one worker on "
        "PostgreSQL + Redis).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--tables", type=int, default=8, help="measured tables (human pace)")
    parser.add_argument(
        "--sockets", type=int, default=300, help="spectator sockets opened per flood"
    )
    parser.add_argument(
        "--busy-pace", choices=("human", "flat"), default="human", help="the busy table's pace"
    )
    parser.add_argument("--duration", type=float, default=30.0, help="measured seconds a phase")
    parser.add_argument("--warmup", type=float, default=5.0, help="unmeasured seconds a phase")
    parser.add_argument("--seed", type=int, default=1, help="seeds the players' choices")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL.replace("_load", "_flood"))
    # A Redis database of its own (benchmarks.load uses 3): it is flushed per phase.
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/4")
    parser.add_argument("--out", type=Path, default=Path("/tmp/gandengyan-flood"), help="logs")
    args = parser.parse_args(argv)
    # What ``benchmarks.load``'s Runner reads besides these.
    args.layer = "redis"
    args.loop_monitor = False
    args.deal_stage_seconds = 0.2
    return args


def phase(
    runner: Runner,
    args: argparse.Namespace,
    name: str,
    tables: list[database.SeatedTable],
    busy_table: database.SeatedTable,
    cookies: list[str],
) -> Phase:
    runner.flush_redis()  # the sockets' places, the message windows, the layer
    workers = start_workers(1, runner.env, runner.log_dir)
    urls = [workers[0].url]
    measured = StepConfig(
        kind="game",
        pace="human",
        tables=len(tables),
        duration=args.duration,
        warmup=args.warmup,
        urls=urls,
        seed=args.seed,
    )
    busy = StepConfig(
        kind="game",
        pace=args.busy_pace,
        tables=1,
        duration=args.duration,
        warmup=args.warmup,
        urls=urls,
        seed=args.seed + 1,
    )
    begun, cpu_before = time.monotonic(), cpu_seconds(workers[0].pid) or 0.0
    try:
        outcome = asyncio.run(phase_run(measured, busy, tables, busy_table, cookies))
        cpu_after = cpu_seconds(workers[0].pid) or cpu_before
    finally:
        stop_workers(workers)
    cpu = 100 * (cpu_after - cpu_before) / max(time.monotonic() - begun, 1e-6)
    return Phase(name, *outcome, worker_cpu=cpu)


def report(phases: list[Phase]) -> list[str]:
    base = figures(phases[0].measured)
    lines = [
        "phase          | measured: p50  p90  p99 (ms)  moves | ×p50  ×p90  ×p99 | busy: p50  "
        "p99  moves | spectators: accepted refused(4429) other | frames | worker CPU %",
    ]
    for item in phases:
        p50, p90, p99, count = figures(item.measured)
        b50, _b90, b99, busy_count = figures(item.busy)
        watch = item.spectators
        other = sum(watch.other.values())
        lines.append(
            f"{item.name:<14} | {p50:14.1f} {p90:4.0f} {p99:4.0f}  {count:12d} | "
            f"{p50 / base[0]:4.2f}  {p90 / base[1]:4.2f}  {p99 / base[2]:4.2f} | "
            f"{b50:9.1f} {b99:4.0f} {busy_count:6d} | {watch.accepted:21d} {watch.refused:14d} "
            f"{other:5d} | {watch.frames:6d} | {item.worker_cpu:5.1f}"
        )
    for item in phases:
        for outcome, which in ((item.measured, "measured"), (item.busy, "busy")):
            recorder = outcome.recorder
            troubles = {
                "lost": recorder.lost,
                "gaps": recorder.gaps,
                "out of order": recorder.out_of_order,
                "not connected": outcome.sockets - outcome.connected,
            }
            said = [f"{count} {what}" for what, count in troubles.items() if count]
            said += [f"{count}× refused: {why}" for why, count in recorder.refused.items()]
            said += [f"{count}× {why}" for why, count in recorder.errors.items()]
            if said:
                lines.append(f"  {item.name}, {which} tables: " + "; ".join(said))
        if item.spectators.other:
            lines.append(f"  {item.name}, spectators: {dict(item.spectators.other)}")
    return lines


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    (args.out / "logs").mkdir(parents=True, exist_ok=True)
    print(
        f"3 phases of {args.warmup + args.duration:.0f} s: {args.tables} measured tables and a "
        f"{args.busy_pace}-paced busy one, {args.sockets} spectator sockets per flood; "
        f"logs in {args.out}",
        flush=True,
    )
    started = time.monotonic()
    secret_key = secrets.token_urlsafe(40)
    database.configure(database_url=args.database_url, secret_key=secret_key)
    runner = Runner(args, secret_key)
    database.recreate(args.database_url)
    database.migrate()
    seated = database.seat_tables(args.tables + 1)
    tables, busy_table = seated[:-1], seated[-1]
    one_account = spectator_cookies("flood-one", 1) * args.sockets
    many_accounts = spectator_cookies("flood-many", args.sockets)
    print(f"database ready in {time.monotonic() - started:.0f} s", flush=True)

    phases = []
    for name, cookies in (
        ("baseline", []),
        ("one account", one_account),
        ("many accounts", many_accounts),
    ):
        phases.append(phase(runner, args, name, tables, busy_table, cookies))
        print(f"{name}: done", flush=True)
    print()
    for line in report(phases):
        print(line)
    print(f"\ntotal {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
