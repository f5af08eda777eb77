"""What the end of a game and the start of the next cost the server, beside its moves.

    .venv/bin/python -m benchmarks.load.boundary_cost --game doudizhu --tables 10 --rounds 3

Seats tables of the game in a fresh PostgreSQL database (``gandengyan_boundary_cost``), then
plays each table's games through the services, as a socket's action does when its move cannot
be made on the event loop: the deal's stages by the table's clock (``services.game_turn_due``),
bids and 加倍 as the first choice offered, the lead with the most cards, and a follow with the
smallest play that beats the table. After a game's last move every player says 再来一局, the
third dealing the next game. Prints, by kind, the CPU time of this process and the statements
sent: a move, the last move with the settlement and its frames, and each 再来一局; and the
actions a game lasts, so that the cost of a game's end can be read per action.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from .database import configure, migrate, recreate, seat_tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="doudizhu", choices=("gandengyan", "doudizhu"))
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3, help="games played at each table")
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/gandengyan_boundary_cost"
    )
    args = parser.parse_args()
    configure(database_url=args.database_url, secret_key="boundary-cost-" + "x" * 50)
    recreate(args.database_url)
    migrate()

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games import selectors, services
    from games.frames.render import load_fragments
    from games.models import Seat, Table
    from games.rules import Phase

    load_fragments()  # as a worker does before it serves
    seated = seat_tables(args.tables, game=args.game, prefix="boundary")
    cpu_ms: dict[str, list[float]] = defaultdict(list)
    statements: dict[str, list[int]] = defaultdict(list)
    moves_per_game: list[int] = []

    def measured(kind: str, call: Callable[..., Any], **arguments: Any) -> None:
        with CaptureQueriesContext(connection) as queries:
            started = time.process_time()
            call(**arguments)
            cpu_ms[kind].append((time.process_time() - started) * 1000)
        statements[kind].append(len(queries.captured_queries))

    for _round in range(args.rounds):
        for entry in seated:
            table = Table.objects.select_related("room").get(pk=entry.table_id)
            moves = 0
            while True:
                game = selectors.table_current_game(table=table)
                if game is None or game.is_over:
                    break
                state = selectors.game_state(game=game)
                seat = state.to_move
                if seat is None or getattr(state, "phase", None) is Phase.DEAL:
                    # The table's clock shows the deal's next stage.
                    assert game.turn_deadline is not None
                    services.game_turn_due(
                        game=game, now=game.turn_deadline + timedelta(seconds=0.01)
                    )
                    continue
                move = _scripted_move(state, seat)
                user = Seat.objects.select_related("user").get(table=table, position=seat).user
                version = selectors.table_version(table=table, game=game, events=state.log_length)
                kind = "last move" if state.apply(seat, move).is_terminal else "move"
                measured(
                    kind,
                    services.table_game_act,
                    user=user,
                    table=table,
                    action=move.to_json(),
                    version=version,
                )
                moves += 1
            moves_per_game.append(moves)
            players = [s.user for s in table.seats.select_related("user").order_by("position")]
            for turn, player in enumerate(players, start=1):
                measured(f"再来一局 {turn}", services.table_play_again, user=player, table=table)

    print(
        f"{args.game}: {len(moves_per_game)} games of {statistics.mean(moves_per_game):.0f} actions"
    )
    print("kind            count   CPU ms median   mean   statements")
    for kind in sorted(cpu_ms, key=lambda kind: (kind != "move", kind)):
        print(
            f"  {kind:<12} {len(cpu_ms[kind]):6}   {statistics.median(cpu_ms[kind]):13.2f}"
            f"  {statistics.mean(cpu_ms[kind]):6.2f}   {statistics.mean(statements[kind]):10.1f}"
        )
    between = sum(
        statistics.mean(cpu_ms[kind]) for kind in cpu_ms if kind != "move"
    ) - statistics.mean(cpu_ms["move"])
    print(
        f"a game's end beyond an ordinary move: {between:.1f} ms, "
        f"{between / statistics.mean(moves_per_game):.2f} ms per action of the game"
    )


def _scripted_move(state: Any, seat: int) -> Any:
    """The first choice offered outside the play; leading, the last play offered (the most
    cards); following, the smallest play that beats the table, else the pass."""
    from games.rules import Phase

    actions = state.legal_actions(seat)
    if getattr(state, "phase", Phase.PLAY) is not Phase.PLAY:
        return actions[0]
    moves = list(state.legal_moves())
    if state.table is None:
        return moves[-1]
    return moves[1] if len(moves) > 1 else moves[0]


if __name__ == "__main__":
    main()
