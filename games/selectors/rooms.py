"""The rooms of the lobby."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from django.db.models import Count, Q, QuerySet

from ..models import Room, Table

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class SeatedCount(TypedDict):
    """What ``rooms_for_lobby`` adds to each room: the players (not bots) at its open tables."""

    seated: int


def rooms_for_lobby() -> QuerySet[WithAnnotations[Room, SeatedCount]]:
    """Every room, in lobby order, with ``seated``: players (not bots) at its open tables."""
    return Room.objects.annotate(
        seated=Count(
            "tables__seats",
            filter=Q(tables__seats__user__isnull=False) & ~Q(tables__status=Table.Status.CLOSED),
        )
    ).order_by("position", "base")
