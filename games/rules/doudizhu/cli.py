"""斗地主's command line, reached through ``python -m games.rules`` (which reads a file's
``"format"``) or ``python -m games.rules.doudizhu``.

* ``replay RECORD.json``: replay a ``doudizhu-record/1`` record, print the result as JSON;
* ``legal RECORD.json``: the legal actions of the seat to move after a record's actions;
* ``legal POSITION.json``: for ``{"format": "doudizhu-position/1", "hand": "...", "table":
  "..."}`` (``"table": ""`` to lead), every distinct play of the hand there, one per multiset of
  ranks, written as a record writes a play (the hand's lowest suits of each rank), with
  ``"pass"`` first when following;
* ``simulate [--games N] [--seed S] [--json]``: random games of the play phase.

Exit status: 0 ok, 1 an action in the record is illegal, 2 the file (or the command line) is
malformed, with a message on standard error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..cards import format_cards, mask_of, parse_cards
from ..errors import NotationError, RecordError
from ..records import load_json
from .combos import classify, counts_of_cards
from .game import GameState
from .movegen import follow_plays, lead_plays
from .records import GameRecord, ReplayResult
from .settlement import Settlement
from .simulate import simulate

__all__ = ["POSITION_FORMAT", "legal_position", "main"]

POSITION_FORMAT = "doudizhu-position/1"


def legal_position(data: Any) -> list[str]:
    """The plays of a ``doudizhu-position/1`` position (see the module's description)."""
    if not isinstance(data, dict) or data.get("format") != POSITION_FORMAT:
        raise RecordError(f'a position is a JSON object with "format": {POSITION_FORMAT!r}')
    extra = sorted(set(data) - {"format", "hand", "table"})
    if extra:
        raise RecordError(f"unknown field(s) {', '.join(map(repr, extra))} in the position")
    hand_text, table_text = data.get("hand"), data.get("table", "")
    if not isinstance(hand_text, str) or not isinstance(table_text, str):
        raise RecordError('"hand" and "table" are strings of cards, like "3s 5h 5d"')
    try:
        hand = parse_cards(hand_text)
        table = parse_cards(table_text)
    except NotationError as exc:
        raise RecordError(str(exc)) from exc
    if mask_of(hand) & mask_of(table):
        raise RecordError("a card of the table is in the hand: one deck only")
    if not table:
        return [format_cards(play.cards) for play in lead_plays(mask_of(hand))]
    combo = classify(counts_of_cards(table))
    if combo is None:
        raise RecordError(f'"table": {format_cards(table)} is not a combination')
    plays = follow_plays(mask_of(hand), combo)
    return ["pass", *(format_cards(play.cards) for play in plays)]


def _state_json(state: GameState) -> dict[str, Any]:
    return {
        "phase": state.phase.value,
        "to_move": state.to_move,
        "deal_number": len(state.deals),
        "landlord": state.landlord,
        "hands": [format_cards(state.hand(seat)) for seat in range(3)],
        "bottom": format_cards(state.bottom),
        "table": None if state.table is None else state.table.to_json(),
        "multiplier": state.multiplier,
    }


def _replay_json(result: ReplayResult[GameState, Settlement]) -> dict[str, Any]:
    return {
        "ok": result.ok,
        "applied": result.applied,
        "error": None if result.error is None else result.error.to_json(),
        "state": _state_json(result.state),
        "result": None if result.settlement is None else result.settlement.to_json(),
    }


def run_file(command: str, path: str) -> int:
    """``replay`` or ``legal`` on a record or a position file."""
    data = load_json(path)
    if command == "legal" and isinstance(data, dict) and data.get("format") == POSITION_FORMAT:
        print(json.dumps(legal_position(data), ensure_ascii=False))
        return 0
    result = GameRecord.from_json(data).replay()
    if command == "replay":
        print(json.dumps(_replay_json(result), ensure_ascii=False))
        return 0 if result.ok else 1
    if result.error is not None:
        print(f"illegal action: {result.error.message} ({result.error.code})", file=sys.stderr)
        return 1
    state = result.state
    actions = [] if state.to_move is None else state.legal_actions(state.to_move)
    print(json.dumps([action.to_json() for action in actions], ensure_ascii=False))
    return 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be zero or more")
    return value


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description="The 斗地主 rules engine from the command line."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("replay", "replay a record and print the result as JSON"),
        ("legal", "list the legal actions after a record, or the plays of a position"),
    ):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("file", help="a doudizhu-record/1 (or, for legal, position) JSON file")
    sim = commands.add_parser("simulate", help="play random games: the engine's benchmark")
    sim.add_argument("--game", choices=["doudizhu"], default="doudizhu")
    sim.add_argument("--games", type=_positive, default=1000, help="how many games (1000)")
    sim.add_argument("--seed", type=_positive, default=0, help="seed of the first game (0)")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m games.rules") -> int:
    args = build_parser(prog).parse_args(argv)
    try:
        if args.command == "simulate":
            report = simulate(args.games, args.seed)
            print(json.dumps(report.to_json()) if args.json else report.to_text())
            return 0
        return run_file(args.command, args.file)
    except RecordError as exc:
        print(f"malformed record: {exc}", file=sys.stderr)
        return 2


def wants(argv: Sequence[str]) -> bool:
    """Whether a ``python -m games.rules`` command line is for 斗地主: ``simulate --game
    doudizhu``, or ``replay``/``legal`` on a JSON file whose ``"format"`` is 斗地主's."""
    args = list(argv)
    if not args:
        return False
    if args[0] == "simulate":
        return "--game=doudizhu" in args or any(
            a == "--game" and b == "doudizhu" for a, b in zip(args, args[1:], strict=False)
        )
    if args[0] not in ("replay", "legal") or len(args) != 2:
        return False
    try:
        data = json.loads(Path(args[1]).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False  # the 干瞪眼 command line reports it as it always has
    fmt = data.get("format") if isinstance(data, dict) else None
    return isinstance(fmt, str) and fmt.startswith("doudizhu-")
