"""``python -m benchmarks.load``: the load test of the live tables (see docs/performance.md).

For each worker count (1, then 2 daphne processes on PostgreSQL with the Redis channel layer) it
runs steps of N tables of three scripted players each, and prints one row per step:

- the bare transport (``benchmarks.load.baseline``) and each game, flat out (act on receipt) at
  a few table counts, to find the saturation throughput and the game's cost as a ratio (at each
  count the bare transport, then each game, so that compared steps run minutes apart at most);
- each game at human pace (each player thinks 2–4 s) at a few table counts, to find how many
  tables a worker carries with p99 under 150 ms.

The games are 干瞪眼 and 斗地主 (``--games``), each in steps of its own, with the same targets.
At 斗地主's tables the table's clock shows the deal in stages: a table runner (``manage.py
run_tables``) runs beside the workers during those steps, the stages are ``--deal-stage-seconds``
apart, and the players' clocks to bid and to choose 加倍 are as long as their turn of the play
(300 s), and their deadlines are set that far ahead before each step, so that the runner never
acts for a player during a step.

Each step starts fresh workers, connects every socket, plays ``--warmup`` seconds unmeasured,
then measures for ``--duration`` seconds, lets the last actions land and closes. The database is
created anew once per run, with every table seated and playing.

Examples::

    .venv/bin/python -m benchmarks.load --quick
    .venv/bin/python -m benchmarks.load --workers 1 --pace flat --kind game --tables 20 \
        --duration 10
    .venv/bin/python -m benchmarks.load --quick --games doudizhu --kind game
    .venv/bin/python -m benchmarks.load --plot docs/load-test.png --profile
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from . import database, loop_monitor
from .clients import StepConfig, run_step
from .report import (
    LEGEND,
    StepResult,
    details,
    format_row,
    header,
    load,
    plot,
    save,
    step_result,
    summary,
)
from .server import (
    Sampler,
    Usage,
    pids_named,
    start_runner,
    start_workers,
    stop_workers,
    with_children,
)

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/gandengyan_load"
# A Redis database of its own, so that the test suite's (0) is left alone; it is flushed per step.
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/3"
#: A player's time to bid and to choose 加倍 during a load run: as long as a turn of the play in
#: the load test's rooms, far beyond a step, so that the clock never acts for a player.
PLAYER_CLOCK_SECONDS = 300
#: How long players may take to press 再来一局 during a load run: a table that one step leaves
#: between games keeps its players for the next, however long the steps between.
READY_SECONDS = 86_400


@dataclass(frozen=True)
class Step:
    workers: int
    kind: str
    pace: str
    tables: int
    game: str = ""  # the game's key for a step of the game; "" for the bare transport

    @property
    def name(self) -> str:
        what = self.game if self.kind == "game" else self.kind
        return f"{self.workers} worker(s), {what}, {self.pace}, {self.tables} tables"


def numbers(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def game_keys(text: str) -> list[str]:
    keys = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [key for key in keys if key not in database.GAMES]
    if unknown or not keys:
        raise argparse.ArgumentTypeError(
            f"games are some of {', '.join(database.GAMES)}, not {text!r}"
        )
    return list(dict.fromkeys(keys))


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.load",
        description="Load test: daphne workers on PostgreSQL + Redis, driven by scripted "
        "websocket players; prints actions/s, latency percentiles, losses, CPU and memory.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument(
        "--workers", type=numbers, default=[1, 2], help="worker counts to run, e.g. 1,2"
    )
    parser.add_argument(
        "--pace", choices=("flat", "human", "both"), default="both", help="flat out, human or both"
    )
    parser.add_argument(
        "--kind",
        choices=("game", "bare", "both"),
        default="both",
        help="the game, the bare "
        "transport, or both (the bare transport runs at human pace only at the largest count)",
    )
    parser.add_argument(
        "--games",
        type=game_keys,
        default=["gandengyan", "doudizhu"],
        help="the games whose tables the game's steps play, each in steps of its own "
        "(comma-separated): gandengyan, doudizhu, and gandengyan-bots or doudizhu-bots, whose "
        "tables seat one scripted player and two hard bots that search for every move, moved by "
        "a table runner beside the workers",
    )
    parser.add_argument(
        "--runners",
        type=int,
        default=1,
        help="table runners (manage.py run_tables) beside the workers when a step needs one",
    )
    parser.add_argument(
        "--bot-budget-ms",
        type=int,
        default=120,
        help="the hard bots' time per move at the -bots tables (the room's bot_budget_ms)",
    )
    parser.add_argument(
        "--deal-stage-seconds",
        type=float,
        default=0.2,
        help="斗地主: seconds between the stages of the deal that the table's clock shows (the "
        "site's default is 2; the runner looks every 0.25 s)",
    )
    parser.add_argument(
        "--tables",
        type=numbers,
        default=None,
        help="table counts for every pace (overrides --flat-tables and --human-tables)",
    )
    parser.add_argument("--flat-tables", type=numbers, default=[10, 50, 100])
    parser.add_argument("--human-tables", type=numbers, default=[10, 25, 50, 100, 150])
    parser.add_argument(
        "--duration", type=float, default=12.0, help="measured seconds of a flat-out step"
    )
    parser.add_argument(
        "--human-duration", type=float, default=20.0, help="measured seconds of a human step"
    )
    parser.add_argument("--warmup", type=float, default=3.0, help="unmeasured seconds, flat out")
    parser.add_argument(
        "--human-warmup", type=float, default=5.0, help="unmeasured seconds, human pace"
    )
    parser.add_argument("--seed", type=int, default=1, help="seeds the players' choices")
    parser.add_argument(
        "--bare-bytes",
        type=int,
        default=5500,
        help="size of the bare transport's frame (a table frame is 4-7 KB)",
    )
    parser.add_argument(
        "--layer",
        choices=("redis", "memory"),
        default="redis",
        help="channel layer (the in-memory one only with one worker)",
    )
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument(
        "--out", type=Path, default=Path("/tmp/gandengyan-load"), help="results.json, logs"
    )
    parser.add_argument("--plot", type=Path, default=None, help="write the plot to this PNG")
    parser.add_argument(
        "--plot-only",
        type=Path,
        default=None,
        metavar="RESULTS",
        help="only redraw the plot (and reprint the figures) from a results.json",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="after the plan, profile one worker with py-spy "
        "during an extra flat-out step (--profile-tables, --profile-kind) and summarise where "
        "time goes",
    )
    parser.add_argument(
        "--profile-kind",
        choices=("game", "bare"),
        default="game",
        help="what the profiled step runs: the game (the first of --games), or the bare "
        "transport to compare with",
    )
    parser.add_argument(
        "--profile-tables", type=int, default=50, help="tables of the profiled step"
    )
    parser.add_argument(
        "--profile-workers",
        type=int,
        default=1,
        help="workers of the profiled step (the first one is profiled): 2 shows what a worker "
        "does for the tables it shares with another",
    )
    parser.add_argument(
        "--profile-gil",
        action="store_true",
        help="sample only the thread that holds the interpreter's lock: where the CPU goes, "
        "rather than where the threads are",
    )
    parser.add_argument(
        "--no-loop-monitor",
        dest="loop_monitor",
        action="store_false",
        help="run the workers without the heartbeat that measures how long their event loop "
        "was blocked (the loop columns), to see what it costs",
    )
    parser.add_argument(
        "--steal-limit",
        type=float,
        default=10.0,
        help="a step during which the hypervisor took more than this much CPU from the machine "
        "(in %% of one core, stolen%%) is run again, and the run with the least stolen kept",
    )
    parser.add_argument(
        "--steal-retries", type=int, default=2, help="how many times a step is run again at most"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: one worker, 3 tables, 5 s steps (options given explicitly still apply)",
    )
    if "--quick" in argv:
        parser.set_defaults(
            workers=[1],
            flat_tables=[3],
            human_tables=[3],
            duration=5.0,
            human_duration=5.0,
            warmup=1.0,
            human_warmup=3.0,
            profile_tables=3,
        )
    args = parser.parse_args(argv)
    if args.tables:
        args.flat_tables = args.human_tables = args.tables
    if args.layer == "memory" and any(count > 1 for count in args.workers):
        parser.error("the in-memory channel layer serves one worker only")
    return args


def plan(args: argparse.Namespace) -> list[Step]:
    kinds = ("bare", "game") if args.kind == "both" else (args.kind,)
    steps = []
    for workers in args.workers:
        if args.pace in ("flat", "both"):
            # The steps compared as a ratio run one after another, the bare transport first:
            # the machine's speed drifts by more than the targets' margins over minutes.
            for count in args.flat_tables:
                if "bare" in kinds:
                    steps.append(Step(workers, "bare", "flat", count))
                if "game" in kinds:
                    steps += [Step(workers, "game", "flat", count, game) for game in args.games]
        if args.pace in ("human", "both"):
            if "game" in kinds:
                for game in args.games:
                    steps += [
                        Step(workers, "game", "human", count, game) for count in args.human_tables
                    ]
            if "bare" in kinds:
                largest = max(args.human_tables)
                steps.append(Step(workers, "bare", "human", largest))
    return steps


def estimate_seconds(args: argparse.Namespace, steps: list[Step]) -> float:
    total = 0.0
    for step in steps:
        if step.pace == "flat":
            total += args.warmup + args.duration
        else:
            total += args.human_warmup + args.human_duration
        total += 6 + step.tables * 0.06  # start, connect, drain, stop
    return total


def _with_children_of(pids: list[int]) -> list[int]:
    return [found for pid in pids for found in with_children(pid)]


class Runner:
    def __init__(self, args: argparse.Namespace, secret_key: str) -> None:
        self.args = args
        self.log_dir = args.out / "logs"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.loop_dir = args.out / "loop"
        self.loop_dir.mkdir(parents=True, exist_ok=True)
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "gandengyan.settings",
            "DATABASE_URL": args.database_url,
            "REDIS_URL": args.redis_url if args.layer == "redis" else "",
            # Scripted players leave the runner nothing to do; on Redis it stays out of the
            # workers, while the in-memory layer refuses a worker that no runner could reach.
            "TABLE_RUNNER_IN_PROCESS": "false" if args.layer == "redis" else "true",
            # Flat out, a scripted player acts far faster than a person may.
            "TABLE_MESSAGE_RATE": "1000/second",
            # 斗地主: the deal's stages come quickly, and a runner never acts for a player.
            "DEAL_STAGE_SECONDS": str(args.deal_stage_seconds),
            "BID_SECONDS": str(PLAYER_CLOCK_SECONDS),
            "DOUBLE_SECONDS": str(PLAYER_CLOCK_SECONDS),
            "READY_SECONDS": str(READY_SECONDS),
            "DEBUG": "false",
            "SECRET_KEY": secret_key,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
        }
        if args.loop_monitor:
            self.env[loop_monitor.ENVIRONMENT] = str(self.loop_dir)
        #: The seated tables of each game.
        self.tables: dict[str, list[database.SeatedTable]] = {}

    def needs_runner(self, step: Step) -> bool:
        """Whether a table runner runs beside the workers: for 斗地主's clock, which shows the
        deal, and for the bots of the ``-bots`` tables (the in-memory layer's worker runs its
        own)."""
        uses_clock = database.game_of(step.game) == "doudizhu" or step.game.endswith("-bots")
        return uses_clock and self.args.layer == "redis"

    def runner_acts(self, step: Step) -> bool:
        """Whether a table runner acts during ``step``: beside the workers, or in the worker
        (the in-memory layer's)."""
        return step.kind == "game" and (self.needs_runner(step) or self.args.layer == "memory")

    def flush_redis(self) -> None:
        if self.args.layer != "redis":
            return
        import redis

        client = redis.Redis.from_url(self.args.redis_url)
        try:
            client.flushdb()
        finally:
            client.close()

    def run(self, step: Step, *, profile: Path | None = None) -> StepResult:
        args = self.args
        flat = step.pace == "flat"
        duration = args.duration if flat else args.human_duration
        config = StepConfig(
            kind=step.kind,
            pace=step.pace,
            tables=step.tables,
            duration=duration,
            warmup=args.warmup if flat else args.human_warmup,
            urls=[],
            seed=args.seed,
            bare_bytes=args.bare_bytes,
            token=secrets.token_hex(4),
        )
        tables = self.tables.get(step.game, [])[: step.tables]
        begun = time.monotonic()
        self.flush_redis()
        if self.runner_acts(step):
            database.clocks_wound_back(tables, seconds=PLAYER_CLOCK_SECONDS)
            database.close_connections()
        workers = start_workers(step.workers, self.env, self.log_dir)
        runners = self.args.runners if self.needs_runner(step) else 0
        clock = [start_runner(self.env, self.log_dir) for _ in range(runners)]
        config.urls = [worker.url for worker in workers]
        database_name = urlsplit(args.database_url).path.lstrip("/")
        # A worker's and the runner's thinking and service processes count as theirs
        # (games.thinking, games.service_processes).
        groups: dict[str, list[int] | Callable[[], list[int]]] = {
            f"daphne-{number + 1}": partial(with_children, worker.pid)
            for number, worker in enumerate(workers)
        }
        if clock:
            groups["runner"] = partial(_with_children_of, [process.pid for process in clock])
        groups |= {
            "postgres": partial(pids_named, "postgres", argument=database_name),
            "redis": partial(pids_named, "redis-server"),
            "client": [os.getpid()],
        }
        sampler = Sampler(groups)
        usage = Usage()
        profiler: Any = None
        window = [0.0, 0.0]

        def on_window(opening: bool) -> None:
            nonlocal usage, profiler
            window[0 if opening else 1] = time.time()
            if opening:
                sampler.start()
                if profile is not None:
                    from .profile import start_py_spy

                    profiler = start_py_spy(
                        workers[0].pid,
                        profile,
                        seconds=duration,
                        options=("--gil",) if self.args.profile_gil else (),
                    )
            else:
                usage = sampler.stop()

        try:
            outcome = asyncio.run(run_step(config, tables, on_window, sampler.sample))
        finally:
            stop_workers(workers + clock)
            if profiler is not None:
                profiler.wait(timeout=60)
        blocks = []
        for worker in workers:
            path = loop_monitor.log_path(self.loop_dir, worker.pid)
            found = loop_monitor.window(path, window[0], window[1])
            if found is not None:
                blocks.append(found)
            path.unlink(missing_ok=True)
        result = step_result(
            workers=step.workers,
            layer=args.layer,
            kind=step.kind,
            game=step.game,
            pace=step.pace,
            duration=duration,
            outcome=outcome,
            usage=usage,
        )
        if blocks:
            result.loop_max_ms = max(block.max_ms for block in blocks)
            result.loop_p99_ms = max(block.p99_ms for block in blocks)
            result.loop_own_max_ms = max(block.own_max_ms for block in blocks)
            result.loop_work_max_ms = max(block.work_max_ms for block in blocks)
            result.gc_max_ms = max(block.gc_max_ms for block in blocks)
            result.gc_share = max(block.gc_share for block in blocks)
        result.elapsed_s = round(time.monotonic() - begun, 1)
        return result


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.plot_only is not None:
        results = load(args.plot_only)
        print_figures(results)
        plot(results, args.plot or args.plot_only.with_suffix(".png"))
        return 0

    steps = plan(args)
    profile_step = (
        Step(
            args.profile_workers,
            args.profile_kind,
            "flat",
            args.profile_tables,
            args.games[0] if args.profile_kind == "game" else "",
        )
        if args.profile
        else None
    )
    every_step = steps + ([profile_step] if profile_step else [])
    game_tables = {
        game: max(s.tables for s in every_step if s.game == game)
        for game in args.games
        if any(s.game == game for s in every_step)
    }
    seated = ", ".join(f"{count} of {game}" for game, count in game_tables.items()) or "none"
    print(
        f"{len(steps)} steps{' and a profiled one' if profile_step else ''}, about "
        f"{estimate_seconds(args, every_step) / 60:.0f} minutes; tables to seat: {seated}. "
        f"Logs and results.json in {args.out}",
        flush=True,
    )
    secret_key = secrets.token_urlsafe(40)
    database.configure(database_url=args.database_url, secret_key=secret_key)
    runner = Runner(args, secret_key)
    started = time.monotonic()
    database.recreate(args.database_url)
    database.migrate()
    runner.tables = {
        game: database.seat_tables(count, game=game, bot_budget_ms=args.bot_budget_ms)
        for game, count in game_tables.items()
    }
    print(f"database ready: tables seated ({seated}) in {time.monotonic() - started:.0f} s")
    print()
    print(header(), flush=True)

    results: list[StepResult] = []
    meta = {"args": {k: str(v) for k, v in vars(args).items()}, "started": time.time()}
    spoilt: list[StepResult] = []
    for step in steps:
        result = runner.run(step)
        for _again in range(args.steal_retries):
            if result.cpu.get("stolen", 0.0) <= args.steal_limit:
                break
            # The hypervisor took the machine away during the step: its figures say more about
            # the other machines than about this code. Shown, kept in results.json, run again.
            print(format_row(result) + "   (much CPU stolen: run again)", flush=True)
            spoilt.append(result)
            retry = runner.run(step)
            result = min((result, retry), key=lambda r: r.cpu.get("stolen", 0.0))
        results.append(result)
        print(format_row(result), flush=True)
        for line in details(result):
            print(line, flush=True)
        save(results, args.out / "results.json", meta | {"spoilt": [asdict(r) for r in spoilt]})

    print()
    print(LEGEND)
    print()
    for line in summary(results):
        print(line)
    if args.plot is not None:
        plot(results, args.plot)
        print(f"\nplot: {args.plot}")

    if profile_step is not None:
        from .profile import summarise

        raw = args.out / "profile.txt"
        print(f"\nprofiling worker 1 with py-spy: {profile_step.name}")
        result = runner.run(profile_step, profile=raw)
        print(header())
        print(format_row(result) + "   (under py-spy)")
        for line in summarise(raw):
            print(line)
    print(f"\ntotal {time.monotonic() - started:.0f} s")
    return 0


def print_figures(results: list[StepResult]) -> None:
    print(header())
    for result in results:
        print(format_row(result))
        for line in details(result):
            print(line)
    print()
    for line in summary(results):
        print(line)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
