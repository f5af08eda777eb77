"""Quick phrases at a table, players muting one another, reports of players, and staff
handling them.

A phrase is sent by a player seated at the table, as one id of ``games.phrases``; each user may
send at most one every ``CHAT_INTERVAL`` and ``CHAT_PER_MINUTE`` a minute at one table, and none
while staff have muted them. It never changes the table's version: the table's group hears it
as a ``table.chat`` message, after the commit, and each socket filters out the senders its
player has muted.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.services import user_lock

from ..errors import ChatRefused
from ..models import Game, PlayerMute, PlayerReport, Seat, Table, TableMessage
from ..phrases import BY_ID
from .notices import table_message_on_commit

if TYPE_CHECKING:
    from datetime import datetime

#: The shortest pause between two phrases of one player at one table.
CHAT_INTERVAL = timedelta(seconds=3)
#: The most phrases one player sends at one table in a minute.
CHAT_PER_MINUTE = 10
#: How long staff's mute of a player's phrases lasts.
CHAT_BAN = timedelta(hours=24)
REPORT_TEXT_MAX = 200


def _refuse_banned(user: User, now: datetime) -> None:
    if user.chat_banned_until is not None and user.chat_banned_until > now:
        until = formats.date_format(timezone.localtime(user.chat_banned_until), "DATETIME_FORMAT")
        raise ChatRefused(
            "chat_banned",
            _("Your phrases are muted by staff until %(until)s.") % {"until": until},
        )


@transaction.atomic
def table_say(*, user: User, table_id: int, phrase: str) -> TableMessage:
    """Send the quick phrase or emote ``phrase`` (its id) to everyone at the table.

    Raises ``ChatRefused`` when the id is not one of the list, the user is not seated at the
    table, staff have muted them, or they sent one less than ``CHAT_INTERVAL`` ago or
    ``CHAT_PER_MINUTE`` in the last minute.
    """
    if phrase not in BY_ID:
        raise ChatRefused("unknown_phrase", _("That phrase is not one of the list."))
    # The user's row first, as every service locks: two tabs of one player queue here, so
    # the rate limit counts every message of theirs.
    locked = user_lock(user_id=user.pk)
    now = timezone.now()
    _refuse_banned(locked, now)
    seat = (
        Seat.objects.filter(table_id=table_id, user_id=user.pk)
        .values_list("position", flat=True)
        .first()
    )
    if seat is None:
        raise ChatRefused("not_seated", _("Only the players at this table can send phrases."))
    recent = list(
        TableMessage.objects.filter(
            user_id=user.pk, table_id=table_id, created_at__gt=now - timedelta(minutes=1)
        ).values_list("created_at", flat=True)
    )
    if len(recent) >= CHAT_PER_MINUTE or any(sent > now - CHAT_INTERVAL for sent in recent):
        raise ChatRefused("chat_too_fast", _("Not so fast: wait a moment before the next phrase."))
    game_id = (
        Game.objects.filter(table_id=table_id, status=Game.Status.PLAYING)
        .values_list("pk", flat=True)
        .first()
    )
    message = TableMessage(
        table_id=table_id, game_id=game_id, user=locked, seat=seat, phrase=phrase
    )
    message.full_clean()
    message.save()
    table_message_on_commit(
        table_id=table_id,
        message={
            "type": "table.chat",
            "table": table_id,
            "id": message.pk,
            "user": user.pk,
            "seat": seat,
            "phrase": phrase,
        },
    )
    return message


def _player_met_at(*, user: User, other_id: int | str, table: Table) -> User:
    """The player ``other_id`` whom ``user`` meets at ``table``: seated there, or who said a
    phrase there. Whether or not such a user exists elsewhere, anyone else is refused with the
    same words, so that the answers tell no one which ids are players."""
    try:
        pk = int(other_id)
    except (TypeError, ValueError):
        pk = None
    if pk is not None and pk == user.pk:
        raise ChatRefused("bad_player", _("You cannot do that to yourself."))
    other = None if pk is None else User.objects.filter(pk=pk, is_active=True).first()
    met = other is not None and (
        Seat.objects.filter(table=table, user=other).exists()
        or TableMessage.objects.filter(table=table, user=other).exists()
    )
    if other is None or not met:
        raise ChatRefused("bad_player", _("That player is not at this table."))
    return other


@transaction.atomic
def player_mute(*, user: User, muted_id: int | str, table: Table) -> PlayerMute:
    """Stop ``user`` hearing the phrases of the player ``muted_id``, met at ``table``, at every
    table. Muting a player muted already changes nothing. Raises ``ChatRefused`` for oneself
    and for anyone not at the table."""
    muted = _player_met_at(user=user, other_id=muted_id, table=table)
    mute, _created = PlayerMute.objects.get_or_create(user=user, muted=muted)
    return mute


@transaction.atomic
def player_unmute(*, user: User, muted_id: int | str) -> None:
    """Let ``user`` hear the phrases of the player ``muted_id`` again. Raises ``ChatRefused``
    unless ``user`` muted them (which tells ``user`` only of their own mutes)."""
    try:
        pk = int(muted_id)
    except (TypeError, ValueError):
        pk = None
    deleted, _by_model = PlayerMute.objects.filter(user_id=user.pk, muted_id=pk).delete()
    if not deleted:
        raise ChatRefused("bad_player", _("You have not muted that player."))


@transaction.atomic
def player_report(
    *,
    reporter: User,
    reported_id: int | str,
    table: Table,
    reason: str,
    text: str = "",
    message_id: int | None = None,
) -> PlayerReport:
    """``reporter``'s report of a player who sits at ``table`` or sent a phrase there, for staff.

    Raises ``ChatRefused`` when the player was not at the table, the reason is not one of the
    list, the details are longer than 200 characters, or ``reporter`` already has an open
    report of that player at this table.
    """
    reported = _player_met_at(user=reporter, other_id=reported_id, table=table)
    messages = TableMessage.objects.filter(table=table, user=reported)
    if reason not in PlayerReport.Reason.values:
        raise ChatRefused("bad_reason", _("Please choose a reason from the list."))
    text = (text or "").strip()
    if len(text) > REPORT_TEXT_MAX:
        raise ChatRefused(
            "text_too_long",
            _("Please keep the details under %(max)s characters.") % {"max": REPORT_TEXT_MAX},
        )
    message = messages.filter(pk=message_id).first() if message_id is not None else None
    report = PlayerReport(
        reporter=reporter,
        reported=reported,
        table=table,
        message=message,
        reason=reason,
        text=text,
    )
    already = _("You have already reported this player at this table; staff will look at it.")
    if PlayerReport.objects.filter(
        reporter=reporter, reported=reported, table=table, status=PlayerReport.Status.OPEN
    ).exists():
        raise ChatRefused("already_reported", already)
    report.full_clean(validate_constraints=False)
    try:
        with transaction.atomic():  # two reports at once: the unique index refuses the second
            report.save()
    except IntegrityError:
        raise ChatRefused("already_reported", already) from None
    return report


def _report_close(*, report: PlayerReport, staff: User, status: str, note: str) -> PlayerReport:
    if not (staff.is_active and staff.is_staff):
        raise ChatRefused("not_staff", _("Only staff can handle a report."))
    locked = PlayerReport.objects.select_for_update().get(pk=report.pk)
    if locked.status != PlayerReport.Status.OPEN:
        raise ChatRefused("not_open", _("This report is already closed."))
    locked.status = status
    locked.staff = staff
    locked.note = (note or "").strip()
    locked.handled_at = timezone.now()
    locked.full_clean()
    locked.save(update_fields=["status", "staff", "note", "handled_at"])
    for field in ("status", "staff", "note", "handled_at"):
        setattr(report, field, getattr(locked, field))
    return locked


@transaction.atomic
def report_dismiss(*, report: PlayerReport, staff: User, note: str = "") -> PlayerReport:
    """Close an open report without acting on it."""
    return _report_close(
        report=report, staff=staff, status=PlayerReport.Status.DISMISSED, note=note
    )


@transaction.atomic
def report_resolve(*, report: PlayerReport, staff: User, note: str) -> PlayerReport:
    """Close an open report as handled, with staff's note of what was done."""
    if not (note or "").strip():
        raise ChatRefused("note_empty", _("Please write what was done."))
    return _report_close(report=report, staff=staff, status=PlayerReport.Status.HANDLED, note=note)


@transaction.atomic
def report_mute_player(*, report: PlayerReport, staff: User) -> PlayerReport:
    """Mute the reported player's phrases for ``CHAT_BAN`` (at every table) and close the
    report as handled."""
    closed = _report_close(
        report=report,
        staff=staff,
        status=PlayerReport.Status.HANDLED,
        note=_("Phrases muted for 24 hours."),
    )
    user_chat_ban(user_id=closed.reported_id, until=timezone.now() + CHAT_BAN)
    return closed


@transaction.atomic
def user_chat_ban(*, user_id: int, until: datetime) -> None:
    """Refuse the phrases of the user ``user_id`` until ``until``."""
    locked = user_lock(user_id=user_id)
    locked.chat_banned_until = until
    locked.save(update_fields=["chat_banned_until"])
