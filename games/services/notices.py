"""What the sockets of a table hear: a notice of each committed change, with the frames of its
players rendered once.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from ..models import Game, GamePlayer, Seat, Table

if TYPE_CHECKING:
    pass


logger = logging.getLogger(__name__)


def table_group_name(table_id: int) -> str:
    """The channel-layer group that hears about every change at one table: its seats, its
    status and every action of its games."""
    return f"table-{table_id}"


def broadcast_on_commit(
    *,
    table_id: int,
    message: dict[str, Any],
    frames: Callable[[], dict[str, Any]] | None = None,
) -> None:
    """Tell the table's group about a change once (and only if) the transaction commits.

    The message says what changed, and carries the frame of each player seated at the table,
    rendered once after the commit (``games.frames.render_player_frames``): each socket forwards
    its player's frame instead of reading and rendering the table itself. ``frames`` renders
    them from what the caller has read already (a move); by default the table is read anew. A
    socket that cannot use them (a spectator, another language) renders its own view."""

    def send() -> None:
        from ..frames import frames_of_table  # presentation: needed only after a commit

        layer = get_channel_layer()
        if layer is None:
            return
        payload = table_notice(
            table_id=table_id,
            message=message,
            frames=frames or functools.partial(frames_of_table, table_id=table_id),
        )
        collected = getattr(_notices, "collected", None)
        if collected is not None:
            collected.append((table_group_name(table_id), payload))
            return
        try:
            async_to_sync(layer.group_send)(table_group_name(table_id), payload)
        except Exception:  # the change is committed; a lost notice must not undo it
            logger.exception("could not broadcast an update of table %s", table_id)

    transaction.on_commit(send)


def table_message_on_commit(*, table_id: int, message: dict[str, Any]) -> None:
    """Send ``message`` as it is to the table's group once the transaction commits: a change
    that leaves the table's frames alone (a quick phrase)."""

    def send() -> None:
        collected = getattr(_notices, "collected", None)
        if collected is not None:
            collected.append((table_group_name(table_id), message))
            return
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            async_to_sync(layer.group_send)(table_group_name(table_id), message)
        except Exception:  # the message is stored; a lost broadcast must not undo it
            logger.exception("could not send a message to table %s", table_id)

    transaction.on_commit(send)


def table_notice(
    *, table_id: int, message: dict[str, Any], frames: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """The table group's message about a committed change: ``message`` and the players' frames
    (without them, when they could not be rendered: the sockets then render their own)."""
    payload = {"type": "table.update", "table": table_id, **message}
    try:
        payload.update(frames())
    except Exception:  # the sockets render for themselves instead
        logger.exception("could not render the frames of table %s", table_id)
    return payload


_notices = threading.local()


@contextmanager
def notices_collected() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Collect, instead of sending, the notices of the changes committed in this block on this
    thread, as ``(group, message)``: for a caller on the event loop's side (a socket), which
    sends them itself once the call is back, rather than have this thread wait for the loop."""
    outer = getattr(_notices, "collected", None)
    collected: list[tuple[str, dict[str, Any]]] = []
    _notices.collected = collected
    try:
        yield collected
    finally:
        _notices.collected = outer


def table_broadcast_on_commit(
    *, table: Table, kind: str, seats: list[Seat] | None = None, last: Game | None = None
) -> None:
    """Tell the table's group that ``kind`` changed. ``seats``: the table's seats with their
    users as the change leaves them, and ``last``, its latest game (not being played), for the
    frames, which then read only that game's players and the balances."""
    broadcast_on_commit(
        table_id=table.pk,
        message={"kind": kind, "version": table.version},
        frames=frames_from_rows(table=table, seats=seats, last=last),
    )


def frames_from_rows(
    *,
    table: Table,
    seats: list[Seat] | None,
    last: Game | None,
    players: dict[int, GamePlayer] | None = None,
    balances: dict[int, int] | None = None,
) -> Callable[[], dict[str, Any]] | None:
    """The players' frames after a change, from ``table``, its ``seats`` (with their users, by
    position) and its latest game ``last`` as the change left them, and that game's ``players``
    and the ``balances`` when the change wrote them (``selectors.table_rows``); None without the
    seats (the frames then read the table anew)."""
    if seats is None:
        return None
    from ..frames import frames_of_table  # presentation: needed only after a commit

    return functools.partial(
        frames_of_table, table=table, seats=seats, last=last, players=players, balances=balances
    )
