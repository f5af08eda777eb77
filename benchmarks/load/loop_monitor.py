"""How long a worker's event loop was kept from running: a heartbeat, and its record.

A worker started by the load test with ``LOOP_MONITOR_DIR`` in its environment runs a heartbeat
on its event loop (``benchmarks.load.asgi`` starts it with the first connection): a callback due
every ``INTERVAL`` seconds, which notes how late it ran. While the loop runs a callback that does
not yield (a frame rendered, a bot's choice, a collection of the garbage collector), nothing else
runs, the heartbeat included: its lateness is how long every socket of the worker waited. It
falls short of the block by up to ``INTERVAL`` (the block may begin just after a beat), and, when
the loop is saturated (flat out), it also holds the time the loop took to get through the
callbacks that were ready before it.

On a machine shared with other work, a beat is also late when the process was not given a core,
which is the machine's doing, not the worker's. So each beat also notes how much CPU time the
process used since the beat before (all its threads: one that holds the interpreter's lock keeps
the loop waiting too), and counts as the worker's own part of the lateness no more than that.
The own part may exceed the worker's share by up to ``INTERVAL``. The collections of the garbage
collector are timed too, in CPU time of the thread that collects (a collection the machine
interrupts is not made longer by it): the longest, and the own part of each beat's lateness
less the collections since the beat before (the worker's code apart from the collector).

Every ``PERIOD`` seconds the worker appends one JSON line to ``loop-<pid>.jsonl`` in that
directory: the wall-clock bounds of the period, how many beats were late by each tenth of a
millisecond, the same for the own part and for the code's part, and the longest collection.
``window`` reads the periods that lie inside a step's measured window.
"""

from __future__ import annotations

import asyncio
import gc
import json
import math
import os
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ENVIRONMENT = "LOOP_MONITOR_DIR"
INTERVAL = 0.002
PERIOD = 0.5


def log_path(directory: Path, pid: int) -> Path:
    return directory / f"loop-{pid}.jsonl"


class Heartbeat:
    """The heartbeat of one event loop, writing its periods to ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.loop: asyncio.AbstractEventLoop | None = None
        self.late: Counter[int] = Counter()
        self.own: Counter[int] = Counter()
        self.work: Counter[int] = Counter()
        self.due = 0.0
        self.cpu = 0.0
        self.collecting = 0.0
        self.collected = 0.0  # seconds spent collecting, in all
        self.collected_at_beat = 0.0
        self.longest_collection = 0.0
        self.collected_in_period = 0.0
        self.period_from = 0.0
        self.period_ends = 0.0

    def start(self) -> None:
        """Start beating on the running loop, once."""
        if self.loop is not None:
            return
        self.loop = asyncio.get_running_loop()
        self.period_from = time.time()
        self.period_ends = self.loop.time() + PERIOD
        self.due = self.loop.time() + INTERVAL
        self.cpu = time.process_time()
        gc.callbacks.append(self.on_collection)
        self.loop.call_at(self.due, self.beat)

    def on_collection(self, phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            self.collecting = time.thread_time()
        else:
            took = time.thread_time() - self.collecting
            self.collected += took
            self.collected_in_period += took
            self.longest_collection = max(self.longest_collection, took)

    def beat(self) -> None:
        assert self.loop is not None
        now = self.loop.time()
        cpu = time.process_time()
        late = max(0.0, now - self.due)
        # In tenths of a millisecond.
        own = min(late, cpu - self.cpu)
        self.late[round(late * 10_000)] += 1
        self.own[round(own * 10_000)] += 1
        self.work[round(max(0.0, own - (self.collected - self.collected_at_beat)) * 10_000)] += 1
        self.cpu = cpu
        self.collected_at_beat = self.collected
        if now >= self.period_ends:
            self.write()
            self.period_ends = now + PERIOD
        self.due = now + INTERVAL
        self.loop.call_at(self.due, self.beat)

    def write(self) -> None:
        ended = time.time()
        line = {
            "from": self.period_from,
            "to": ended,
            "late": dict(self.late),
            "own": dict(self.own),
            "work": dict(self.work),
            "gc_ms": round(self.longest_collection * 1000, 1),
            "gc_total_ms": round(self.collected_in_period * 1000, 2),
        }
        with self.path.open("a") as output:
            output.write(json.dumps(line) + "\n")
        self.late.clear()
        self.own.clear()
        self.work.clear()
        self.longest_collection = 0.0
        self.collected_in_period = 0.0
        self.period_from = ended


def from_environment() -> Heartbeat | None:
    """This process's heartbeat, when the load test asked for one."""
    directory = os.environ.get(ENVIRONMENT)
    if not directory:
        return None
    return Heartbeat(log_path(Path(directory), os.getpid()))


@dataclass(frozen=True)
class LoopBlocks:
    """How late the heartbeats of a window were, in ms: the worst and the 99th percentile, the
    worst of the worker's own part and of its code's part, and the longest collection of the
    garbage collector."""

    beats: int
    max_ms: float
    p99_ms: float
    own_max_ms: float
    work_max_ms: float
    gc_max_ms: float
    #: The collector's CPU time in all, in % of the window's wall-clock time.
    gc_share: float


def _percentile(counts: Counter[int], share: float) -> int:
    rank = math.ceil(share * sum(counts.values()))
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        if seen >= rank:
            return value
    return 0


def window(path: Path, opened: float, closed: float) -> LoopBlocks | None:
    """The heartbeats of the periods in ``path`` that lie inside ``opened``..``closed``
    (``time.time()``), or None when there is none."""
    late: Counter[int] = Counter()
    own: Counter[int] = Counter()
    work: Counter[int] = Counter()
    gc_ms = 0.0
    gc_total_ms = 0.0
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    for text in lines:
        try:
            period = json.loads(text)
        except ValueError:
            continue  # a line the worker was writing when it stopped
        if period["from"] >= opened and period["to"] <= closed:
            late.update({int(tenths): count for tenths, count in period["late"].items()})
            own.update({int(tenths): count for tenths, count in period["own"].items()})
            work.update({int(tenths): count for tenths, count in period["work"].items()})
            gc_ms = max(gc_ms, period["gc_ms"])
            gc_total_ms += period.get("gc_total_ms", 0.0)
    beats = sum(late.values())
    if not beats:
        return None
    return LoopBlocks(
        beats=beats,
        max_ms=max(late) / 10,
        p99_ms=_percentile(late, 0.99) / 10,
        own_max_ms=max(own) / 10,
        work_max_ms=max(work) / 10,
        gc_max_ms=gc_ms,
        gc_share=gc_total_ms / 10 / max(closed - opened, 1e-9),
    )
