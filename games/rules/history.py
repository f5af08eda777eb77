"""A game's actions so far, as its states keep them: a persistent linked list, newest first.

A state holds the newest node, ``(previous node or None, seat, action)``: ``apply`` adds one in
O(1) and shares every older node with the state before it. ``unwind`` lists the actions when
they are asked for.

>>> log = None
>>> for seat, action in [(0, "a"), (1, "b"), (2, "c")]:
...     log = (log, seat, action)
>>> unwind(log)
((0, 'a'), (1, 'b'), (2, 'c'))
>>> unwind(log, 2)
((1, 'b'), (2, 'c'))
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["LogNode", "unwind"]

ActionT = TypeVar("ActionT")

LogNode = tuple[Any, int, ActionT]  # (previous node or None, seat, action)


def unwind(
    log: LogNode[ActionT] | None, count: int | None = None
) -> tuple[tuple[int, ActionT], ...]:
    """The actions of ``log`` as (seat, action), oldest first: all of them, or only the newest
    ``count``, read without walking the rest."""
    actions: list[tuple[int, ActionT]] = []
    node = log
    while node is not None and len(actions) != count:
        node, seat, action = node
        actions.append((seat, action))
    actions.reverse()
    return tuple(actions)
