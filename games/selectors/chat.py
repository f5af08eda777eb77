"""What players said at tables, whom they muted, and their reports."""

from __future__ import annotations

from django.db.models import Case, QuerySet, Value, When

from accounts.models import User

from ..models import PlayerMute, PlayerReport, Seat, Table, TableMessage


def chat_wanted_from(*, user_id: int, speaker_id: int) -> bool:
    """Whether ``user_id`` hears ``speaker_id``'s phrases: their phrases are on and they have
    not muted the speaker."""
    return (
        User.objects.filter(pk=user_id, phrases_on=True)
        .exclude(mutes__muted_id=speaker_id)
        .exists()
    )


def muted_ids(*, user_id: int) -> set[int]:
    """The players ``user_id`` has muted."""
    return set(PlayerMute.objects.filter(user_id=user_id).values_list("muted_id", flat=True))


def table_people(*, table: Table, user_id: int) -> list[User]:
    """The other players of ``table`` (seated now), by seat: whom ``user_id`` may mute or
    report there."""
    seats = (
        Seat.objects.filter(table=table, user__isnull=False)
        .exclude(user_id=user_id)
        .select_related("user")
        .order_by("position")
    )
    return [seat.user for seat in seats if seat.user is not None]


def messages_of_user(*, user_id: int, limit: int = 20) -> list[TableMessage]:
    """A player's latest phrases, newest first: what staff read when handling a report."""
    return list(
        TableMessage.objects.filter(user_id=user_id)
        .select_related("table")
        .order_by("-created_at", "-id")[:limit]
    )


def reports_for_admin() -> QuerySet[PlayerReport]:
    """Every report, with ``open_first`` (0 for open, 1 for closed) to put the queue first."""
    return PlayerReport.objects.select_related(
        "reporter", "reported", "table__room", "message", "staff"
    ).annotate(
        open_first=Case(When(status=PlayerReport.Status.OPEN, then=Value(0)), default=Value(1))
    )
