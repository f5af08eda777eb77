"""Replaying a game's actions from its deal, the same way for every game's records.

The actions are applied in order, each by the seat that made it (``apply(seat, action)`` checks
the turn); the first illegal one stops the replay, and everything before it counts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from .errors import IllegalMoveError
from .protocol import GameStateProtocol

__all__ = ["ReplayError", "ReplayResult", "replay_actions"]

StateT = TypeVar("StateT", bound=GameStateProtocol[Any])
SettlementT = TypeVar("SettlementT")
ActionT = TypeVar("ActionT")


@dataclasses.dataclass(frozen=True, slots=True)
class ReplayError:
    """The first illegal action: its index among the actions, the engine's code, a message."""

    index: int
    code: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "code": self.code, "message": self.message}


@dataclasses.dataclass(frozen=True, slots=True)
class ReplayResult(Generic[StateT, SettlementT]):
    """How far a record replays: the state after every legal action, and the first illegal one."""

    applied: int
    error: ReplayError | None
    state: StateT
    settlement: SettlementT | None

    @property
    def ok(self) -> bool:
        return self.error is None


def replay_actions(
    state: StateT,
    actions: Iterable[tuple[int, ActionT]],
    settle: Callable[[StateT], SettlementT],
) -> ReplayResult[StateT, SettlementT]:
    """Apply ``(seat, action)`` pairs to ``state`` in order, stopping at the first illegal one;
    a finished game is settled with ``settle`` when every action was legal."""
    applied = 0
    for index, (seat, action) in enumerate(actions):
        try:
            if state.to_move is None:
                raise IllegalMoveError("game_over", "the game is already over")
            state = state.apply(seat, action)
        except IllegalMoveError as exc:
            error = ReplayError(index, exc.code, f"action {index}: {exc.message}")
            return ReplayResult(index, error, state, None)
        applied += 1
    return ReplayResult(applied, None, state, settle(state) if state.is_terminal else None)
