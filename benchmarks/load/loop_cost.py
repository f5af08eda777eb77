"""What a move made on the event loop (``games.loop_moves``) costs the worker, without sockets.

    .venv/bin/python -m benchmarks.load.loop_cost --actions 3000

Seats tables in a fresh PostgreSQL database (``gandengyan_loop_cost``), then makes moves one
after another through ``loop_moves.table_move`` on one event loop, as a socket does, and prints
the CPU time of this process per move made on the loop (``time.process_time``), split into the
move (its two round trips, the checks and the rows) and the players' frames after it, and the CPU
time of the PostgreSQL backends of the loop's connections per move (from ``/proc``, so on this
machine only: PostgreSQL runs here). A move the
loop leaves to the services (the last of a game, a refused one) is made through
``services.table_game_act`` and not counted; a new game starts at a table whose game ended.
Compare variants of the code within one run of this machine, not with older figures.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import time
from typing import Any

from .benchmark import next_move, seated_database


def main() -> None:
    args, seated = seated_database(
        description=__doc__.splitlines()[0],
        actions=3000,
        database="gandengyan_loop_cost",
        prefix="loop",
    )

    from games import loop_moves, selectors, services
    from games.models import Table

    frames_cpu = [0.0]
    render = loop_moves.render_player_frames

    def timed_render(**kwargs: Any) -> dict[str, Any]:
        cpu = time.process_time()
        try:
            return render(**kwargs)
        finally:
            frames_cpu[0] += time.process_time() - cpu

    loop_moves.render_player_frames = timed_render  # type: ignore[assignment]
    loop = asyncio.new_event_loop()
    rng = random.Random(args.seed)
    ids = [table.table_id for table in seated]
    moves: list[float] = []
    frames: list[float] = []
    services_made = 0
    while len(moves) + services_made < args.actions:
        table = Table.objects.select_related("room").get(pk=rng.choice(ids))
        game = selectors.table_current_game(table=table)
        if game is None or game.is_over:
            for seat in table.seats.select_related("user").order_by("position"):
                services.table_play_again(user=seat.user, table=table)
            continue
        user, action, version = next_move(table=table, game=game, rng=rng)
        action_id = f"loop-{len(moves) + services_made:08d}"
        frames_cpu[0] = 0.0
        cpu = time.process_time()
        made = loop.run_until_complete(
            loop_moves.table_move(
                user=user, table_id=table.pk, action=action, version=version, action_id=action_id
            )
        )
        spent = time.process_time() - cpu
        if made is None:
            services.table_game_act(
                user=user, table=table, action=action, version=version, action_id=action_id
            )
            services_made += 1
            continue
        moves.append((spent - frames_cpu[0]) * 1000)
        frames.append(frames_cpu[0] * 1000)

    print(f"{len(moves)} moves on the loop, {services_made} through the services")
    print("CPU ms per move on the loop   mean  median")
    together = [move + frame for move, frame in zip(moves, frames, strict=True)]
    for name, values in (("the move", moves), ("the frames", frames), ("together", together)):
        print(f"  {name:<26} {statistics.mean(values):5.2f}  {statistics.median(values):6.2f}")
    backends = [conn.info.backend_pid for conn in loop_moves.idle_connections(loop)]
    database_ms = sum(_cpu_ms(pid) for pid in backends)
    print(
        f"  PostgreSQL (its {len(backends)} backend(s)) {database_ms / len(moves):5.2f}"
        "  (total over the moves, from the backends' start)"
    )


def _cpu_ms(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far, in ms (``/proc/<pid>/stat``)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()
