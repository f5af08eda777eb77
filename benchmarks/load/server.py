"""The server under load: daphne workers started as subprocesses, and what they cost.

Each worker is one ``daphne`` process on its own port, as in a deployment (docs/deploy.md),
serving ``benchmarks.load.asgi:application``; a table runner (``manage.py run_tables``) runs
beside them when a step needs the table's clock (斗地主's deal). CPU time and resident memory come
from ``/proc``: of the workers, the runner, and PostgreSQL's and Redis's processes, which share
the machine's two cores.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]
TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Worker:
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.process.pid


def start_workers(count: int, env: dict[str, str], log_dir: Path) -> list[Worker]:
    """Start ``count`` daphne processes and wait until each accepts connections."""
    workers = []
    for number in range(count):
        port = free_port()
        log = log_dir / f"daphne-{number + 1}.log"
        with log.open("ab") as output:
            process = subprocess.Popen(
                [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
                + ["benchmarks.load.asgi:application"],
                cwd=BASE_DIR,
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        workers.append(Worker(port, process, log))
    deadline = time.monotonic() + 60
    for worker in workers:
        while True:
            if worker.process.poll() is not None:
                stop_workers(workers)
                raise RuntimeError(f"daphne exited at start; see {worker.log}")
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", worker.port)) == 0:
                    break
            if time.monotonic() > deadline:
                stop_workers(workers)
                raise RuntimeError(f"daphne did not start; see {worker.log}")
            time.sleep(0.1)
    return workers


def start_runner(env: dict[str, str], log_dir: Path) -> Worker:
    """Start a table runner in a process of its own (``manage.py run_tables``), as a deployment
    may beside its workers: it tells the tables through the channel layer. A ``Worker`` with no
    port: it serves no sockets."""
    log = log_dir / "runner.log"
    with log.open("ab") as output:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "run_tables"],
            cwd=BASE_DIR,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    return Worker(0, process, log)


def stop_workers(workers: list[Worker]) -> None:
    for worker in workers:
        if worker.process.poll() is None:
            worker.process.terminate()
    for worker in workers:
        try:
            worker.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            worker.process.kill()
            worker.process.wait(timeout=5)


# Sampling /proc ----------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process (all its threads), or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def stolen_seconds() -> float:
    """CPU seconds the hypervisor gave to other machines while this one's processes were ready
    to run (``steal`` in ``/proc/stat``), over all cores since boot."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
    return int(fields[8]) / TICKS if len(fields) > 8 else 0.0


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def pids_named(name: str, *, argument: str | None = None) -> list[int]:
    """Every process whose command name is ``name`` (``postgres``, ``redis-server``) and, when
    ``argument`` is given, whose command line holds it as a word (a PostgreSQL backend's command
    line names its database: only the load database's backends count, not other users')."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() != name:
                continue
            if argument is not None:
                words = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode().split()
                if argument not in words:
                    continue
            found.append(int(entry.name))
        except (OSError, UnicodeDecodeError):
            continue
    return found


def with_children(pid: int) -> list[int]:
    """``pid`` and its descendants: a worker's or a runner's helper processes count as its
    own CPU (``games.thinking``, ``games.service_processes``)."""
    found, waiting = [], [pid]
    while waiting:
        current = waiting.pop()
        found.append(current)
        try:
            tasks = Path(f"/proc/{current}/task").iterdir()
            for task in tasks:
                waiting += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


@dataclass
class Usage:
    """CPU used over a window, in % of one core, and the largest resident memory seen."""

    cpu: dict[str, float] = field(default_factory=dict)
    rss: dict[str, float] = field(default_factory=dict)


class Sampler:
    """CPU of named groups of processes between ``start()`` and ``stop()``; RSS peaks while
    ``sample()`` is called (once a second is enough)."""

    def __init__(self, groups: dict[str, list[int] | Callable[[], list[int]]]) -> None:
        # A group is a list of pids, or a function that finds them at each reading.
        self.groups = groups
        self.started: dict[str, dict[int, float]] = {}
        self.at = 0.0
        self.peak: dict[str, float] = {}
        self.stolen = 0.0

    def _pids(self, name: str) -> list[int]:
        group = self.groups[name]
        return group() if callable(group) else group

    def _read(self) -> dict[str, dict[int, float]]:
        readings: dict[str, dict[int, float]] = {}
        for name in self.groups:
            readings[name] = {}
            for pid in self._pids(name):
                seconds = cpu_seconds(pid)
                if seconds is not None:
                    readings[name][pid] = seconds
        return readings

    def start(self) -> None:
        self.started = self._read()
        self.stolen = stolen_seconds()
        self.at = time.monotonic()
        self.peak = {}
        self.sample()

    def sample(self) -> None:
        for name in self.groups:
            total = sum(rss_mb(pid) or 0.0 for pid in self._pids(name))
            self.peak[name] = max(self.peak.get(name, 0.0), total)

    def stop(self) -> Usage:
        self.sample()
        ended = self._read()
        elapsed = max(time.monotonic() - self.at, 1e-6)
        usage = Usage(rss=dict(self.peak))
        for name, now in ended.items():
            before = self.started.get(name, {})
            # A process that started inside the window counts from zero.
            used = sum(seconds - before.get(pid, 0.0) for pid, seconds in now.items())
            usage.cpu[name] = 100 * used / elapsed
        # What the machine's noise took from the step: the same code gives far other figures
        # when the hypervisor takes a core away.
        usage.cpu["stolen"] = 100 * (stolen_seconds() - self.stolen) / elapsed
        return usage
