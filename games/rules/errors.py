"""The engines' errors, shared by every game. Bad notation, an illegal action, a malformed record
and unknown options are told apart."""

from __future__ import annotations

__all__ = ["IllegalMoveError", "NotationError", "RecordError", "RulesError"]


class NotationError(ValueError):
    """Text that is not valid card, rank or move notation."""


class IllegalMoveError(ValueError):
    """A well-formed action that the rules do not allow in the current position.

    ``code`` is stable and meant for programs; the message is for people.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class RecordError(ValueError):
    """A game record that cannot be read: wrong shape, bad notation, impossible cards."""


class RulesError(ValueError):
    """Options that do not exist, have the wrong type, or cannot be played yet."""
