"""Relief claims and coin movements racing on the same wallets (PostgreSQL).

Each thread has its own database connection and they all start together. Whatever the
interleaving, the daily relief limit holds, no balance goes below zero, and every balance is the
sum of its wallet's ledger rows.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable

import pytest
from django.conf import settings
from django.db import connections
from django.db.models import Sum

from accounts.models import LedgerEntry, LedgerReason, User, Wallet
from accounts.services import (
    InsufficientCoins,
    ReliefRefused,
    coins_adjust_by_staff,
    coins_move,
    relief_claim,
    wallet_create,
)

# Row locks and concurrent transactions: skipped unless the run is on PostgreSQL.
pytestmark = pytest.mark.postgres

THREADS = 8


def _broke_player(name: str) -> User:
    user = User.objects.create_user(name, password="x")
    wallet = wallet_create(user=user)
    coins_move(wallet=wallet, amount=-wallet.balance, reason=LedgerReason.STAFF_ADJUSTMENT)
    return user


def _run_together(work: list[Callable[[], None]]) -> list[BaseException]:
    barrier = threading.Barrier(len(work))
    errors: list[BaseException] = []

    def run(job: Callable[[], None]) -> None:
        try:
            barrier.wait(timeout=30)
            job()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(job,)) for job in work]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return errors


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_simultaneous_relief_claims_pay_once_per_eligibility() -> None:
    players = [_broke_player(f"broke{i}") for i in range(3)]
    granted: Counter[str] = Counter()
    lock = threading.Lock()

    def claim_all() -> None:
        for user in players:
            try:
                relief_claim(user=user)
            except ReliefRefused:
                continue
            with lock:
                granted[user.username] += 1

    errors = _run_together([claim_all] * THREADS)

    assert errors == []
    # One claim lifts a player above the lowest room's minimum: the others must be refused.
    assert settings.RELIEF_COINS >= 1_000
    assert granted == {user.username: 1 for user in players}
    for user in players:
        wallet = Wallet.objects.get(user=user)
        assert wallet.balance == settings.RELIEF_COINS
        assert wallet.entries.filter(reason=LedgerReason.RELIEF).count() == 1


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_claims_and_spending_racing_keep_the_limit_and_the_sums() -> None:
    players = [_broke_player(f"poor{i}") for i in range(2)]
    staff = User.objects.create_user("cashier", password="x", is_staff=True)

    def claim_and_spend(number: int) -> None:
        rng = random.Random(number)
        for _ in range(12):
            user = rng.choice(players)
            try:
                if rng.random() < 0.5:
                    relief_claim(user=user)
                else:
                    # Spending takes the player back under the minimum, so they may claim again.
                    wallet = Wallet.objects.get(user=user)
                    coins_adjust_by_staff(
                        wallet=wallet, amount=-1_500, staff=staff, reason_text="spent at a table"
                    )
            except (ReliefRefused, InsufficientCoins):
                pass

    errors = _run_together([lambda n=n: claim_and_spend(n) for n in range(THREADS)])

    assert errors == []
    for user in players:
        wallet = Wallet.objects.get(user=user)
        entries = LedgerEntry.objects.filter(wallet=wallet)
        assert wallet.balance >= 0
        assert wallet.balance == entries.aggregate(total=Sum("amount"))["total"]
        assert entries.filter(reason=LedgerReason.RELIEF).count() <= settings.RELIEF_CLAIMS_PER_DAY
        # Each row's balance_after follows from the previous one: no lost update.
        running = 0
        for entry in entries.order_by("id"):
            running += entry.amount
            assert entry.balance_after == running >= 0
