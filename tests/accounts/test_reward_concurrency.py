"""Daily rewards claimed many times at once (PostgreSQL): each is paid exactly once.

Each thread has its own database connection and they all start together; the one claim that
wins writes one ledger row, every other one is told the reward was claimed already.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connections
from django.db.models import Sum

from accounts.models import LedgerEntry, LedgerReason, RewardClaim, User, Wallet
from accounts.rewards import RewardAlreadyClaimed, check_in_claim, daily_task_claim
from accounts.services import wallet_create
from games.models import Table
from tests.games import helpers

# Row locks and concurrent transactions: skipped unless the run is on PostgreSQL.
pytestmark = pytest.mark.postgres

THREADS = 8


def _claim_together(claim: Callable[[], object]) -> tuple[int, list[BaseException]]:
    """Run ``claim`` in every thread at once: how many were paid, and what the others raised."""
    barrier = threading.Barrier(THREADS)
    paid: list[object] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def run() -> None:
        try:
            barrier.wait(timeout=30)
            result = claim()
            with lock:
                paid.append(result)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            with lock:
                errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return len(paid), errors


def _sums_hold(user: User) -> None:
    wallet = Wallet.objects.get(user=user)
    entries = LedgerEntry.objects.filter(wallet=wallet)
    assert wallet.balance == entries.aggregate(total=Sum("amount"))["total"]


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_simultaneous_check_ins_pay_once() -> None:
    user = User.objects.create_user("racer", password="x")
    start = wallet_create(user=user).balance

    paid, errors = _claim_together(lambda: check_in_claim(user=user))

    assert paid == 1
    assert len(errors) == THREADS - 1
    assert all(isinstance(error, RewardAlreadyClaimed) for error in errors)
    entries = LedgerEntry.objects.filter(wallet__user=user, reason=LedgerReason.CHECK_IN)
    assert entries.count() == 1 and RewardClaim.objects.filter(user=user).count() == 1
    assert Wallet.objects.get(user=user).balance == start + entries.get().amount
    _sums_hold(user)


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_simultaneous_task_claims_pay_once() -> None:
    players = [helpers.make_player(name) for name in ("zhao", "qian", "sun")]
    example = helpers.EXAMPLES["one soft bomb, A is spring"]
    game = helpers.start_from_position(
        table=Table.objects.create(room=helpers.make_room()),
        players=players,
        hands=example["hands"],
        stock="",
        dealer=example["dealer"],
    )
    helpers.act_all(game, example["actions"])  # seat 1 plays a bomb and wins
    winner = players[1]
    before = Wallet.objects.get(user=winner).balance

    paid, errors = _claim_together(lambda: daily_task_claim(user=winner, kind="use_bomb"))

    assert paid == 1
    assert len(errors) == THREADS - 1
    assert all(isinstance(error, RewardAlreadyClaimed) for error in errors)
    entries = LedgerEntry.objects.filter(wallet__user=winner, reason=LedgerReason.DAILY_TASK)
    assert entries.count() == 1
    assert Wallet.objects.get(user=winner).balance == before + entries.get().amount
    _sums_hold(winner)
