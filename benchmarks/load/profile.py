"""Where a worker's time goes: py-spy samples of one daphne process during a flat-out step.

py-spy (``pip install py-spy``; a development tool, not in requirements.txt) records the stacks
of every thread of the worker a hundred times a second, as collapsed stacks (``--format raw``).
The summary gives, per thread, the share of samples spent in each part of an action's path
(a sample counts towards the first part its stack matches, outermost frames first), then the
functions where most samples stop (self time).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

RATE = 100

#: What a sample of the worker's thread pool is doing: the first rule with a needle in one of its
#: frames names it (``leaf:`` needles look at the innermost frame only). The pool is the table
#: sockets' database threads (``games.db_threads``): every query and every template of the
#: worker's sockets runs there. The players' frames after a change are rendered where it commits.
POOL_PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("idle: waiting for work", ("leaf:_worker (concurrent/futures/thread.py",)),
    ("health check before the first query (SELECT 1)", ("is_usable",)),
    (
        "in libpq: a query's round trip to PostgreSQL (and the GIL after it)",
        ("leaf:Connection.wait (psycopg", "leaf:_execute_send (psycopg", "leaf:_exec_command"),
    ),
    ("psycopg: adapting parameters and rows", ("psycopg/",)),
    ("the players' frames after a change: reading the table", ("table_rows (",)),
    ("the players' frames after a change: templates", ("render_player_frames (",)),
    ("engine: game_state, replaying the game's events", ("game_state (games/selectors/states.py",)),
    ("engine: play_hints, legal plays and the bot's choice", ("play_hints (",)),
    ("templates: render_to_string", ("render_to_string", "django/template/")),
    ("ORM: building queries and model rows", ("django/db/",)),
    ("translation and formatting", ("translation", "gettext")),
)
#: The pool's entry points: what the consumer asked the thread to do.
POOL_ENTRIES: tuple[tuple[str, str], ...] = (
    ("TableConsumer._act", "_act: the action (access check, service, broadcast)"),
    ("TableConsumer._render", "_render: one socket's frame"),
    ("close_old_connections", "close_old_connections: Channels' hop before every handler"),
    ("_worker (concurrent/futures/thread.py:81)", "idle: waiting for work"),
)
MAIN_PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("idle: waiting in epoll", ("EpollSelector.select",)),
    ("a move on the event loop: the players' frames", ("render_player_frames (",)),
    (
        "a move on the event loop: statements, rows and checks (games.loop_moves)",
        ("games/loop_moves.py",),
    ),
    ("channel layer and Redis client", ("channels_redis", "redis/")),
    ("websocket frames out (autobahn, twisted)", ("autobahn", "twisted")),
    ("handing work to the thread pool and back (asgiref)", ("asgiref/",)),
    ("asyncio event loop", ("asyncio/",)),
)


def classify(frames: list[str], rules: tuple[tuple[str, tuple[str, ...]], ...]) -> str:
    for name, needles in rules:
        for needle in needles:
            if needle.startswith("leaf:"):
                if frames and needle[5:] in frames[-1]:
                    return name
            elif any(needle in frame for frame in frames):
                return name
    return "other Python"


def entry_of(frames: list[str]) -> str:
    for needle, name in POOL_ENTRIES:
        if any(needle in frame for frame in frames):
            return name
    return "other work in the pool"


def py_spy() -> str:
    found = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(found).exists():
        raise RuntimeError("py-spy is not installed: .venv/bin/pip install py-spy")
    return found


def start_py_spy(
    pid: int, output: Path, *, seconds: float, options: tuple[str, ...] = ()
) -> subprocess.Popen[bytes]:
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.with_suffix(".log").open("wb") as log:
        return subprocess.Popen(
            [py_spy(), "record", "--pid", str(pid), "--duration", str(int(seconds))]
            + ["--rate", str(RATE), "--format", "raw", "--threads", "--output", str(output)]
            + list(options),
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def read_stacks(path: Path) -> list[tuple[list[str], int]]:
    stacks = []
    for line in path.read_text().splitlines():
        stack, _space, count = line.rpartition(" ")
        if stack and count.isdigit():
            stacks.append((stack.split(";"), int(count)))
    return stacks


def summarise(path: Path, *, top: int = 12) -> list[str]:
    if not path.exists():
        return [f"no profile at {path}"]
    stacks = read_stacks(path)
    total = sum(count for _frames, count in stacks)
    if not total:
        return ["the profile is empty"]
    pool: dict[str, Counter[str]] = {}
    pool_parts: Counter[str] = Counter()
    main: Counter[str] = Counter()
    selfs: Counter[str] = Counter()
    threads: Counter[str] = Counter()
    for frames, count in stacks:
        thread, body = frames[0], frames[1:]
        if "ThreadPoolExecutor" in thread or "table-db" in thread:
            threads["thread pool (the sockets' database threads)"] += count
            part = classify(body, POOL_PARTS)
            pool.setdefault(entry_of(body), Counter())[part] += count
            pool_parts[part] += count
        elif "MainThread" in thread:
            threads["main thread (event loop)"] += count
            main[classify(body, MAIN_PARTS)] += count
        else:  # short-lived helpers, such as the rate limiter's expiry timers
            threads["other threads"] += count
        if body and "EpollSelector.select" not in body[-1]:
            selfs[body[-1]] += count

    def share(count: int) -> str:
        return f"{count / total:6.1%}"

    lines = [
        f"{total} samples at {RATE} Hz of the worker's threads, busy or blocked (py-spy leaves "
        "out only threads asleep in a known idle call)",
    ]
    for thread, count in threads.most_common():
        lines.append(f"  {share(count)}  {thread}")
    lines.append("thread pool, by what the consumer asked for:")
    for entry, parts in sorted(pool.items(), key=lambda item: -sum(item[1].values())):
        lines.append(f"  {share(sum(parts.values()))}  {entry}")
        for name, count in parts.most_common():
            lines.append(f"    {share(count)}  {name}")
    lines.append("thread pool, all entries together:")
    for name, count in pool_parts.most_common():
        lines.append(f"  {share(count)}  {name}")
    lines.append("main thread:")
    for name, count in main.most_common():
        lines.append(f"  {share(count)}  {name}")
    lines.append(f"top {top} innermost frames (idle epoll left out):")
    for frame, count in selfs.most_common(top):
        lines.append(f"  {share(count)}  {frame}")
    return lines
