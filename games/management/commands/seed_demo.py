"""``manage.py seed_demo``: demo accounts for a development site. Does nothing unless DEBUG is on.

Creates, when missing, the staff user ``admin`` (password from ``DEMO_ADMIN_PASSWORD``, default
``admin``) and two players with wallets: ``zhangsan`` with the welcome coins, and ``lisi`` with
300,000 coins, enough for the higher rooms and too many for 新手场 (password from
``DEMO_PLAYER_PASSWORD``, default ``player``). The rooms themselves come from a migration.
Running it again changes nothing: existing accounts, passwords and wallets are left as they are.
The accounts it creates are marked ``User.is_demo``; an account under one of these names that it
did not create (someone signed up as ``admin``) is never changed, only reported.
With DEBUG off, ``manage.py check --deploy`` fails while a demo password still opens one of them
(``accounts.demo``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.demo import (
    DEMO_ADMIN_USERNAME,
    DEMO_PLAYER_USERNAMES,
    demo_admin_password,
    demo_player_password,
)
from accounts.models import LedgerReason, User, Wallet
from accounts.services import coins_move, wallet_create

ADMIN_USERNAME = DEMO_ADMIN_USERNAME
# username, coins in the wallet when it is created
PLAYERS = list(zip(DEMO_PLAYER_USERNAMES, [None, 300_000], strict=True))


class Command(BaseCommand):
    help = "Create the demo staff user and demo players (only with DEBUG on; idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            self.stdout.write("DEBUG is off: seed_demo creates no demo accounts.")
            return
        with transaction.atomic():
            admin = self.admin()
            for username, coins in PLAYERS:
                self.player(username, coins=coins, staff=admin)

    def left_alone(self, username: str) -> None:
        self.stdout.write(
            f"An account named {username} exists that seed_demo did not create: left as it is."
        )

    def admin(self) -> User | None:
        """The demo staff user, or None when someone else's account holds its name."""
        user, created = User.objects.get_or_create(
            username=ADMIN_USERNAME,
            defaults={"is_staff": True, "is_superuser": True, "is_demo": True},
        )
        if created:
            user.set_password(demo_admin_password())
            user.save(update_fields=["password"])
            self.stdout.write(f"Created the staff user {ADMIN_USERNAME}.")
        elif not user.is_demo:
            self.left_alone(ADMIN_USERNAME)
            return None
        elif not (user.is_staff and user.is_superuser):
            user.is_staff = user.is_superuser = True
            user.save(update_fields=["is_staff", "is_superuser"])
            self.stdout.write(f"Made {ADMIN_USERNAME} staff again.")
        return user

    def player(self, username: str, *, coins: int | None, staff: User | None) -> None:
        user, created = User.objects.get_or_create(username=username, defaults={"is_demo": True})
        if created:
            user.set_password(demo_player_password())
            user.save(update_fields=["password"])
            self.stdout.write(f"Created the demo player {username}.")
        elif not user.is_demo:
            self.left_alone(username)
            return
        if Wallet.objects.filter(user=user).exists():
            return
        wallet = wallet_create(user=user)
        if coins is not None and coins != wallet.balance:
            coins_move(
                wallet=wallet,
                amount=coins - wallet.balance,
                reason=LedgerReason.STAFF_ADJUSTMENT,
                staff=staff,
                note="Demo coins",
            )
        self.stdout.write(f"Opened a wallet for {username} with {wallet.balance:,} coins.")
