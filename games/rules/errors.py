"""The engines' errors, shared by every game. Bad notation, an illegal action, a malformed record
and unknown options are told apart."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["AmbiguousPlayError", "IllegalMoveError", "NotationError", "RecordError", "RulesError"]


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

    def __reduce__(self) -> tuple[type[IllegalMoveError], tuple[str, str]]:
        # Pickled with both arguments, so that it crosses to another process (games.thinking).
        return (type(self), (self.code, self.message))

    @classmethod
    def out_of_turn(cls, seat: object, to_move: int | None) -> IllegalMoveError:
        """The error for ``seat`` acting while ``to_move`` is to move: ``game_over`` when no one
        is (the game is over), else ``not_your_turn``. Every game words them alike."""
        if to_move is None:
            return cls("game_over", "the game is over: no more actions")
        return cls("not_your_turn", f"seat {seat} acted, but it is seat {to_move}'s turn")


class AmbiguousPlayError(IllegalMoveError):
    """A play whose cards can mean more than one legal combination, made without saying which.

    Raised only where the caller asks for it (``resolve(seat, move, strict=True)``): the rules
    themselves pick a default meaning. ``meanings`` lists the legal ones in the game's notation
    (``"4 5 6"``), in the engine's order, for the player to choose from. The code is
    ``choose_meaning``.
    """

    def __init__(self, message: str, meanings: Sequence[str]) -> None:
        super().__init__("choose_meaning", message)
        self.meanings = tuple(meanings)

    def __reduce__(self) -> tuple[type[AmbiguousPlayError], tuple[str, tuple[str, ...]]]:  # type: ignore[override]
        return (type(self), (self.message, self.meanings))


class RecordError(ValueError):
    """A game record that cannot be read: wrong shape, bad notation, impossible cards."""


class RulesError(ValueError):
    """Options that do not exist, have the wrong type, or cannot be played yet."""
