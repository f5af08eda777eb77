"""Reads of wallets, the coin ledger, and a player's games and disputes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.paginator import Page, Paginator
from django.db.models import Case, CharField, F, Min, QuerySet, Value, When
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.models import Dispute, Game, GamePlayer, Room

from .models import LedgerEntry, LedgerReason, User, Wallet

LEDGER_PAGE_SIZE = 20
GAMES_PAGE_SIZE = 20
# The chart shows at most this many of the latest balances.
BALANCE_HISTORY_LIMIT = 500


def wallet_get_for_user(*, user: User) -> Wallet | None:
    """The user's wallet, or ``None`` for an account made without one (e.g. ``createsuperuser``)."""
    return Wallet.objects.filter(user=user).first()


def player_get_public(*, username: str) -> User | None:
    """The player whose public page ``username`` names; ``None`` for no such user, an inactive
    account or the house's system user, who have none."""
    return (
        User.objects.filter(username=username, is_active=True)
        .exclude(wallet__is_house=True)
        .first()
    )


def house_wallet_get() -> Wallet | None:
    """The house's wallet (系统庄家), which bots play for; ``None`` only on a database emptied
    since its migration (``accounts.services.house_wallet`` opens it again)."""
    return Wallet.objects.select_related("user").filter(is_house=True).first()


def ledger_entries_of_user(*, user: User) -> QuerySet[LedgerEntry]:
    """The user's ledger rows, newest first."""
    return (
        LedgerEntry.objects.filter(wallet__user=user)
        .select_related("game")
        .order_by("-created_at", "-id")
    )


def ledger_page(*, user: User, page: int | str | None = 1) -> Page[LedgerEntry]:
    """One page (``LEDGER_PAGE_SIZE`` rows) of the user's ledger, newest first.

    A page number that is not a number gives the first page; one past the end gives the last.
    """
    return Paginator(ledger_entries_of_user(user=user), LEDGER_PAGE_SIZE).get_page(page)


def balance_history(
    *, user: User, limit: int = BALANCE_HISTORY_LIMIT
) -> list[tuple[datetime, int]]:
    """``(time, balance after)`` of the user's latest ``limit`` ledger rows, oldest first."""
    rows = ledger_entries_of_user(user=user).values_list("created_at", "balance_after")[:limit]
    return list(reversed(rows))


def games_of_user(*, user: User) -> QuerySet[GamePlayer]:
    """The user's places in games, newest game first, with game, table and room loaded.

    Each row has ``outcome``: ``"won"``, ``"lost"``, ``"playing"`` or ``"aborted"``.
    """
    return (
        GamePlayer.objects.filter(user=user)
        .select_related("game__table__room")
        .annotate(
            outcome=Case(
                When(game__status=Game.Status.PLAYING, then=Value("playing")),
                When(game__status=Game.Status.ABORTED, then=Value("aborted")),
                When(game__winner=F("seat"), then=Value("won")),
                default=Value("lost"),
                output_field=CharField(),
            )
        )
        .order_by("-game__started_at", "-game_id")
    )


def games_page(*, user: User, page: int | str | None = 1) -> Page[GamePlayer]:
    return Paginator(games_of_user(user=user), GAMES_PAGE_SIZE).get_page(page)


def disputes_of_user(*, user: User) -> QuerySet[Dispute]:
    """The user's disputes, newest first, with the game and its room loaded."""
    return (
        Dispute.objects.filter(user=user)
        .select_related("game__table__room")
        .order_by("-created_at", "-id")
    )


# Relief coins ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReliefStatus:
    """Whether a player may claim relief coins now, and if not, why."""

    eligible: bool
    refusal: str
    amount: int
    lowest_minimum: int | None
    claims_today: int
    claims_per_day: int
    resets_at: datetime


def relief_day(now: datetime) -> tuple[datetime, datetime]:
    """The start and end of ``now``'s calendar day in ``TIME_ZONE``, the relief limit's day."""
    zone = ZoneInfo(settings.TIME_ZONE)
    day = now.astimezone(zone).date()
    return (
        datetime.combine(day, time.min, tzinfo=zone),
        datetime.combine(day + timedelta(days=1), time.min, tzinfo=zone),
    )


def lowest_open_room_minimum() -> int | None:
    """The smallest ``min_coins`` among open rooms; ``None`` when no room is open."""
    minimum: int | None = Room.objects.filter(is_open=True).aggregate(low=Min("min_coins"))["low"]
    return minimum


def relief_status(*, wallet: Wallet | None, now: datetime | None = None) -> ReliefStatus:
    """The relief rules applied to ``wallet`` at ``now`` (default: the current time).

    Allowed when the balance is below the lowest open room's minimum and the wallet has had
    fewer than ``RELIEF_CLAIMS_PER_DAY`` relief rows since midnight in ``TIME_ZONE``.
    """
    now = now or timezone.now()
    day_start, day_end = relief_day(now)
    limit = settings.RELIEF_CLAIMS_PER_DAY
    minimum = lowest_open_room_minimum()
    claims = (
        0
        if wallet is None
        else LedgerEntry.objects.filter(
            wallet=wallet,
            reason=LedgerReason.RELIEF,
            created_at__gte=day_start,
            created_at__lt=day_end,
        ).count()
    )

    def status(refusal: str) -> ReliefStatus:
        return ReliefStatus(
            eligible=not refusal,
            refusal=refusal,
            amount=settings.RELIEF_COINS,
            lowest_minimum=minimum,
            claims_today=claims,
            claims_per_day=limit,
            resets_at=day_end,
        )

    if wallet is None:
        return status(_("You have no wallet yet."))
    if minimum is None:
        return status(_("No room is open at the moment, so there are no relief coins to claim."))
    if wallet.balance >= minimum:
        return status(
            _(
                "Relief coins are for players who cannot afford any room: you have %(balance)s "
                "coins and the lowest room needs %(minimum)s."
            )
            % {"balance": f"{wallet.balance:,}", "minimum": f"{minimum:,}"}
        )
    if claims >= limit:
        return status(
            ngettext(
                "You have already claimed relief coins %(count)d time today, the daily limit. "
                "You can claim again from %(time)s.",
                "You have already claimed relief coins %(count)d times today, the daily limit. "
                "You can claim again from %(time)s.",
                claims,
            )
            % {"count": claims, "time": formats.date_format(day_end, "DATETIME_FORMAT")}
        )
    return status("")


def relief_refusal(*, wallet: Wallet, now: datetime) -> str | None:
    """Why ``wallet`` may not claim relief coins at ``now``, or ``None`` when it may."""
    return relief_status(wallet=wallet, now=now).refusal or None
