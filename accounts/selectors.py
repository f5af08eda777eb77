"""Reads of wallets, the coin ledger, a player's games and disputes, and daily rewards."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.paginator import Page, Paginator
from django.db.models import Case, CharField, Count, F, Min, Q, QuerySet, Value, When
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.models import GAME_WON, Dispute, Game, GameEvent, GamePlayer, Room
from games.presentation import presentation_for

from .models import LedgerEntry, LedgerReason, RewardClaim, RewardKind, User, Wallet

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
                When(GAME_WON, then=Value("won")),
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


# Daily rewards --------------------------------------------------------------------------------

#: How many days of the streak the check-in's row of dots shows; the coins stop rising there too.
STREAK_DAYS = 7


def reward_day(now: datetime) -> date:
    """The calendar day of ``now`` in ``TIME_ZONE``: a reward is paid once a day."""
    return now.astimezone(ZoneInfo(settings.TIME_ZONE)).date()


def check_in_coins(streak: int) -> int:
    """What the check-in on the ``streak``-th day in a row pays (``CHECK_IN_COINS``, the last
    amount for every day after the table's end)."""
    amounts = settings.CHECK_IN_COINS
    return int(amounts[min(max(streak, 1), len(amounts)) - 1])


def check_in_streak_on(*, user: User, day: date) -> int:
    """The streak the player's check-in on ``day`` makes: one more than the check-in of the day
    before, else 1 (a missed day starts it again)."""
    before = (
        RewardClaim.objects.filter(user=user, kind=RewardKind.CHECK_IN, day=day - timedelta(days=1))
        .values_list("streak", flat=True)
        .first()
    )
    return (before or 0) + 1


@dataclass(frozen=True)
class StreakDot:
    """One day of the check-in's row of dots."""

    number: int
    coins: int
    checked: bool
    is_today: bool


@dataclass(frozen=True)
class CheckInStatus:
    """Today's check-in: whether it is done, the streak, and what today and tomorrow pay."""

    checked_today: bool
    #: Days in a row with today's check-in (done or not yet).
    streak: int
    today_coins: int
    tomorrow_coins: int
    dots: list[StreakDot]


@dataclass(frozen=True)
class DailyTask:
    """A daily task, how far the player has come with it today, and whether it is paid."""

    kind: str
    label: str
    progress: int
    goal: int
    coins: int
    claimed: bool

    @property
    def done(self) -> bool:
        return self.progress >= self.goal

    @property
    def percent(self) -> int:
        return min(100, self.progress * 100 // self.goal)


@dataclass(frozen=True)
class RewardsStatus:
    """A player's daily rewards on ``day``: the check-in and the tasks."""

    day: date
    check_in: CheckInStatus
    tasks: list[DailyTask]
    #: When the day ends and every reward may be claimed again.
    resets_at: datetime


def daily_tasks() -> dict[str, dict[str, int]]:
    """The daily tasks by kind, each with its ``goal`` and ``coins`` (``DAILY_TASKS``)."""
    return {str(kind): dict(task) for kind, task in settings.DAILY_TASKS.items()}


def daily_task_progress(*, user: User, day: date) -> dict[str, int]:
    """How far the player has come today with each daily task, at most its goal, from the games
    finished on ``day`` (played, won: a positive payment, the winning side's in 斗地主) and the
    bombs and rockets the player played on ``day`` themselves (not the bot in 托管)."""
    start, end = relief_day(datetime.combine(day, time(12), tzinfo=ZoneInfo(settings.TIME_ZONE)))
    tasks = daily_tasks()
    places = GamePlayer.objects.filter(
        user=user,
        is_bot=False,
        game__status=Game.Status.FINISHED,
        game__finished_at__gte=start,
        game__finished_at__lt=end,
    )
    counts = places.aggregate(played=Count("pk"), won=Count("pk", filter=GAME_WON))
    goal = tasks.get(RewardKind.USE_BOMB, {}).get("goal", 1)
    bombs = 0
    # Only the events of games played on the day, not of every game the player ever played.
    plays = (
        GameEvent.objects.filter(
            game__players__user=user,
            game__players__seat=F("seat"),
            game__started_at__lt=end,
            source=GameEvent.Source.PLAYER,
            created_at__gte=start,
            created_at__lt=end,
            action__has_key="play",
        )
        .filter(Q(game__status=Game.Status.PLAYING) | Q(game__finished_at__gte=start))
        .values_list("game__game", "action")
    )
    for game_key, action in plays.iterator():
        if presentation_for(game_key).is_bomb(action):
            bombs += 1
            if bombs >= goal:
                break
    progress: dict[str, int] = {
        RewardKind.PLAY_GAMES: counts["played"],
        RewardKind.WIN_GAME: counts["won"],
        RewardKind.USE_BOMB: bombs,
    }
    return {kind: min(progress.get(kind, 0), task["goal"]) for kind, task in tasks.items()}


def rewards_status(*, user: User, now: datetime | None = None) -> RewardsStatus:
    """The player's check-in and daily tasks today (``now``: default the current time)."""
    now = now or timezone.now()
    day = reward_day(now)
    claims = {
        claim.kind: claim
        for claim in RewardClaim.objects.filter(user=user, day=day).only("kind", "streak")
    }
    checked = claims.get(RewardKind.CHECK_IN)
    streak = (
        checked.streak
        if checked is not None and checked.streak
        else check_in_streak_on(user=user, day=day)
    )
    # The dots count the streak's days up to STREAK_DAYS; past it, today stays on the last.
    today_dot = min(streak, STREAK_DAYS)
    dots = [
        StreakDot(
            number=number,
            coins=check_in_coins(number),
            checked=number < today_dot or (number == today_dot and checked is not None),
            is_today=number == today_dot,
        )
        for number in range(1, STREAK_DAYS + 1)
    ]
    check_in = CheckInStatus(
        checked_today=checked is not None,
        streak=streak,
        today_coins=check_in_coins(streak),
        tomorrow_coins=check_in_coins(streak + 1),
        dots=dots,
    )
    progress = daily_task_progress(user=user, day=day)
    labels = dict(RewardKind.choices)
    tasks = [
        DailyTask(
            kind=kind,
            label=str(labels.get(kind, kind)),
            progress=progress[kind],
            goal=task["goal"],
            coins=task["coins"],
            claimed=kind in claims,
        )
        for kind, task in daily_tasks().items()
    ]
    return RewardsStatus(day=day, check_in=check_in, tasks=tasks, resets_at=relief_day(now)[1])
