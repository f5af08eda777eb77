"""The rooms of the lobby."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from ..models import Room, Table


def rooms_for_lobby() -> QuerySet[Room]:
    """Every room, in lobby order, with ``seated``: players (not bots) at its open tables."""
    return Room.objects.annotate(
        seated=Count(
            "tables__seats",
            filter=Q(tables__seats__user__isnull=False) & ~Q(tables__status=Table.Status.CLOSED),
        )
    ).order_by("position", "base")
