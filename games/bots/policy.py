"""What a bot is, and the one call the server makes to ask it for a move.

A bot is a *policy* (``Policy``, from ``games.rules.protocol``): given what its seat may see and
the actions it may make, it picks one. It never gets the state, only ``state.view(seat)`` (for
干瞪眼: its own hand, the others' card counts, the stock count, the table, the public history)
and ``state.legal_actions(seat)``, so it cannot look at another hand or at the order of the
stock. ``choose_for`` works the same for every game's states; each game's ``ENGINE.bot_policy()``
names its bot.

>>> from games.rules.gandengyan import GameState
>>> from games.bots import GreedyPolicy
>>> state = GameState.from_position(["3s 4h 5d 9c", "6s 7s", "Qs Kd"], stock="", dealer=0)
>>> str(choose_for(state, GreedyPolicy()))
'3s'
"""

from __future__ import annotations

from typing import TypeVar

from games.rules.errors import IllegalMoveError
from games.rules.protocol import GameStateProtocol, Policy

__all__ = ["Policy", "choose_for"]

ActionT = TypeVar("ActionT")


def choose_for(state: GameStateProtocol[ActionT], policy: Policy[ActionT]) -> ActionT:
    """Ask ``policy`` for the action of the seat to move in ``state``.

    The policy is shown only that seat's view and its legal actions. The answer is checked: an
    action that is not one of them raises ``IllegalMoveError`` (code ``bot_illegal_move``), and
    a finished game raises it with code ``game_over``.
    """
    seat = state.to_move
    if seat is None:
        raise IllegalMoveError("game_over", "the game is over: there is no move to choose")
    legal = tuple(state.legal_actions(seat))
    move = policy.choose(state.view(seat), legal)
    if move not in legal:
        raise IllegalMoveError(
            "bot_illegal_move", f"the {policy.name} bot chose {move!s}, which is not a legal move"
        )
    return move
