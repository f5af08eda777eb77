"""Measure the bots: ``python -m games.bots [--games 300] [--seed 1]``.

Prints how long ``SensiblePolicy.choose`` takes (over every move of whole games between sensible
bots, alone and with the building of the view and the legal moves that ``choose_for`` adds, and
for leads with 10- and 20-card hands), then how often each policy wins at a table of one
sensible, one greedy and one random bot (each deal played three times, the bots moved round the
seats). The split tables start empty, so the figures include building them.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence

from games.rules.gandengyan import GameState
from games.rules.simulate import lead_positions

from . import GreedyPolicy, Policy, RandomPolicy, SensiblePolicy
from .arena import win_rates


def _time_choices(states: Sequence[GameState], policy: Policy) -> list[float]:
    perf = time.perf_counter
    out = []
    for state in states:
        seat = state.to_move
        assert seat is not None
        view, legal = state.view_for(seat), state.legal_moves()
        before = perf()
        policy.choose(view, legal)
        out.append(perf() - before)
    return out


def move_times(games: int, seed: int) -> tuple[list[float], list[float]]:
    """Seconds per ``choose``, and per whole ``choose_for`` (view and legal moves included),
    over every move of ``games`` games between sensible bots."""
    policy = SensiblePolicy()
    perf = time.perf_counter
    choose, whole = [], []
    for i in range(games):
        state = GameState.deal(seed + i)
        while state.to_move is not None:
            started = perf()
            view, legal = state.view_for(state.to_move), state.legal_moves()
            before = perf()
            move = policy.choose(view, legal)
            after = perf()
            choose.append(after - before)
            whole.append(after - started)
            state = state.apply(move)
    return choose, whole


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m games.bots", description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    choose, whole = move_times(100, args.seed)
    timings = {
        "every move of 100 games": choose,
        "the same, with the view": whole,
        "leads, 10-card hands": _time_choices(lead_positions(500, args.seed, 10), SensiblePolicy()),
        "leads, 20-card hands": _time_choices(lead_positions(500, args.seed, 20), SensiblePolicy()),
    }
    for label, times in timings.items():
        print(
            f"{label:24} mean {statistics.mean(times) * 1e3:.3f} ms, "
            f"median {statistics.median(times) * 1e3:.3f} ms, max {max(times) * 1e3:.2f} ms"
        )
    policies: list[Policy] = [SensiblePolicy(), GreedyPolicy(), RandomPolicy(args.seed)]
    rates = win_rates(policies, args.games, args.seed)
    shares = ", ".join(f"{name} {rate:.1%}" for name, rate in rates.items())
    print(f"win rates over {args.games} games: {shares}")


if __name__ == "__main__":
    main()
