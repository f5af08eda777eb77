"""Users, their wallets and the coin ledger.

A wallet's balance changes only through ``accounts.services.coins_move_many``, which writes one
append-only ``LedgerEntry`` per movement inside a transaction that locks the wallet row. The
database refuses a negative balance (a check constraint), and a game can pay into one wallet only
once (a unique constraint on its settlement rows).

One wallet is the house's (系统庄家, ``Wallet.is_house``; the database allows only one): bots play
for it, so it pays what bots lose and receives what bots win. It belongs to a system user,
``HOUSE_USERNAME``, who is inactive and has no usable password, so nobody can sign in as the house.
A migration opens it with ``HOUSE_OPENING_COINS`` as a ``house_funding`` ledger row.

A ``RewardClaim`` is one daily reward paid to a player (每日签到, a 每日任务): the database
allows one per player, day and kind, so a reward is paid once a day however often it is claimed.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from .names import name_skeleton

# The house's system user and the coins its wallet opens with (one ``house_funding`` row).
HOUSE_USERNAME = "house"
HOUSE_OPENING_COINS = 1_000_000_000


NICKNAME_MAX_LENGTH = 16


class Avatar(models.TextChoices):
    """The avatars a player may pick: the twelve animals of the zodiac (生肖), each an SVG file
    ``static/avatars/<value>.svg``; a player who picked none shows ``DEFAULT_AVATAR``."""

    RAT = "rat", _("Rat")
    OX = "ox", _("Ox")
    TIGER = "tiger", _("Tiger")
    RABBIT = "rabbit", _("Rabbit")
    DRAGON = "dragon", _("Dragon")
    SNAKE = "snake", _("Snake")
    HORSE = "horse", _("Horse")
    GOAT = "goat", _("Goat")
    MONKEY = "monkey", _("Monkey")
    ROOSTER = "rooster", _("Rooster")
    DOG = "dog", _("Dog")
    PIG = "pig", _("Pig")


DEFAULT_AVATAR = "default"


class User(AbstractUser):
    """A player or a member of staff. Signs in with a username; the email address is optional.

    Others see the player's ``display_name`` (the nickname when set, else the username) and
    avatar; ``accounts.services.user_set_identity`` is the one way to change either.
    """

    # The table's sounds and vibration, on every device the player signs in on.
    sounds_on = models.BooleanField(_("sounds at the table"), default=True)
    nickname = models.CharField(
        _("nickname"),
        max_length=NICKNAME_MAX_LENGTH,
        blank=True,
        help_text=_("Shown instead of the username on the leaderboards and the player's page."),
    )
    avatar = models.CharField(_("avatar"), max_length=16, choices=Avatar.choices, blank=True)
    # The other players' quick phrases and emotes at the table.
    phrases_on = models.BooleanField(_("phrases at the table"), default=True)
    # Staff's mute of the player's own phrases, until this time.
    chat_banned_until = models.DateTimeField(_("phrases muted until"), null=True, blank=True)
    # Set only by ``manage.py seed_demo`` on the accounts it creates, so that it never takes over
    # an account someone else made under a demo name.
    is_demo = models.BooleanField(_("demo account"), default=False, editable=False)
    # What the username and the nickname look like (``accounts.names.name_skeleton``), kept by
    # ``save`` and indexed, so that a look-alike of a new name is found with one query.
    username_skeleton = models.CharField(max_length=600, editable=False, db_index=True, default="")
    nickname_skeleton = models.CharField(
        max_length=600, editable=False, db_index=True, blank=True, default=""
    )

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        # django-stubs declares these two as str, though Django's own are lazy translations too.
        verbose_name = _("user")  # type: ignore[assignment]
        verbose_name_plural = _("users")  # type: ignore[assignment]
        constraints = [
            # Two players never show the same name, whatever its case.
            models.UniqueConstraint(
                Lower("nickname"), condition=~Q(nickname=""), name="user_nickname_unique_ci"
            ),
        ]

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save, with the skeletons of the username and nickname as they are now."""
        self.username_skeleton = name_skeleton(self.get_username())
        self.nickname_skeleton = name_skeleton(self.nickname) if self.nickname else ""
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            fields = set(update_fields)
            if "username" in fields:
                fields.add("username_skeleton")
            if "nickname" in fields:
                fields.add("nickname_skeleton")
            kwargs["update_fields"] = fields
        super().save(*args, **kwargs)

    @property
    def display_name(self) -> str:
        """The name others see: the nickname when the player chose one, else the username."""
        return self.nickname or self.get_username()

    @property
    def avatar_static_path(self) -> str:
        """The avatar's file under the static root."""
        return f"avatars/{self.avatar or DEFAULT_AVATAR}.svg"

    @property
    def is_house(self) -> bool:
        """Whether this is the house's system user (the owner of the house wallet)."""
        wallet = getattr(self, "wallet", None)
        return wallet is not None and wallet.is_house


class Wallet(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="wallet",
        verbose_name=_("user"),
    )
    balance = models.BigIntegerField(_("balance"), default=0)
    is_house = models.BooleanField(
        _("house wallet"),
        default=False,
        editable=False,
        help_text=_("The house's wallet: it pays what bots lose and receives what bots win."),
    )
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("wallet")
        verbose_name_plural = _("wallets")
        constraints = [
            models.CheckConstraint(
                condition=Q(balance__gte=0), name="wallet_balance_never_negative"
            ),
            models.UniqueConstraint(
                fields=["is_house"], condition=Q(is_house=True), name="wallet_one_house"
            ),
        ]

    def __str__(self) -> str:
        owner = _("House") if self.is_house else self.user
        return f"{owner} · {self.balance:,}"


class LedgerReason(models.TextChoices):
    SIGNUP_GRANT = "signup_grant", _("Welcome coins")
    RELIEF = "relief", _("Relief coins")
    GAME = "game", _("Game settlement")
    COMPENSATION = "compensation", _("Dispute compensation")
    STAFF_ADJUSTMENT = "staff_adjustment", _("Staff adjustment")
    HOUSE_FUNDING = "house_funding", _("House funding")
    CHECK_IN = "check_in", _("Daily check-in")
    DAILY_TASK = "daily_task", _("Daily task reward")


class LedgerEntryQuerySet(models.QuerySet["LedgerEntry"]):
    def update(self, **kwargs: Any) -> int:
        raise TypeError("ledger entries are append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise TypeError("ledger entries are append-only")


class LedgerEntry(models.Model):
    """One movement of coins in or out of one wallet. Never changed, never deleted."""

    wallet = models.ForeignKey(
        Wallet, on_delete=models.PROTECT, related_name="entries", verbose_name=_("wallet")
    )
    amount = models.BigIntegerField(_("amount"))
    balance_after = models.BigIntegerField(_("balance after"))
    reason = models.CharField(_("reason"), max_length=32, choices=LedgerReason.choices)
    game = models.ForeignKey(
        "games.Game",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="ledger_entries",
        verbose_name=_("game"),
    )
    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("staff member"),
    )
    note = models.CharField(_("note"), max_length=500, blank=True)
    created_at = models.DateTimeField(_("time"), auto_now_add=True, db_index=True)

    objects = LedgerEntryQuerySet.as_manager()

    class Meta:
        verbose_name = _("ledger entry")
        verbose_name_plural = _("ledger entries")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(balance_after__gte=0), name="ledger_balance_after_never_negative"
            ),
            models.CheckConstraint(condition=~Q(amount=0), name="ledger_amount_not_zero"),
            # A game settles into each wallet at most once, whatever is retried.
            models.UniqueConstraint(
                fields=["wallet", "game"],
                condition=Q(reason="game"),
                name="ledger_one_settlement_per_wallet_and_game",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.wallet.user} {self.amount:+,} ({self.get_reason_display()})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise TypeError("ledger entries are append-only")
        # django-stubs types the key as never None, which an unsaved row's is.
        super().save(*args, **kwargs)  # type: ignore[unreachable]

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError("ledger entries are append-only")


class RewardKind(models.TextChoices):
    """The daily rewards: the check-in (每日签到) and each daily task (每日任务)."""

    CHECK_IN = "check_in", _("Daily check-in")
    PLAY_GAMES = "play_games", _("Play games")
    WIN_GAME = "win_game", _("Win a game")
    USE_BOMB = "use_bomb", _("Play a bomb or a rocket")


class RewardClaim(models.Model):
    """A daily reward paid to a player, with the ledger row that paid it. Never changed."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="reward_claims",
        verbose_name=_("player"),
    )
    day = models.DateField(_("day"), help_text=_("The calendar day of the reward, in TIME_ZONE."))
    kind = models.CharField(_("reward"), max_length=32, choices=RewardKind.choices)
    streak = models.PositiveSmallIntegerField(
        _("streak"),
        null=True,
        blank=True,
        help_text=_("Check-ins only: how many days in a row the player has checked in."),
    )
    ledger_entry = models.OneToOneField(
        LedgerEntry,
        on_delete=models.PROTECT,
        related_name="reward_claim",
        verbose_name=_("ledger entry"),
    )
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        verbose_name = _("reward claim")
        verbose_name_plural = _("reward claims")
        ordering = ["-day", "-id"]
        constraints = [
            # Each reward once a day per player, whatever claims race.
            models.UniqueConstraint(fields=["user", "day", "kind"], name="reward_once_per_day"),
            models.CheckConstraint(
                condition=Q(kind="check_in", streak__gte=1)
                | (~Q(kind="check_in") & Q(streak=None)),
                name="reward_streak_only_for_check_in",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.day} · {self.get_kind_display()}"
