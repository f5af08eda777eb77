"""What the table runner finds due: tables to fill with bots, players to stand up, turns whose
deadline has passed.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Exists, OuterRef, QuerySet, Subquery
from django.utils import timezone

from ..models import Game, Seat, Table


def tables_to_fill_with_bots(*, now: datetime | None = None) -> QuerySet[Table]:
    """Public waiting tables whose players have waited ``BOT_FILL_SECONDS`` for the free seats
    by ``now``: the ones ``table_fill_with_bots`` would fill, oldest wait first."""
    now = now or timezone.now()
    return Table.objects.filter(
        is_private=False,
        status=Table.Status.WAITING,
        waiting_since__lte=now - timedelta(seconds=settings.BOT_FILL_SECONDS),
    ).order_by("waiting_since", "pk")


def tables_with_players_not_ready(*, now: datetime) -> QuerySet[Table]:
    """Waiting tables with a player who has not pressed 再来一局 within ``READY_SECONDS`` of the
    end of the table's last game by ``now``: the ones ``table_stand_up_not_ready`` would free
    seats at."""
    last_end = Game.objects.filter(table=OuterRef("pk")).order_by("-number").values("finished_at")
    not_ready = Seat.objects.filter(table=OuterRef("pk"), user__isnull=False, ready=False)
    return (
        Table.objects.filter(status=Table.Status.WAITING)
        .filter(Exists(not_ready))
        .annotate(last_finished_at=Subquery(last_end[:1]))
        .filter(last_finished_at__lte=now - timedelta(seconds=settings.READY_SECONDS))
        .order_by("last_finished_at", "pk")
    )


def games_with_a_turn_due(*, now: datetime) -> QuerySet[Game]:
    """Games being played whose turn deadline has passed by ``now``, longest overdue first: the
    ones ``game_turn_due`` would act in (a bot's move, 托管, or a player's time running out)."""
    return Game.objects.filter(status=Game.Status.PLAYING, turn_deadline__lte=now).order_by(
        "turn_deadline", "pk"
    )
