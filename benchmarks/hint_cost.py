"""What the event loop spends on a hint: pickling the request to its thinking process, against
making the choice itself on the loop (``games.thinking``, docs/performance.md decision 19).

For every position of the play phase in 100 seeded random games of each game, it times (CPU of
this thread) pickling ``(engine, state, None)`` as ``games.thinking`` sends it, and the game's
own bot choosing there, and prints the median, 99th percentile and largest of each::

    .venv/bin/python -m benchmarks.hint_cost [--games 100] [--seed 1]
"""

from __future__ import annotations

import argparse
import pickle
import random
import time
from collections.abc import Iterator
from typing import Any

from games.bots import choose_for
from games.rules.doudizhu import ENGINE as DOUDIZHU
from games.rules.gandengyan import ENGINE as GANDENGYAN
from games.rules.shanghai import ENGINE as SHANGHAI


def positions(engine: Any, games: int, seed: int) -> Iterator[Any]:
    """The positions of the play phase of ``games`` random games of ``engine``."""
    rng = random.Random(seed)
    for number in range(games):
        options = engine.default_options
        state = engine.deal(
            seed * 1000 + number, players=engine.seat_count(options), options=options
        )
        while not state.is_terminal:
            seat = state.to_move
            if state.phase.value == "play":
                yield state
            state = state.apply(seat, rng.choice(list(state.legal_actions(seat))))


def at(times: list[int], share: float) -> float:
    ordered = sorted(times)
    return ordered[int(share * (len(ordered) - 1))] / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for engine in (GANDENGYAN, DOUDIZHU, SHANGHAI):
        send: list[int] = []
        choose: list[int] = []
        for state in positions(engine, args.games, args.seed):
            started = time.thread_time_ns()
            pickle.dumps((engine, state, None), protocol=pickle.HIGHEST_PROTOCOL)
            send.append(time.thread_time_ns() - started)
            started = time.thread_time_ns()
            choose_for(state, engine.bot_policy())
            choose.append(time.thread_time_ns() - started)
        print(
            f"{engine.key}: {len(send)} positions; pickling a request: median "
            f"{at(send, 0.5):.3f}, p99 {at(send, 0.99):.3f}, max {max(send) / 1e6:.3f} ms; "
            f"the choice on the loop: median {at(choose, 0.5):.3f}, p99 {at(choose, 0.99):.3f}, "
            f"max {max(choose) / 1e6:.3f} ms"
        )


if __name__ == "__main__":
    main()
