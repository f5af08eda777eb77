"""A game's position: its deal and its stored events replayed by the engine, starting from the
position this process last knew (``games.positions``) when it is still the stored game's.
"""

from __future__ import annotations

from typing import Any

from games.rules import IllegalMoveError, NotationError

from ..engines import engine_for
from ..models import Game, GameEvent
from ..positions import KnownPosition, positions


def game_events(game: Game) -> list[tuple[int, dict[str, Any]]]:
    return list(game.events.order_by("number").values_list("seat", "action"))


def game_initial_state(*, game: Game) -> Any:
    """The position at the deal, as the game's row keeps it."""
    engine = engine_for(game.game)
    deal = {"dealer": game.dealer, "hands": game.hands, "stock": game.stock}
    return engine.deal_from_json(deal, engine.options_from_json(game.rules))


def game_state(*, game: Game) -> Any:
    """The engine's position after the game's stored events.

    Starts from this process's last known position of the game (``games.positions``) when the
    event it was built up to is still stored unchanged, and applies only the events after it;
    otherwise replays the game from the deal. Raises ``ValueError`` if a stored event does not
    replay, which only corrupt data can cause.
    """
    known = game_state_kept(game=game)
    if known is not None:
        return known  # the row names this very position
    since = game_events_wanted(game=game)
    state = game_state_after(game=game, events=_events_since(game, since), since=since)
    if state is None:  # the known position is not the stored game's any more
        state = game_state_after(game=game, events=_events_since(game, 0), since=0)
    assert state is not None
    return state


def _events_since(game: Game, number: int) -> list[tuple[int, int, Any]]:
    return list(
        game.events.filter(number__gte=number)
        .order_by("number")
        .values_list("id", "seat", "action")
    )


def game_events_wanted(*, game: Game) -> int:
    """The number of the first stored event (``id``, ``seat``, ``action``, by number) that
    ``game_state_after`` needs after this process's known position of ``game``; 0: all."""
    known = positions.get(_position_key(game))
    if known is None or known.last_event is None:
        return 0
    return int(known.state.log_length)


def game_state_after(*, game: Game, events: list[tuple[int, int, Any]], since: int) -> Any | None:
    """The position after ``game``'s stored ``events`` (``id``, ``seat``, ``action``), read from
    number ``since`` (``game_events_wanted``), which the process keeps from then on; None when
    they do not go on from the known position (read them all, ``since`` 0, then)."""
    key = _position_key(game)
    known = positions.get(key)
    engine = engine_for(game.game)
    state: Any = None
    last_event = None
    if since:
        if known is None or known.last_event is None or known.state.log_length != since:
            return None
        if not events or tuple(events[0]) != known.last_event:
            return None
        state, last_event, events = known.state, known.last_event, events[1:]
    else:
        # A known deal saves building it again; anything else is replayed from the deal.
        deal = known is not None and known.last_event is None
        state = known.state if deal and known is not None else game_initial_state(game=game)
    for event_id, seat, action in events:
        try:
            state = state.apply(seat, engine.action_from_json(action))
        except (IllegalMoveError, NotationError) as exc:
            number = state.log_length + 1
            raise ValueError(f"game {game.pk}: event {number} does not replay: {exc}") from exc
        last_event = (event_id, seat, action)
    positions.put(key, KnownPosition(state=state, last_event=last_event))
    return state


def game_state_kept(*, game: Game) -> Any | None:
    """``game_state`` if the process keeps the very position ``game``'s row names; None
    otherwise (without reading the events)."""
    known = positions.get(_position_key(game))
    if known is not None and known.position_id == game.position_id:
        return known.state
    return None


def game_position_remember(*, game: Game, state: Any, event: GameEvent | None) -> None:
    """Keep ``state``, the position right after ``event`` (None: the deal) with the
    ``position_id`` just stored on ``game``, as the game's last known position: a writer that
    has just stored the event saves its next reader a replay."""
    positions.put(
        _position_key(game),
        KnownPosition(
            state=state,
            last_event=None if event is None else (event.pk, event.seat, event.action),
            position_id=game.position_id,
        ),
    )


def _position_key(game: Game) -> tuple[Any, ...]:
    return (game.pk, game.seed_commitment, game.started_at)
