"""Games: who may see one, their players and actions, their records, and a player's history."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, QuerySet

from ..engines import engine_for
from ..models import Game, GameEvent, GamePlayer
from .states import game_deal, game_events, game_state

if TYPE_CHECKING:
    from accounts.models import User


def game_seed(*, game: Game) -> int | None:
    """The game's seed as a number, or None when it is secret (the game is not over) or absent."""
    if not game.is_over or not game.seed:
        return None
    return int(game.seed, 16)


def game_record(*, game: Game) -> dict[str, Any]:
    """The game in its engine's record format (``record_from_deal``), actions from its events.

    The stored events are written as they are, not replayed: a record is what the admin's replay
    checks. ``seed`` is included only once the game is over; until then only
    ``meta.seed_commitment`` says anything about it. The record holds the starting hands, so it
    is for staff and for the end of the game, never for a player's view of a game in progress.
    """
    engine = engine_for(game.game)
    return engine.record_from_deal(
        options=engine.options_from_json(game.rules),
        deal=game_deal(game=game),
        actions=game_events(game),
        base=game.base,
        seed=game_seed(game=game),
        meta={
            "game": game.pk,
            "table": game.table_id,
            "number": game.number,
            "seed_commitment": game.seed_commitment,
        },
    )


def games_visible_to(*, user: User | AnonymousUser) -> QuerySet[Game]:
    """The games whose page ``user`` may see: those they played, or all for staff; none for a
    visitor. The one rule of who sees a game, for its page and for links to it."""
    if not user.is_authenticated:
        return Game.objects.none()
    games = Game.objects.select_related("table__room")
    if not user.is_staff:
        games = games.filter(players__user_id=user.pk)
    return games


def game_get_for_viewer(*, user: User | AnonymousUser, game_id: int) -> Game | None:
    """The game if ``user`` may see its page: a player of it, or staff. None otherwise.

    The one access check for a game's page and its dispute form.
    """
    return games_visible_to(user=user).filter(pk=game_id).first()


def game_players(*, game: Game) -> list[GamePlayer]:
    """The players of a game by seat, with their users."""
    return list(game.players.select_related("user").order_by("seat"))


def game_actions(*, game: Game) -> list[GameEvent]:
    """The game's actions in order. Public: every player sees every play and pass."""
    return list(game.events.order_by("number"))


def game_view_for(*, game: Game, seat: int | None) -> dict[str, Any]:
    """The engine's view of a game in progress for ``seat``: its own hand, never another's.

    ``seat=None`` (staff, or anyone not seated) gets no hand at all.
    """
    view: dict[str, Any] = game_state(game=game).view(seat)
    return view


def games_of_user(*, user_id: int) -> QuerySet[Game]:
    """The games a user played, newest first."""
    return (
        Game.objects.filter(players__user_id=user_id)
        .select_related("table__room")
        .order_by("-started_at", "-id")
    )


def games_for_admin() -> QuerySet[Game]:
    """Every game for the admin, with its table and room."""
    return Game.objects.select_related("table__room").annotate(actions=Count("events"))
