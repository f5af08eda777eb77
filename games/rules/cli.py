"""What every game's command line shares: ``replay``, ``legal`` and ``simulate`` alike.

``python -m games.rules`` hands a command line to the game it is for (``choose_game``: the format
of the record it names, or ``simulate --game``); ``python -m games.rules.<game>`` runs that game's
own. Output is JSON for programs (``simulate`` without ``--json`` prints lines for people). Exit
status: 0 ok, 1 an action in the record is illegal, 2 the record (or the command line) is
malformed, with a message on standard error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any, NoReturn, Protocol, TypeVar

from .errors import RecordError
from .protocol import GameStateProtocol, ReplayOutcome

__all__ = [
    "add_count_option",
    "add_playout_options",
    "choose_game",
    "print_report",
    "record_command",
    "run_checked",
    "run_module",
]

StateT = TypeVar("StateT", bound=GameStateProtocol[Any])


class _Report(Protocol):
    def to_json(self) -> dict[str, Any]: ...

    def to_text(self) -> str: ...


def add_count_option(parser: argparse.ArgumentParser, flag: str, default: int, help: str) -> None:
    """An option that takes a whole number ≥ 0."""
    parser.add_argument(flag, type=_positive, default=default, help=help)


def add_playout_options(parser: argparse.ArgumentParser) -> None:
    """``simulate``'s ``--games`` and ``--seed``."""
    add_count_option(parser, "--games", 1000, "how many games (1000)")
    add_count_option(parser, "--seed", 0, "seed of the first game (0)")


def _positive(text: str) -> int:
    # argparse names the function in its message: "invalid _positive value: 'x'".
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be zero or more")
    return value


def record_command(
    command: str,
    result: ReplayOutcome[StateT],
    state_json: Callable[[StateT], dict[str, Any]],
) -> int:
    """Print what ``replay`` or ``legal`` says of a replayed record.

    ``replay``: ``{"ok", "applied", "error", "state", "result"}``, ``state`` as ``state_json``
    writes it; status 1 when an action was illegal. ``legal``: the legal actions of the seat to
    move after the record's actions (none once the game is over), or, when an action was
    illegal, a message on standard error and status 1."""
    if command == "replay":
        output = {
            "ok": result.ok,
            "applied": result.applied,
            "error": None if result.error is None else result.error.to_json(),
            "state": state_json(result.state),
            "result": None if result.settlement is None else result.settlement.to_json(),
        }
        print(json.dumps(output, ensure_ascii=False))
        return 0 if result.ok else 1
    if result.error is not None:
        print(f"illegal action: {result.error.message} ({result.error.code})", file=sys.stderr)
        return 1
    state = result.state
    actions = [] if state.to_move is None else state.legal_actions(state.to_move)
    print(json.dumps([action.to_json() for action in actions], ensure_ascii=False))
    return 0


def print_report(report: _Report, *, as_json: bool) -> int:
    """Print a ``simulate`` report: one JSON object, or lines of text."""
    print(json.dumps(report.to_json()) if as_json else report.to_text())
    return 0


def run_checked(command: Callable[[], int]) -> int:
    """Run a command; a malformed record is status 2, with a message on standard error."""
    try:
        return command()
    except RecordError as exc:
        print(f"malformed record: {exc}", file=sys.stderr)
        return 2


def run_module(main: Callable[[], int]) -> NoReturn:
    """Exit with the status of ``main``, run as a program (a ``__main__`` module)."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (e.g. piped into head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    sys.exit(status)


def choose_game(argv: Sequence[str], games: Collection[str], default: str) -> tuple[str, list[str]]:
    """The game a ``python -m games.rules`` command line is for, and the command line to give
    it. ``simulate --game KEY`` (or ``--game=KEY``) names its game; ``replay``/``legal`` a JSON
    file whose ``"format"`` begins with the key (``"doudizhu-record/1"``). Anything else is for
    the ``default`` game, which reports what it cannot read as it always has; its ``simulate``
    knows no ``--game``, so a ``--game`` naming it is taken out."""
    args = list(argv)
    if args[:1] == ["simulate"]:
        named = [b for a, b in zip(args, args[1:], strict=False) if a == "--game"]
        named += [a.removeprefix("--game=") for a in args if a.startswith("--game=")]
        for game in games:
            if game != default and game in named:
                return game, args
        for at, arg in enumerate(args):
            if arg == f"--game={default}":
                return default, args[:at] + args[at + 1 :]
            if arg == "--game" and args[at + 1 : at + 2] == [default]:
                return default, args[:at] + args[at + 2 :]
        return default, args
    if args[:1] in (["replay"], ["legal"]) and len(args) == 2:
        try:
            data = json.loads(Path(args[1]).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return default, args
        fmt = data.get("format") if isinstance(data, dict) else None
        for game in games:
            if isinstance(fmt, str) and fmt.startswith(f"{game}-"):
                return game, args
    return default, args
