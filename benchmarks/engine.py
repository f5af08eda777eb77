"""Benchmark of the rules engine: repeated ``simulate`` runs, summarised, and an optional profile.

    .venv/bin/python benchmarks/engine.py                # 5 runs of 1000 games
    .venv/bin/python benchmarks/engine.py --runs 3 --games 2000 --profile
    .venv/bin/python benchmarks/engine.py --rules '{"bombs_any_higher": true}'   # house rules

The machine is shared and noisy: read the median of several runs, and compare figures only within
one run of this script.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rules.gandengyan.options import GandengyanRules  # noqa: E402
from games.rules.gandengyan.simulate import follow_benchmark, lead_benchmark, simulate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--positions", type=int, default=2000, help="20-card positions to time")
    parser.add_argument("--profile", action="store_true", help="profile one run and print the top")
    parser.add_argument("--rules", default="{}", help="house rules as a JSON object")
    args = parser.parse_args()
    rules = GandengyanRules.from_dict(json.loads(args.rules))

    rates, medians = [], []
    for run in range(args.runs):
        report = simulate(args.games, args.seed, rules=rules)
        rates.append(report.games_per_second)
        medians.append(report.legal_median_us)
        print(
            f"run {run + 1}: {report.games_per_second:8.1f} games/s, "
            f"{report.legal_calls_per_second:9.1f} legal_moves()/s, "
            f"median {report.legal_median_us:5.2f} us, "
            f"{report.actions / report.games:.1f} actions/game"
        )
    print(f"games per second: median {statistics.median(rates):.1f}, best {max(rates):.1f}")
    print(f"legal_moves() median over all calls: {statistics.median(medians):.2f} us")
    follow = follow_benchmark(args.positions, args.seed, rules=rules)
    lead = lead_benchmark(args.positions, args.seed, rules=rules)
    print(f"legal_moves(), 20-card hand following a play: median {follow:.2f} us")
    print(f"legal_moves(), 20-card hand leading a round:  median {lead:.2f} us")

    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        simulate(args.games, args.seed, rules=rules)
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
        print(out.getvalue())


if __name__ == "__main__":
    main()
