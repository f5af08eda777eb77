"""干瞪眼's command line: ``python -m games.rules replay|legal|simulate``, which is also
``python -m games.rules.gandengyan``.

Output is JSON for programs. Exit status: 0 ok, 1 an action in the record is illegal, 2 the record
(or the command line) is malformed, with a message on standard error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import RecordError
from .game import GameState
from .moves import Play
from .records import GameRecord, ReplayResult
from .settlement import Settlement
from .simulate import simulate

__all__ = ["main"]


def _state_json(result: ReplayResult[GameState, Settlement]) -> dict[str, Any]:
    state = result.state
    return {
        "to_move": state.to_move,
        "hands": [" ".join(str(c) for c in state.hand(seat)) for seat in range(state.players)],
        "stock": state.stock_count,
        "table": None if state.table is None else state.table.to_json(),
        "multiplier": state.multiplier,
    }


def _replay(args: argparse.Namespace) -> int:
    record = GameRecord.load(args.record)
    result = record.replay()
    output = {
        "ok": result.ok,
        "applied": result.applied,
        "error": None if result.error is None else result.error.to_json(),
        "state": _state_json(result),
        "result": None if result.settlement is None else result.settlement.to_json(),
    }
    print(json.dumps(output, ensure_ascii=False))
    return 0 if result.ok else 1


def _legal(args: argparse.Namespace) -> int:
    record = GameRecord.load(args.record)
    result = record.replay()
    if result.error is not None:
        print(f"illegal action: {result.error.message} ({result.error.code})", file=sys.stderr)
        return 1
    actions: list[dict[str, Any]] = []
    for move in result.state.legal_moves():
        if isinstance(move, Play):
            assert move.combo is not None
            actions.append(
                {"play": " ".join(str(c) for c in move.cards), "as": move.combo.ranks_text()}
            )
        else:
            actions.append({"pass": True})
    print(json.dumps(actions, ensure_ascii=False))
    return 0


def _simulate(args: argparse.Namespace) -> int:
    report = simulate(args.games, args.seed, follow20=args.follow20)
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        print(report.to_text())
    return 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be zero or more")
    return value


def build_parser(prog: str = "python -m games.rules") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description="The 干瞪眼 rules engine from the command line."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    replay = commands.add_parser("replay", help="replay a record and print the result as JSON")
    replay.add_argument("record", help="path to a gandengyan-record/1 JSON file")
    replay.set_defaults(run=_replay)
    legal = commands.add_parser("legal", help="list the legal actions after a record's actions")
    legal.add_argument("record", help="path to a gandengyan-record/1 JSON file")
    legal.set_defaults(run=_legal)
    sim = commands.add_parser("simulate", help="play random games: the engine's benchmark")
    sim.add_argument("--games", type=_positive, default=1000, help="how many games (1000)")
    sim.add_argument("--seed", type=_positive, default=0, help="seed of the first game (0)")
    sim.add_argument(
        "--follow20",
        type=_positive,
        default=1000,
        help="also time legal_moves() on this many 20-card following positions (1000; 0: skip)",
    )
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.set_defaults(run=_simulate)
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m games.rules") -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args)
    except RecordError as exc:
        print(f"malformed record: {exc}", file=sys.stderr)
        return 2
    return code
