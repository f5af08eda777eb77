"""What one game action costs the server, without sockets: CPU time, wall time and queries.

    .venv/bin/python -m benchmarks.load.action_cost --actions 600

Seats tables in a fresh PostgreSQL database (``gandengyan_action_cost``), then makes actions one
after another through ``services.table_game_act``, as a socket's action does: the transaction,
then after the commit the frames of the table's three players and the ``group_send`` (to the
in-memory layer). Moves are chosen like the load test's players (a hint, or a pass). Prints per
action: CPU time of this process (``time.process_time``, which the machine's other work
disturbs far less than wall time), wall time, and database round trips, split into the service
and the frames. A new game starts at a table whose game ended.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from .benchmark import next_move, seated_database


class Meter:
    """CPU and wall time, and queries, of the code run inside ``measure``."""

    def __init__(self) -> None:
        self.cpu: Counter[str] = Counter()
        self.wall: Counter[str] = Counter()
        self.queries: Counter[str] = Counter()
        self.part = "service"

    def query(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any):
        self.queries[self.part] += 1
        return execute(sql, params, many, context)


def main() -> None:
    args, seated = seated_database(
        description=__doc__.splitlines()[0],
        actions=600,
        database="gandengyan_action_cost",
        prefix="cost",
    )

    from django.db import connection

    from games import frames, selectors, services
    from games.models import Table

    meter = Meter()
    render = frames.render_player_frames

    def timed_render(**kwargs: Any) -> dict[str, Any]:
        meter.part = "frames"
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            return render(**kwargs)
        finally:
            meter.cpu["frames"] += time.process_time() - cpu
            meter.wall["frames"] += time.perf_counter() - wall
            meter.part = "service"

    frames.render_player_frames = timed_render
    rng = random.Random(args.seed)
    ids = [table.table_id for table in seated]
    per_action_cpu: list[float] = []
    # Between games: CPU seconds and queries of each player's 再来一局, by its turn.
    again_cpu: dict[int, list[float]] = {0: [], 1: [], 2: []}
    again_queries: dict[int, list[int]] = {0: [], 1: [], 2: []}
    done = 0
    with connection.execute_wrapper(meter.query):
        while done < args.actions:
            table = Table.objects.select_related("room").get(pk=rng.choice(ids))
            game = selectors.table_current_game(table=table)
            if game is None or game.is_over:
                # 再来一局 from each player, in order of seats: the last one starts the game.
                players = [s.user for s in table.seats.select_related("user").order_by("position")]
                for turn, player in enumerate(p for p in players if p is not None):
                    before, frames_cpu = meter.queries.copy(), meter.cpu["frames"]
                    cpu = time.process_time()
                    services.table_play_again(user=player, table=table)
                    again_cpu[turn].append(time.process_time() - cpu)
                    meter.cpu["frames"] = frames_cpu  # counted here, not with the actions
                    again_queries[turn].append(
                        sum(meter.queries[part] - before[part] for part in ("service", "frames"))
                    )
                continue
            user, action, version = next_move(table=table, game=game, rng=rng)
            before = meter.queries.copy()
            cpu, wall = time.process_time(), time.perf_counter()
            frames_cpu = meter.cpu["frames"]
            services.table_game_act(user=user, table=table, action=action, version=version)
            spent = time.process_time() - cpu
            meter.cpu["all"] += spent
            meter.wall["all"] += time.perf_counter() - wall
            per_action_cpu.append(spent * 1000)
            meter.cpu["service"] += spent - (meter.cpu["frames"] - frames_cpu)
            for part in ("service", "frames"):
                meter.queries[part + " total"] += meter.queries[part] - before[part]
            done += 1

    print(f"{done} actions at {args.tables} tables on {args.database_url.rsplit('/', 1)[-1]}")
    print("per action          CPU ms   wall ms   queries")
    for part in ("service", "frames"):
        wall = meter.wall[part] if part == "frames" else meter.wall["all"] - meter.wall["frames"]
        print(
            f"  {part:<16} {meter.cpu[part] / done * 1000:8.2f}  {wall / done * 1000:8.2f}"
            f"  {meter.queries[part + ' total'] / done:8.2f}"
        )
    print(
        f"  {'together':<16} {meter.cpu['all'] / done * 1000:8.2f}"
        f"  {meter.wall['all'] / done * 1000:8.2f}"
    )
    print(
        f"CPU ms per action: median {statistics.median(per_action_cpu):.2f}, "
        f"p90 {statistics.quantiles(per_action_cpu, n=10)[-1]:.2f}"
    )
    games = len(again_cpu[2])
    if games:
        print(f"between games ({games} games, about {done / games:.0f} actions each):")
        for turn in (0, 1, 2):
            what = "and the new deal" if turn == 2 else ""
            cpu_ms = statistics.mean(again_cpu[turn]) * 1000
            print(
                f"  再来一局 {turn + 1} {what:<17} CPU ms {cpu_ms:6.2f}"
                f"  queries {statistics.mean(again_queries[turn]):5.1f}"
            )
        per_game = sum(statistics.mean(again_cpu[turn]) for turn in (0, 1, 2))
        print(f"  per action of play  CPU ms {per_game / (done / games) * 1000:6.2f}")


if __name__ == "__main__":
    main()
