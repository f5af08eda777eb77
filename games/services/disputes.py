"""Disputes: a player's complaint about a finished game, and staff closing it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import LedgerReason, Wallet
from accounts.services import coins_move

from ..models import Dispute, Game

if TYPE_CHECKING:
    from accounts.models import User

from ..errors import DisputeRefused

DISPUTE_REASON_MAX = 2000


@transaction.atomic
def dispute_open(*, user: User, game: Game, reason: str) -> Dispute:
    """A player's complaint about a game they played, once it is over.

    Raises ``DisputeRefused`` when ``user`` did not play the game, the game is still being
    played, the reason is empty or longer than 2,000 characters, or the player already has an
    open dispute about this game.
    """
    locked = Game.objects.select_for_update().get(pk=game.pk)
    if not locked.players.filter(user_id=user.pk).exists():
        raise DisputeRefused("not_a_player", _("Only a player of this game can dispute it."))
    if not locked.is_over:
        raise DisputeRefused("game_not_over", _("A game can be disputed only once it is over."))
    reason = (reason or "").strip()
    if not reason:
        raise DisputeRefused("reason_empty", _("Please say what went wrong."))
    if len(reason) > DISPUTE_REASON_MAX:
        raise DisputeRefused(
            "reason_too_long",
            _("Please keep the reason under %(max)s characters.") % {"max": DISPUTE_REASON_MAX},
        )
    if Dispute.objects.filter(game=locked, user_id=user.pk, status=Dispute.Status.OPEN).exists():
        raise DisputeRefused("already_open", _("You already have an open dispute about this game."))
    dispute = Dispute(game=locked, user=user, reason=reason)
    dispute.full_clean()
    dispute.save()
    return dispute


def _dispute_close_check(*, dispute: Dispute, staff: User, note: str) -> tuple[Dispute, str]:
    if not (staff.is_active and staff.is_staff):
        raise DisputeRefused("not_staff", _("Only staff can close a dispute."))
    locked = Dispute.objects.select_for_update().get(pk=dispute.pk)
    if locked.status != Dispute.Status.OPEN:
        raise DisputeRefused("not_open", _("This dispute is already closed."))
    note = (note or "").strip()
    if not note:
        raise DisputeRefused("note_empty", _("Please write a note to the player."))
    return locked, note


def _dispute_close(
    *, dispute: Dispute, locked: Dispute, status: str, staff: User, note: str, compensation: int
) -> Dispute:
    locked.status = status
    locked.staff = staff
    locked.note = note
    locked.compensation = compensation
    locked.resolved_at = timezone.now()
    locked.full_clean()
    locked.save(update_fields=["status", "staff", "note", "compensation", "resolved_at"])
    for field in ("status", "staff", "note", "compensation", "resolved_at"):
        setattr(dispute, field, getattr(locked, field))
    return locked


@transaction.atomic
def dispute_resolve(*, dispute: Dispute, staff: User, note: str, compensation: int = 0) -> Dispute:
    """Close an open dispute in the player's favour, with a note and optional compensation.

    A positive ``compensation`` is paid into the player's wallet as a ledger row with reason
    ``compensation``, naming the staff member and the game. Raises ``DisputeRefused`` when
    ``staff`` is not staff, the dispute is not open, the note is empty or the compensation is
    not a whole number ≥ 0.
    """
    locked, note = _dispute_close_check(dispute=dispute, staff=staff, note=note)
    if type(compensation) is not int or compensation < 0:
        raise DisputeRefused(
            "bad_compensation", _("Compensation is a whole number of coins, 0 or more.")
        )
    if compensation > 0:
        wallet = Wallet.objects.get(user_id=locked.user_id)
        coins_move(
            wallet=wallet,
            amount=compensation,
            reason=LedgerReason.COMPENSATION,
            game=locked.game,
            staff=staff,
            note=f"dispute {locked.pk}: {note}",
        )
    return _dispute_close(
        dispute=dispute,
        locked=locked,
        status=Dispute.Status.RESOLVED,
        staff=staff,
        note=note,
        compensation=compensation,
    )


@transaction.atomic
def dispute_reject(*, dispute: Dispute, staff: User, note: str) -> Dispute:
    """Close an open dispute without compensation, with a note that tells the player why.

    Raises ``DisputeRefused`` when ``staff`` is not staff, the dispute is not open or the note is
    empty.
    """
    locked, note = _dispute_close_check(dispute=dispute, staff=staff, note=note)
    return _dispute_close(
        dispute=dispute,
        locked=locked,
        status=Dispute.Status.REJECTED,
        staff=staff,
        note=note,
        compensation=0,
    )
