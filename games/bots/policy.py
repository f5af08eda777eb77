"""What a bot is, and the one call the server makes to ask it for a move.

A bot is a *policy*: given what its seat may see and the moves it may make, it picks one. It never
gets the ``GameState``, only ``state.view_for(seat)`` (its own hand, the others' card counts, the
stock count, the table, the public history) and ``state.legal_moves()``, so it cannot look at
another hand or at the order of the stock.

>>> from games.rules.gandengyan import GameState
>>> from games.bots import GreedyPolicy
>>> state = GameState.from_position(["3s 4h 5d 9c", "6s 7s", "Qs Kd"], stock="", dealer=0)
>>> str(choose_for(state, GreedyPolicy()))
'3s'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from games.rules.errors import IllegalMoveError
from games.rules.gandengyan import GameState
from games.rules.gandengyan.moves import Move

__all__ = ["Policy", "choose_for"]


@runtime_checkable
class Policy(Protocol):
    """A way of choosing a move from a seat's view and its legal moves.

    ``state_view`` is the JSON-safe dict of ``GameState.view_for(seat)``; ``legal`` is
    ``legal_moves()`` in the engine's order, never empty. ``choose`` returns one of ``legal``.
    """

    name: str

    def choose(self, state_view: dict[str, Any], legal: Sequence[Move]) -> Move: ...


def choose_for(state: GameState, policy: Policy) -> Move:
    """Ask ``policy`` for the move of the player to move in ``state``.

    The policy is shown only that seat's view and the legal moves. The answer is checked: a move
    that is not one of the legal moves raises ``IllegalMoveError`` (code ``bot_illegal_move``), and
    a finished game raises it with code ``game_over``.
    """
    seat = state.to_move
    if seat is None:
        raise IllegalMoveError("game_over", "the game is over: there is no move to choose")
    legal = tuple(state.legal_moves())
    move = policy.choose(state.view_for(seat), legal)
    if move not in legal:
        raise IllegalMoveError(
            "bot_illegal_move", f"the {policy.name} bot chose {move!s}, which is not a legal move"
        )
    return move
