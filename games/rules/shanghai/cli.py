"""上海斗地主's command line, reached through ``python -m games.rules`` (which reads a file's
``"format"``) or ``python -m games.rules.shanghai``.

* ``replay RECORD.json``: replay a ``shanghai-record/1`` record, print the result as JSON;
* ``legal RECORD.json``: the legal actions of the seat to move after a record's actions;
* ``legal POSITION.json``: for ``{"format": "shanghai-position/1", "hand": "...", "table":
  "...", "bombs_left": null}`` (``"table": ""`` to lead; ``"bombs_left"``: how many bombs the
  seat may still play, null or absent for no limit), every distinct play of the hand there, one
  per multiset of ranks, written as a record writes a play (the hand's lowest cards of each
  rank, with their decks), with ``"pass"`` first when following;
* ``simulate --game shanghai [--games N] [--seed S] [--json]``: random games of the play phase.

Exit status: 0 ok, 1 an action in the record is illegal, 2 the file (or the command line) is
malformed, with a message on standard error (``games.rules.cli``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from ..cli import add_playout_options, print_report, record_command, run_checked
from ..errors import NotationError, RecordError
from ..records import load_json
from .cards import format_mask, mask_of, parse_cards
from .combos import classify_mask
from .game import SEATS, GameState
from .movegen import follow_plays, lead_plays
from .records import GameRecord
from .simulate import simulate

__all__ = ["POSITION_FORMAT", "legal_position", "main"]

POSITION_FORMAT = "shanghai-position/1"


def legal_position(data: Any) -> list[str]:
    """The plays of a ``shanghai-position/1`` position (see the module's description)."""
    if not isinstance(data, dict) or data.get("format") != POSITION_FORMAT:
        raise RecordError(f'a position is a JSON object with "format": {POSITION_FORMAT!r}')
    extra = sorted(set(data) - {"format", "hand", "table", "bombs_left"})
    if extra:
        raise RecordError(f"unknown field(s) {', '.join(map(repr, extra))} in the position")
    hand_text, table_text = data.get("hand"), data.get("table", "")
    if not isinstance(hand_text, str) or not isinstance(table_text, str):
        raise RecordError('"hand" and "table" are strings of cards, like "3s.1 5h.2 5d.1"')
    bombs_left = data.get("bombs_left")
    if bombs_left is not None and (type(bombs_left) is not int or bombs_left < 0):
        raise RecordError('"bombs_left" is a whole number ≥ 0, or null for no limit')
    try:
        # Read together, so that a card the table names without its deck takes the other copy.
        cards = parse_cards(f"{hand_text} {table_text}")
    except NotationError as exc:
        raise RecordError(f"the hand and the table: {exc}") from exc
    count = len(hand_text.split())
    hand, table = mask_of(cards[:count]), mask_of(cards[count:])
    bombs = bombs_left != 0
    if not table:
        return [format_mask(play.mask) for play in lead_plays(hand, bombs=bombs)]
    combo = classify_mask(table)
    if combo is None:
        raise RecordError(f'"table": {format_mask(table)} is not a combination')
    plays = follow_plays(hand, combo, bombs=bombs)
    return ["pass", *(format_mask(play.mask) for play in plays)]


def _state_json(state: GameState) -> dict[str, Any]:
    return {
        "phase": state.phase.value,
        "to_move": state.to_move,
        "deal_number": len(state.deals),
        "landlord": state.landlord,
        "bid": state.bid,
        "hands": [format_mask(state.hands[seat]) for seat in range(SEATS)],
        "bottom": format_mask(mask_of(state.bottom)),
        "bombs_left": list(state.bombs_left),
        "table": None if state.table is None else state.table.to_json(),
    }


def run_file(command: str, path: str) -> int:
    """``replay`` or ``legal`` on a record or a position file."""
    data = load_json(path)
    if command == "legal" and isinstance(data, dict) and data.get("format") == POSITION_FORMAT:
        print(json.dumps(legal_position(data), ensure_ascii=False))
        return 0
    return record_command(command, GameRecord.from_json(data).replay(), _state_json)


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description="The 上海斗地主 rules engine from the command line."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("replay", "replay a record and print the result as JSON"),
        ("legal", "list the legal actions after a record, or the plays of a position"),
    ):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("file", help="a shanghai-record/1 (or, for legal, position) JSON file")
    sim = commands.add_parser("simulate", help="play random games: the engine's benchmark")
    sim.add_argument("--game", choices=["shanghai"], default="shanghai")
    add_playout_options(sim)
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m games.rules") -> int:
    args = build_parser(prog).parse_args(argv)
    if args.command == "simulate":
        return print_report(simulate(args.games, args.seed), as_json=args.json)
    return run_checked(lambda: run_file(args.command, args.file))
