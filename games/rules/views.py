"""What the games' views share: the part every viewer of a position sees alike.

A seat's view is the public part of its position plus the seat's own cards. A table shows one
position to each of its viewers in turn, so the public part of the last position asked for is
kept: positions are immutable, so the same object has the same public part. Its lists and dicts
are shared by the views made from it and are not to be changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["seat_view"]

#: The last position asked for, whether with its history, and its public part.
_last: tuple[object, bool, dict[str, Any]] = (None, False, {})


def seat_view(
    state: object,
    seat: int | None,
    *,
    history: bool,
    public: Callable[[bool], dict[str, Any]],
    hand: Callable[[int], list[str]],
) -> dict[str, Any]:
    """``seat``'s view of ``state`` (None: a spectator's): ``{"seat": seat}``, then what
    ``public(history)`` makes, then ``"hand"``, the seat's own cards (``hand(seat)``)."""
    global _last
    last = _last  # one read: another thread may replace it meanwhile
    if last[0] is state and last[1] == history:
        shared = last[2]
    else:
        shared = public(history)
        _last = (state, history, shared)
    view = {"seat": seat, **shared}
    if seat is not None:
        view["hand"] = hand(seat)
    return view
