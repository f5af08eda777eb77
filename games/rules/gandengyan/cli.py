"""干瞪眼's command line: ``python -m games.rules replay|legal|simulate``, which is also
``python -m games.rules.gandengyan``.

Output is JSON for programs. Exit status: 0 ok, 1 an action in the record is illegal, 2 the record
(or the command line) is malformed, with a message on standard error (``games.rules.cli``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from ..cli import (
    add_count_option,
    add_playout_options,
    print_report,
    record_command,
    run_checked,
)
from ..errors import RulesError
from .game import GameState
from .options import GandengyanRules
from .records import GameRecord
from .simulate import simulate

__all__ = ["main"]


def _state_json(state: GameState) -> dict[str, Any]:
    return {
        "to_move": state.to_move,
        "hands": [" ".join(str(c) for c in state.hand(seat)) for seat in range(state.players)],
        "stock": state.stock_count,
        "table": None if state.table is None else state.table.to_json(),
        "multiplier": state.multiplier,
    }


def _record(args: argparse.Namespace) -> int:
    return record_command(args.command, GameRecord.load(args.record).replay(), _state_json)


def _simulate(args: argparse.Namespace) -> int:
    try:
        rules = GandengyanRules.from_dict(_rules_json(args.rules))
    except RulesError as exc:
        print(f"bad --rules: {exc}", file=sys.stderr)
        return 2
    report = simulate(args.games, args.seed, follow20=args.follow20, rules=rules)
    return print_report(report, as_json=args.json)


def _rules_json(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RulesError(f"--rules is not JSON: {exc}") from exc


def build_parser(prog: str = "python -m games.rules") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description="The 干瞪眼 rules engine from the command line."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    replay = commands.add_parser("replay", help="replay a record and print the result as JSON")
    replay.add_argument("record", help="path to a gandengyan-record/1 JSON file")
    replay.set_defaults(run=_record)
    legal = commands.add_parser("legal", help="list the legal actions after a record's actions")
    legal.add_argument("record", help="path to a gandengyan-record/1 JSON file")
    legal.set_defaults(run=_record)
    sim = commands.add_parser("simulate", help="play random games: the engine's benchmark")
    add_playout_options(sim)
    add_count_option(
        sim,
        "--follow20",
        1000,
        "also time legal_moves() on this many 20-card following positions (1000; 0: skip)",
    )
    sim.add_argument(
        "--rules", help="house rules as a JSON object, as in a record (e.g. '{\"players\": 4}')"
    )
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.set_defaults(run=_simulate)
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m games.rules") -> int:
    args = build_parser(prog).parse_args(argv)
    return run_checked(lambda: args.run(args))
