"""Writes of the daily rewards: the check-in (每日签到) and the daily tasks (每日任务).

Each reward is paid through ``coins_move`` once a day (in ``TIME_ZONE``) per player: the wallet row
is locked before the checks, so claims at once queue and the later ones see the first one's claim,
and the database's unique constraint on (player, day, reward) is the last line of defence. What a
claim may be paid is read by the selectors (``accounts.selectors.rewards_status``).
"""

from __future__ import annotations

from datetime import date, datetime

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .models import LedgerReason, RewardClaim, RewardKind, User, Wallet
from .selectors import (
    check_in_coins,
    check_in_streak_on,
    daily_task_progress,
    daily_tasks,
    reward_day,
)
from .services import coins_move


class RewardRefused(Exception):
    """A reward was not paid and nothing was written; the message (translated) says why."""


class RewardAlreadyClaimed(RewardRefused):
    """The reward was paid already today."""


def _wallet_locked(user: User) -> Wallet:
    """The player's wallet, locked for the transaction; refuses the house and a user without
    a wallet."""
    wallet = Wallet.objects.select_for_update().filter(user=user).first()
    if wallet is None:
        raise RewardRefused(_("You have no wallet yet."))
    if wallet.is_house or not user.is_active:
        raise RewardRefused(_("Daily rewards are for players."))
    return wallet


def _claim_write(
    *, user: User, wallet: Wallet, day: date, kind: str, amount: int, streak: int | None
) -> RewardClaim:
    reason = LedgerReason.CHECK_IN if kind == RewardKind.CHECK_IN else LedgerReason.DAILY_TASK
    entry = coins_move(wallet=wallet, amount=amount, reason=reason)
    claim = RewardClaim(user=user, day=day, kind=kind, streak=streak, ledger_entry=entry)
    # Uniqueness is left to the database: a check here would race another claim.
    claim.full_clean(validate_unique=False, validate_constraints=False)
    try:
        with transaction.atomic():
            claim.save()
    except IntegrityError as error:
        raise RewardAlreadyClaimed(_("You have already claimed this reward today.")) from error
    return claim


@transaction.atomic
def check_in_claim(*, user: User, now: datetime | None = None) -> RewardClaim:
    """Check in for today (``now``'s day in ``TIME_ZONE``) and pay the streak's coins.

    The streak is one more than yesterday's check-in, else 1; its coins are
    ``check_in_coins(streak)``. Raises ``RewardAlreadyClaimed`` when the player has checked in
    today already, ``RewardRefused`` for the house or a user without a wallet.
    """
    day = reward_day(now or timezone.now())
    wallet = _wallet_locked(user)
    if RewardClaim.objects.filter(user=user, day=day, kind=RewardKind.CHECK_IN).exists():
        raise RewardAlreadyClaimed(_("You have already checked in today. Come back tomorrow!"))
    streak = check_in_streak_on(user=user, day=day)
    return _claim_write(
        user=user,
        wallet=wallet,
        day=day,
        kind=RewardKind.CHECK_IN,
        amount=check_in_coins(streak),
        streak=streak,
    )


@transaction.atomic
def daily_task_claim(*, user: User, kind: str, now: datetime | None = None) -> RewardClaim:
    """Pay the coins of the daily task ``kind`` (``DAILY_TASKS``) done today.

    The task's progress is read again under the wallet's lock. Raises ``RewardAlreadyClaimed``
    when it was paid today already, ``RewardRefused`` for a task that does not exist, one not
    done yet, the house or a user without a wallet.
    """
    task = daily_tasks().get(kind)
    if task is None:
        raise RewardRefused(_("There is no such daily task."))
    day = reward_day(now or timezone.now())
    wallet = _wallet_locked(user)
    if RewardClaim.objects.filter(user=user, day=day, kind=kind).exists():
        raise RewardAlreadyClaimed(_("You have already claimed this task's reward today."))
    progress = daily_task_progress(user=user, day=day)[kind]
    if progress < task["goal"]:
        raise RewardRefused(
            _("This task is not done yet: %(progress)d of %(goal)d.")
            % {"progress": progress, "goal": task["goal"]}
        )
    return _claim_write(
        user=user, wallet=wallet, day=day, kind=kind, amount=task["coins"], streak=None
    )
