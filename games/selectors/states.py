"""A game's position: its deal and its stored events replayed by the engine, starting from what
this process knows of the game's table (``games.positions``) when that is still the stored game's.
"""

from __future__ import annotations

import copy
from typing import Any

from games.rules import IllegalMoveError, NotationError

from .. import positions
from ..engines import engine_for
from ..models import Game, GameEvent, GamePlayer, Seat, Table
from ..positions import KnownGame


def game_events(game: Game) -> list[tuple[int, dict[str, Any]]]:
    return list(game.events.order_by("number").values_list("seat", "action"))


def game_deal(*, game: Game) -> dict[str, Any]:
    """The game's deal as its row keeps it, in the shape ``deal_to_json`` wrote it."""
    return {"dealer": game.dealer, "hands": game.hands, "stock": game.stock, **game.deal}


def game_initial_state(*, game: Game) -> Any:
    """The position at the deal, as the game's row keeps it."""
    engine = engine_for(game.game)
    return engine.deal_from_json(game_deal(game=game), engine.options_from_json(game.rules))


def game_state(*, game: Game) -> Any:
    """The engine's position after the game's stored events.

    The position this process keeps when ``game``'s row names it (``games.positions``);
    otherwise the kept position of the game, when the event it was built up to is still stored
    unchanged, with the events after it applied, or the game replayed from the deal. Raises
    ``ValueError`` if a stored event does not replay, which only corrupt data can cause.
    """
    kept = game_state_kept(game=game)
    if kept is not None:
        return kept
    since = game_events_wanted(game=game)
    replayed = game_state_after(game=game, events=_events_since(game, since), since=since)
    if replayed is None:  # the known position is not the stored game's any more
        replayed = game_state_after(game=game, events=_events_since(game, 0), since=0)
    assert replayed is not None
    state, last_event = replayed
    # The events were read after the row: the position is the one the row names. A copy of
    # the row: the caller may go on changing its own.
    positions.remember_read(KnownGame(game=copy.copy(game), state=state, last_event=last_event))
    return state


def _events_since(game: Game, number: int) -> list[tuple[int, int, Any]]:
    return list(
        game.events.filter(number__gte=number)
        .order_by("number")
        .values_list("id", "seat", "action")
    )


def game_state_kept(*, game: Game) -> Any | None:
    """``game_state`` if ``game``'s row names what this process keeps of its table; None
    otherwise (without reading the events)."""
    known = positions.known_naming(game)
    return None if known is None else known.state


def game_events_wanted(*, game: Game) -> int:
    """The number of the first stored event (``id``, ``seat``, ``action``, by number) that
    ``game_state_after`` needs after this process's known position of ``game``; 0: all."""
    known = positions.known(game.table_id)
    if known is None or known.last_event is None or not known.of(game):
        return 0
    return int(known.state.log_length)


def game_state_after(
    *, game: Game, events: list[tuple[int, int, Any]], since: int
) -> tuple[Any, tuple[int, int, Any] | None] | None:
    """The position after ``game``'s stored ``events`` (``id``, ``seat``, ``action``), read from
    number ``since`` (``game_events_wanted``), and the last of them (None: the deal); None when
    they do not go on from the known position (read them all, ``since`` 0, then). Keeps
    nothing: the caller knows what row the position is labelled with."""
    known = positions.known(game.table_id)
    if known is not None and not known.of(game):
        known = None
    engine = engine_for(game.game)
    state: Any
    last_event = None
    if since:
        if known is None or known.last_event is None or known.state.log_length != since:
            return None
        if not events or tuple(events[0]) != known.last_event:
            return None
        state, last_event, events = known.state, known.last_event, events[1:]
    elif known is not None and known.last_event is None:
        state = known.state  # a known deal saves building it again
    else:
        state = game_initial_state(game=game)
    for event_id, seat, action in events:
        try:
            state = state.apply(seat, engine.action_from_json(action))
        except (IllegalMoveError, NotationError) as exc:
            number = state.log_length + 1
            raise ValueError(f"game {game.pk}: event {number} does not replay: {exc}") from exc
        last_event = (event_id, seat, action)
    return state, last_event


def game_position_remember(
    *,
    game: Game,
    state: Any,
    event: GameEvent | None,
    table: Table | None = None,
    seats: list[Seat] | None = None,
    players: dict[int, GamePlayer] | None = None,
    balances: dict[int, int] | None = None,
) -> None:
    """Keep ``state``, the position right after ``event`` (None: the deal), with the game row
    as just written and what the writer knows of the table's rows as they are now (``table``:
    the game's table with its room), as the table's current game: a writer that has just
    stored them saves the next move at the table the reads and the replay. The game and its
    table are kept as copies: the writer's caller may go on changing its own."""
    kept = copy.copy(game)
    if table is not None:
        table = copy.copy(table)
        kept.table = table
    positions.remember(
        KnownGame(
            game=kept,
            state=state,
            last_event=None if event is None else (event.pk, event.seat, event.action),
            table=table,
            seats=seats,
            players=players,
            balances=balances,
        )
    )
