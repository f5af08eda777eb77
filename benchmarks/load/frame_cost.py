"""What the players' frames of one change cost the worker, without sockets or a database round trip.

    .venv/bin/python -m benchmarks.load.frame_cost --tables 20 --moves 40

Seats tables of each game in a fresh PostgreSQL database (``gandengyan_frame_cost``), reads
each table's rows and position once, then plays each game on in the engine alone (the deal's
stages, then seeded random legal actions) and renders ``render_player_frames`` of every position
it passes, the tables taken in turn as a worker meets them. Prints the CPU time per change (three
frames): the first pass over the positions, as a worker renders them, and the median of five
more, with the kept parts (seats, hands, the counter) warm. The Hint button's choices are made
beforehand, as a worker's thinking process makes them before the frames. The frames are
rendered from the rows as the table was seated; no statement is sent while they are (checked).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from typing import Any

from .database import configure, migrate, recreate, seat_tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="gandengyan,doudizhu")
    parser.add_argument("--tables", type=int, default=20, help="tables of each game")
    parser.add_argument("--moves", type=int, default=40, help="positions of each table")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/gandengyan_frame_cost"
    )
    args = parser.parse_args()
    # The Hint button's choice is made here, before the timing, as a worker's thinking process
    # makes it before the frames (games.thinking.prepare_hint).
    os.environ["THINKING_PROCESSES"] = "0"
    configure(database_url=args.database_url, secret_key="frame-cost-" + "x" * 50)
    recreate(args.database_url)
    migrate()

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.engines import engine_for
    from games.frames import render_player_frames
    from games.frames.render import load_fragments
    from games.models import Table
    from games.rules.simulate import positions_played_on
    from games.selectors import game_state, table_rows
    from games.thinking import hint_choice

    load_fragments()  # as a worker does before it serves
    rng = random.Random(args.seed)
    print("CPU ms per change (three frames)   first pass   warm (median of 5)")
    for game in args.games.split(","):
        seated = seat_tables(args.tables, game=game, prefix=f"frames-{game}")
        changes: list[list[tuple[Table, Any, Any]]] = []
        for entry in seated:
            table = Table.objects.select_related("room").get(pk=entry.table_id)
            rows = table_rows(table=table)
            assert rows.game is not None
            positions = positions_played_on(
                engine_for(game), game_state(game=rows.game), args.moves, rng
            )
            for state in positions:
                if state.to_move is not None and not state.is_terminal:
                    hint_choice(engine_for(game), state)
            changes.append([(table, rows, state) for state in positions])
        # A worker meets the tables' changes one table after another, not a game at a time.
        interleaved = [
            table_changes[turn]
            for turn in range(max(len(table_changes) for table_changes in changes))
            for table_changes in changes
            if turn < len(table_changes)
        ]
        with CaptureQueriesContext(connection) as queries:
            first = _render_all(interleaved, render_player_frames)
            warm = statistics.median(
                _render_all(interleaved, render_player_frames) for _ in range(5)
            )
        assert not queries.captured_queries, "the frames read the database"
        print(f"  {game:<12} {len(interleaved):5} changes   {first:10.3f}   {warm:10.3f}")


def _render_all(changes: list[tuple[Any, Any, Any]], render: Any) -> float:
    """CPU ms per change of rendering the frames of every change in turn."""
    started = time.process_time()
    for table, rows, state in changes:
        render(table=table, rows=rows, state=state)
    return (time.process_time() - started) * 1000 / len(changes)


if __name__ == "__main__":
    main()
