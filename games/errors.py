"""The refusals of the games' services: each says what was refused, with a stable code."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass


class GameStartRefused(Exception):
    """A game cannot start as asked; nothing was written. ``code`` is stable, for programs."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class GameActionRefused(Exception):
    """An action that is not allowed now; nothing was written.

    ``code`` is the engine's stable code (``not_your_turn``, ``does_not_beat``, ``game_over`` ...),
    or ``bad_action`` for an action that is not written as ``{"play": ..., "as": ...}`` or
    ``{"pass": true}``. ``message`` is the engine's message. ``choices`` lists the meanings to
    choose from when the code is ``choose_meaning``.
    """

    def __init__(self, code: str, message: str, choices: Sequence[str] = ()) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.choices = tuple(choices)

    def __reduce__(self) -> tuple[Any, ...]:
        # Whole across processes (``games.service_processes``), not only its text.
        return (type(self), (self.code, self.message, self.choices))


class DisputeRefused(Exception):
    """A dispute cannot be opened or closed as asked; nothing was written.

    ``code`` is stable, for programs; ``message`` is for people, in the active language.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class TableRefused(Exception):
    """A table action that is not allowed now; nothing was written.

    ``code`` is stable, for programs: ``room_closed``, ``no_wallet``, ``balance_too_low``,
    ``balance_too_high``, ``playing_elsewhere``, ``bad_invite``, ``table_closed``, ``table_full``,
    ``not_seated``, ``game_in_progress``, ``bad_rules``. ``message`` is for people, in the
    active language.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.code, self.message))


class ChatRefused(Exception):
    """A quick phrase, a mute or a report that is not allowed; nothing was written.

    ``code`` is stable, for programs: ``unknown_phrase``, ``not_seated``, ``chat_too_fast``,
    ``chat_banned``, ``bad_player``, ``bad_reason``, ``text_too_long``, ``already_reported``,
    ``not_staff``, ``not_open``. ``message`` is for people, in the active language.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
