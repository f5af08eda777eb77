"""How long the 干瞪眼 search bot takes per move, as a room's server would ask it.

Run from the repository root::

    .venv/bin/python benchmarks/search_bot.py [--games 30] [--seed 1] [--budget-ms 150]
        [--iterations 160]

The search bot (``SearchPolicy`` with the given time budget and iteration cap; the defaults are
the bot's own) plays whole seeded games against two sensible bots, in each seat in turn, and
every one of its ``choose`` calls is timed, the trivial ones (one legal move, going out)
included, since a server waits for those too. It prints the median, 99th percentile and maximum
milliseconds per move, on the clock and in CPU time (the machine is shared: the clock counts the
time other work took the core away), and how many playouts the searches made. With
``--no-budget`` the time budget is off and only the iteration cap stops the search.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.bots import SensiblePolicy, choose_for  # noqa: E402
from games.bots.search import DEFAULT_BUDGET_MS, DEFAULT_ITERATIONS, SearchPolicy  # noqa: E402
from games.rules.gandengyan import GameState  # noqa: E402


def _spread(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    return (
        f"median {statistics.median(ordered) * 1e3:7.1f} ms  p99 {p99 * 1e3:7.1f} ms  "
        f"max {ordered[-1] * 1e3:7.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=30, help="deals (each played 3 times)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget-ms", type=float, default=DEFAULT_BUDGET_MS)
    parser.add_argument("--no-budget", action="store_true", help="the iteration cap only")
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    args = parser.parse_args()
    budget = None if args.no_budget else args.budget_ms
    wall: list[float] = []
    cpu: list[float] = []
    playouts: list[int] = []
    sensible = SensiblePolicy()
    for deal in range(args.games):
        start = GameState.deal(args.seed + deal)
        for bot_seat in range(3):
            bot = SearchPolicy(deal * 3 + bot_seat, budget_ms=budget, iterations=args.iterations)
            state = start
            while (seat := state.to_move) is not None:
                if seat == bot_seat:
                    view, legal = state.view_for(seat), state.legal_moves()
                    before, before_cpu = time.perf_counter(), time.process_time()
                    move = bot.choose(view, legal)
                    wall.append(time.perf_counter() - before)
                    cpu.append(time.process_time() - before_cpu)
                    playouts.append(bot.last_playouts)
                else:
                    move = choose_for(state, sensible)
                state = state.apply(seat, move)
    searched = [n for n in playouts if n]
    print(
        f"search bot, budget {budget} ms, at most {args.iterations} playouts, "
        f"{args.games * 3} games against two sensible bots"
    )
    print(f"moves {len(wall):,}, searched {len(searched):,} (the rest answered at once)")
    print(f"per move, clock: {_spread(wall)}")
    print(f"per move, CPU:   {_spread(cpu)}")
    if searched:
        print(
            f"playouts per searched move: median {statistics.median(searched):.0f}, "
            f"min {min(searched)}, max {max(searched)}"
        )


if __name__ == "__main__":
    main()
