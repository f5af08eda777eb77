"""The figures of a load run: one row per step, the comparisons the targets ask for (for each
game: 干瞪眼 and 斗地主 have the same targets), a plot."""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .clients import StepOutcome
from .server import Usage

# The targets of the issue, on this machine.
HUMAN_TABLES_TARGET = 150
HUMAN_P99_TARGET_MS = 150.0
FLAT_RATIO_TARGET = 0.45
#: At this many tables flat out on one worker the game is compared with the bare transport.
COMPARED_TABLES = 50
#: The worker's CPU per game action, at most this many times the bare transport's per message.
CPU_RATIO_TARGET = 2.5
SCALING_TARGET = 0.90
LOOP_BLOCKED_GOAL_MS = 5.0
#: The games, as the rows (``kind``) and the summary name them.
GAME_LABELS = {
    "gandengyan": "gdy",
    "doudizhu": "ddz",
    "gandengyan-bots": "gdy+bots",
    "doudizhu-bots": "ddz+bots",
}
GAME_NAMES = {
    "gandengyan": "干瞪眼",
    "doudizhu": "斗地主",
    "gandengyan-bots": "干瞪眼, one player and two search bots",
    "doudizhu-bots": "斗地主, one player and two search bots",
}


@dataclass
class StepResult:
    workers: int
    layer: str
    kind: str
    pace: str
    tables: int
    sockets: int
    connected: int
    duration: float
    actions_per_s: float
    sent_per_s: float
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    max_ms: float | None
    lost: int
    gaps: int
    out_of_order: int
    skipped: int
    games: int
    again: int
    frame_bytes: int
    elapsed_s: float = 0.0  # the whole step: start, connect, warm-up, window, drain, stop
    # The game's key for a step of the game ("" for the bare transport; results saved before
    # there were two games have none: 干瞪眼's).
    game: str = ""
    # How late the workers' loop heartbeat ran in the window, in ms: the worst over the workers
    # of each one's maximum and 99th percentile, of the part the worker's own work accounts
    # for, of that part less the garbage collector's, and the collector's longest collection
    # (benchmarks.load.loop_monitor).
    loop_max_ms: float | None = None
    loop_p99_ms: float | None = None
    loop_own_max_ms: float | None = None
    loop_work_max_ms: float | None = None
    gc_max_ms: float | None = None
    # The collector's CPU time in the window, in % of one core (the busiest worker's).
    gc_share: float | None = None
    errors: dict[str, int] = field(default_factory=dict)
    refused: dict[str, int] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    rss_mb: dict[str, float] = field(default_factory=dict)

    @property
    def what(self) -> str:
        """What the step ran: ``bare``, or the game's key."""
        return "bare" if self.kind == "bare" else self.game or "gandengyan"

    @property
    def label(self) -> str:
        return GAME_LABELS.get(self.what, self.what)

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    @property
    def refused_count(self) -> int:
        return sum(self.refused.values())

    @property
    def clean(self) -> bool:
        return (
            self.error_count == 0
            and self.refused_count == 0
            and self.lost == 0
            and self.gaps == 0
            and self.out_of_order == 0
            and self.connected == self.sockets
        )

    def daphne_cpu(self) -> float:
        return sum(value for name, value in self.cpu.items() if name.startswith("daphne"))

    def daphne_rss(self) -> float:
        return sum(value for name, value in self.rss_mb.items() if name.startswith("daphne"))


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile of ``values`` (``share`` from 0 to 100)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(share / 100 * len(ordered)))
    return ordered[rank - 1]


def step_result(
    *, workers: int, layer: str, kind: str, pace: str, duration: float,
    outcome: StepOutcome, usage: Usage, game: str = "",
) -> StepResult:  # fmt: skip
    recorder = outcome.recorder
    latencies = [seconds * 1000 for seconds in recorder.latencies]

    def at(share: float) -> float | None:
        return round(percentile(latencies, share), 1) if latencies else None

    return StepResult(
        workers=workers,
        layer=layer,
        kind=kind,
        pace=pace,
        tables=outcome.tables or outcome.sockets // 3,
        sockets=outcome.sockets,
        connected=outcome.connected,
        duration=duration,
        actions_per_s=round(recorder.done / duration, 1),
        sent_per_s=round(recorder.actions / duration, 1),
        p50_ms=at(50),
        p95_ms=at(95),
        p99_ms=at(99),
        max_ms=round(max(latencies), 1) if latencies else None,
        lost=recorder.lost,
        gaps=recorder.gaps,
        out_of_order=recorder.out_of_order,
        skipped=recorder.skipped,
        games=recorder.games,
        again=recorder.again,
        frame_bytes=int(statistics.median(recorder.frame_sizes)) if recorder.frame_sizes else 0,
        errors=dict(recorder.errors),
        refused=dict(recorder.refused),
        cpu={name: round(value, 1) for name, value in usage.cpu.items()},
        rss_mb={name: round(value, 1) for name, value in usage.rss.items()},
        game=game,
    )


# Printing ----------------------------------------------------------------------------------------

COLUMNS = (
    ("wk", 2),
    ("kind", 4),
    ("pace", 5),
    ("tables", 6),
    ("act/s", 6),
    ("p50", 6),
    ("p95", 6),
    ("p99", 6),
    ("max", 6),
    ("err", 3),
    ("ref", 3),
    ("lost", 4),
    ("gaps", 4),
    ("ooo", 3),
    ("skip", 4),
    ("daphne%", 7),
    ("MB", 5),
    ("pg%", 4),
    ("redis%", 6),
    ("run%", 4),
    ("client%", 7),
    ("loop", 5),
    ("loop99", 6),
    ("own", 5),
    ("code", 5),
    ("gc", 4),
    ("gc%", 4),
    ("stolen%", 7),
    ("step s", 6),
)


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def format_row(result: StepResult) -> str:
    cells = (
        str(result.workers),
        result.label,
        result.pace,
        str(result.tables),
        f"{result.actions_per_s:.0f}",
        _ms(result.p50_ms),
        _ms(result.p95_ms),
        _ms(result.p99_ms),
        _ms(result.max_ms),
        str(result.error_count + (result.sockets - result.connected)),
        str(result.refused_count),
        str(result.lost),
        str(result.gaps),
        str(result.out_of_order),
        str(result.skipped),
        f"{result.daphne_cpu():.0f}",
        f"{result.daphne_rss():.0f}",
        f"{result.cpu.get('postgres', 0):.0f}",
        f"{result.cpu.get('redis', 0):.0f}",
        f"{result.cpu['runner']:.0f}" if "runner" in result.cpu else "–",
        f"{result.cpu.get('client', 0):.0f}",
        _ms(result.loop_max_ms),
        _ms(result.loop_p99_ms),
        _ms(result.loop_own_max_ms),
        _ms(result.loop_work_max_ms),
        _ms(result.gc_max_ms),
        "–" if result.gc_share is None else f"{result.gc_share:.0f}",
        f"{result.cpu['stolen']:.0f}" if "stolen" in result.cpu else "–",
        f"{result.elapsed_s:.0f}",
    )
    return "  ".join(cell.rjust(width) for cell, (_name, width) in zip(cells, COLUMNS, strict=True))


def header() -> str:
    names = "  ".join(name.rjust(width) for name, width in COLUMNS)
    return names + "\n" + "-" * len(names)


LEGEND = (
    "kind: the bare transport, or the game (gdy 干瞪眼, ddz 斗地主; +bots: one scripted player "
    "and two hard bots a table); "
    "act/s: moves per second that every seat saw (plays and passes; 斗地主's bids and 加倍 "
    "too, not the deal's stages); p50..max: ms from sending an "
    "action to the last of its table's sockets receiving the update; err: failed connections, "
    "sockets closed by the server, client errors; ref: refused actions; lost: updates a seat never "
    "received; gaps: notices a socket missed that its table mates got; ooo: frames older than one "
    "already received; skip: versions a socket never saw because the next move had committed "
    "before it rendered (not a loss); daphne%: CPU of the workers with their thinking and "
    "service processes (100 = one core), MB: their resident memory at the peak; pg%, redis%, run%, "
    "client%: PostgreSQL, Redis, the table runner beside the workers (斗地主's clock, which shows "
    "the deal, and the bots, with its thinking processes) and this load generator; "
    "loop, loop99: how long a worker's event loop was blocked, in ms (the lateness of a "
    "heartbeat due every 2 ms: its maximum and 99th percentile in the window, the worst worker; "
    "flat out it also holds the loop's backlog of ready callbacks), own: the longest of it that "
    "the worker's own CPU time accounts for (the rest: the machine did not run the worker), "
    "code: the same less the garbage collector's part, gc: the worker's longest collection "
    "(CPU ms), gc%: the collector's CPU in all (% of one core, the busiest worker); "
    "stolen%: CPU time the hypervisor took from this machine's two cores (its 'steal'); "
    "step s: the step's whole time, from starting the workers to stopping them."
)


def details(result: StepResult) -> list[str]:
    lines = []
    if result.errors:
        lines.append(f"    errors: {result.errors}")
    if result.refused:
        lines.append(f"    refused: {result.refused}")
    if result.connected != result.sockets:
        lines.append(f"    connected {result.connected} of {result.sockets} sockets")
    return lines


def _best(results: list[StepResult], workers: int, what: str) -> StepResult | None:
    flat = [r for r in results if r.workers == workers and r.what == what and r.pace == "flat"]
    return max(flat, key=lambda r: r.actions_per_s, default=None)


def _games(results: list[StepResult]) -> list[str]:
    """The games the results hold steps of, 干瞪眼 first."""
    found = {r.what for r in results if r.kind == "game"}
    return [game for game in dict.fromkeys((*GAME_NAMES, *sorted(found))) if game in found]


def _name(what: str) -> str:
    return GAME_NAMES.get(what, what)


def summary(results: list[StepResult]) -> list[str]:
    """The comparisons the targets ask for, and whether each target is met, for each game."""
    lines = []
    workers = sorted({r.workers for r in results})
    games = _games(results)
    saturation: dict[tuple[int, str], float] = {}
    for count in workers:
        for what in ("bare", *games):
            best = _best(results, count, what)
            if best is not None:
                saturation[count, what] = best.actions_per_s
                lines.append(
                    f"flat out, {count} worker(s), {_name(what)}: {best.actions_per_s:.0f} "
                    f"actions/s at best (at {best.tables} tables, p99 {_ms(best.p99_ms)} ms)"
                )
        for game in games:
            if (count, "bare") in saturation and (count, game) in saturation:
                ratio = saturation[count, game] / max(saturation[count, "bare"], 1e-9)
                verdict = "met" if ratio >= FLAT_RATIO_TARGET else "NOT met"
                lines.append(
                    f"  {_name(game)} / bare transport, {count} worker(s): {ratio:.0%} "
                    f"(target ≥ {FLAT_RATIO_TARGET:.0%}: {verdict})"
                )
    for game in games:
        lines += _at_compared_tables(results, game)
    for game in games:
        if all((n, k) in saturation for n in (1, 2) for k in ("bare", game)):
            bare = saturation[2, "bare"] / max(saturation[1, "bare"], 1e-9)
            played = saturation[2, game] / max(saturation[1, game], 1e-9)
            relative = played / max(bare, 1e-9)
            verdict = "met" if relative >= SCALING_TARGET else "NOT met"
            lines.append(
                f"two workers / one: bare ×{bare:.2f}, {_name(game)} ×{played:.2f}; the game "
                f"scales {relative:.0%} as well as the transport (target ≥ "
                f"{SCALING_TARGET:.0%}: {verdict})"
            )
    for game in games:
        for count in workers:
            lines += _human_pace(results, game, count)
    lines += _loop_blocks(results)
    return lines


def _human_pace(results: list[StepResult], game: str, count: int) -> list[str]:
    """How many tables of ``game`` ``count`` workers carry at human pace with p99 under the
    target and nothing lost or refused."""
    human = sorted(
        (r for r in results if r.workers == count and r.what == game and r.pace == "human"),
        key=lambda r: r.tables,
    )
    if not human:
        return []
    good = [r for r in human if r.clean and r.p99_ms is not None and r.p99_ms < HUMAN_P99_TARGET_MS]
    carried = max((r.tables for r in good), default=0)
    runs = ", ".join(f"{r.tables}: p99 {_ms(r.p99_ms)} ms" for r in human)
    lines = []
    if carried:
        lines.append(
            f"human pace, {count} worker(s), {_name(game)}: carries {carried} tables with p99 < "
            f"{HUMAN_P99_TARGET_MS:.0f} ms and nothing lost or refused ({runs})"
        )
    else:
        lines.append(
            f"human pace, {count} worker(s), {_name(game)}: no table count run had p99 < "
            f"{HUMAN_P99_TARGET_MS:.0f} ms with nothing lost or refused ({runs})"
        )
    if count == 1:
        verdict = "met" if carried >= HUMAN_TABLES_TARGET else "NOT met"
        lines.append(f"  target ≥ {HUMAN_TABLES_TARGET} tables on one worker: {verdict}")
    return lines


def _at_compared_tables(results: list[StepResult], game: str) -> list[str]:
    """One worker flat out at ``COMPARED_TABLES`` tables: ``game``'s actions/s against the bare
    transport's, and the worker's CPU per game action against its CPU per bare message."""
    steps = {
        r.what: r
        for r in results
        if r.workers == 1 and r.pace == "flat" and r.tables == COMPARED_TABLES
    }
    played, bare = steps.get(game), steps.get("bare")
    if played is None or bare is None or not played.actions_per_s or not bare.actions_per_s:
        return []
    ratio = played.actions_per_s / bare.actions_per_s
    cpu = (played.daphne_cpu() / played.actions_per_s) / (bare.daphne_cpu() / bare.actions_per_s)
    return [
        f"  at {COMPARED_TABLES} tables, 1 worker: {_name(game)} / bare {ratio:.0%} (target ≥ "
        f"{FLAT_RATIO_TARGET:.0%}: {'met' if ratio >= FLAT_RATIO_TARGET else 'NOT met'}); "
        f"worker CPU per action ×{cpu:.2f} the bare transport's per message (target ≤ "
        f"×{CPU_RATIO_TARGET}: {'met' if cpu <= CPU_RATIO_TARGET else 'NOT met'})"
    ]


def _loop_blocks(results: list[StepResult]) -> list[str]:
    """The longest the workers' event loop was blocked by their own work, per worker count and
    game (or the bare transport) at human pace (flat out, the loop is never idle and the
    heartbeat waits for its backlog too), with the whole lateness, which holds the machine's
    pauses as well."""
    lines = []
    for count in sorted({r.workers for r in results}):
        for what in (*_games(results), "bare"):
            human = sorted(
                (
                    r
                    for r in results
                    if r.workers == count
                    and r.what == what
                    and r.pace == "human"
                    and r.loop_max_ms is not None
                ),
                key=lambda r: r.tables,
            )
            if not human:
                continue
            worst = max(r.loop_own_max_ms or 0.0 for r in human)
            verdict = "met" if worst < LOOP_BLOCKED_GOAL_MS else "NOT met"
            runs = ", ".join(
                f"{r.tables}: {_ms(r.loop_own_max_ms)} (late at most {_ms(r.loop_max_ms)}, "
                f"p99 {_ms(r.loop_p99_ms)}; code {_ms(r.loop_work_max_ms)}, "
                f"gc {_ms(r.gc_max_ms)})"
                for r in human
            )
            lines.append(
                f"loop blocked max ms by its own work, human pace, {count} worker(s), "
                f"{_name(what)}: {runs} (goal < {LOOP_BLOCKED_GOAL_MS:.0f} ms: {verdict})"
            )
    return lines


def save(results: list[StepResult], path: Path, meta: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"meta": meta, "steps": [asdict(result) for result in results]}
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False))


def load(path: Path) -> list[StepResult]:
    data = json.loads(path.read_text())
    return [StepResult(**step) for step in data["steps"]]


# The plot ----------------------------------------------------------------------------------------


def plot(results: list[StepResult], path: Path) -> None:
    """p99 latency and actions per second against the number of tables, flat out and at human
    pace, for each worker count, the game beside the bare transport. Needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    plain = FuncFormatter(lambda value, _position: f"{value:g}")

    figure, axes = plt.subplots(2, 2, figsize=(11, 8), constrained_layout=True)
    colours = {1: "tab:blue", 2: "tab:orange"}
    lines = {"gandengyan": ("-", "o"), "doudizhu": ("-.", "^"), "bare": ("--", "s")}
    for row, pace in enumerate(("flat", "human")):
        for what in (*_games(results), "bare"):
            style, marker = lines.get(what, (":", "x"))
            for workers in sorted({r.workers for r in results}):
                steps = sorted(
                    (
                        r
                        for r in results
                        if r.pace == pace and r.what == what and r.workers == workers
                    ),
                    key=lambda r: r.tables,
                )
                if not steps:
                    continue
                name = "bare" if what == "bare" else GAME_LABELS.get(what, what)
                label = f"{name}, {workers} worker{'s' if workers > 1 else ''}"
                tables = [r.tables for r in steps]
                axes[row][0].plot(
                    tables,
                    [r.actions_per_s for r in steps],
                    style,
                    marker=marker,
                    color=colours.get(workers),
                    label=label,
                )
                axes[row][1].plot(
                    tables,
                    [r.p99_ms if r.p99_ms is not None else float("nan") for r in steps],
                    style,
                    marker=marker,
                    color=colours.get(workers),
                    label=label,
                )
        title = "flat out (act on receipt)" if pace == "flat" else "human pace (think 2–4 s)"
        axes[row][0].set_title(f"Actions per second, {title}")
        axes[row][1].set_title(f"p99 latency, {title}")
        axes[row][0].set_ylabel("actions/s seen by every seat")
        axes[row][1].set_ylabel("p99 ms (log scale)")
        axes[row][1].set_yscale("log")
        axes[row][1].yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        axes[row][1].yaxis.set_major_formatter(plain)
        axes[row][1].yaxis.set_minor_formatter(NullFormatter())
        if pace == "human":
            axes[row][1].axhline(HUMAN_P99_TARGET_MS, color="grey", linestyle=":", label="150 ms")
            axes[row][1].axvline(HUMAN_TABLES_TARGET, color="grey", linestyle=":")
        for axis in axes[row]:
            axis.set_xlabel("tables (3 sockets each)")
            axis.grid(True, alpha=0.3)
            axis.set_xlim(left=0)
            axis.legend(fontsize=8)
        axes[row][0].set_ylim(bottom=0)
    figure.suptitle(
        # Latin names: the plot's font has no Chinese glyphs.
        "Gan Deng Yan Online under load (gdy Gan Deng Yan, ddz Dou Dizhu): daphne on PostgreSQL"
        " + Redis, 2 shared cores"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
