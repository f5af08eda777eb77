"""Disputes, for their players and for staff."""

from __future__ import annotations

from django.db.models import Case, QuerySet, Value, When

from ..models import Dispute, Game


def disputes_open() -> QuerySet[Dispute]:
    """The open disputes, oldest first: the staff's queue."""
    return (
        Dispute.objects.filter(status=Dispute.Status.OPEN)
        .select_related("game__table__room", "user")
        .order_by("created_at", "id")
    )


def disputes_for_admin() -> QuerySet[Dispute]:
    """Every dispute, with ``open_first`` (0 for open, 1 for closed) to put the queue first."""
    return Dispute.objects.select_related("game__table__room", "user", "staff").annotate(
        open_first=Case(When(status=Dispute.Status.OPEN, then=Value(0)), default=Value(1))
    )


def disputes_of_player(*, game: Game, user_id: int) -> QuerySet[Dispute]:
    """A player's disputes about one game, newest first."""
    return Dispute.objects.filter(game=game, user_id=user_id).order_by("-created_at", "-id")
