"""What the benchmarks without sockets (``action_cost``, ``loop_cost``) share: their options, a
fresh database with its tables seated, and the next move at a table, chosen as the load test's
players choose one (a hint, now and then another play, or a pass)."""

from __future__ import annotations

import argparse
import random
from typing import Any

from .database import SeatedTable, configure, migrate, recreate, seat_tables


def seated_database(
    *, description: str, actions: int, database: str, prefix: str
) -> tuple[argparse.Namespace, list[SeatedTable]]:
    """Parse the benchmark's options, then set Django up on a fresh PostgreSQL database
    (``database``, unless ``--database-url`` names another) with its tables seated."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--actions", type=int, default=actions)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", default=f"postgres://postgres@127.0.0.1:5432/{database}")
    args = parser.parse_args()
    configure(database_url=args.database_url, secret_key=f"{prefix}-cost-" + "x" * 50)
    recreate(args.database_url)
    migrate()
    return args, seat_tables(args.tables, prefix=prefix)


def next_move(*, table: Any, game: Any, rng: random.Random) -> tuple[Any, dict[str, Any], str]:
    """The player to move in ``game`` (being played at ``table``), the move and the table's
    version it is chosen on."""
    from games import selectors
    from games.models import Seat
    from games.presentation.gandengyan import play_hints

    state = selectors.game_state(game=game)
    seat = Seat.objects.select_related("user").get(table=table, position=state.to_move)
    version = selectors.table_version(table=table, game=game, events=state.log_length)
    hints = play_hints(state)
    if hints and (rng.random() > 0.15 or state.table is None):
        hint = hints[0] if rng.random() < 0.75 else rng.choice(hints)
        return seat.user, {"play": hint["cards"], "as": hint["as"]}, version
    return seat.user, {"pass": True}, version
