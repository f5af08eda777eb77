"""Coin amounts stay within what the ledger holds and the business allows: one staff adjustment
adds or takes at most ``MAX_STAFF_ADJUSTMENT`` coins, and no wallet goes above ``MAX_BALANCE``
(far below the 64-bit columns). An amount beyond either is refused with a clear error and
nothing is written; before, 2^63 coins gave a 500."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from accounts.models import LedgerEntry, LedgerReason, User, Wallet
from accounts.services import (
    BalanceTooLarge,
    coins_adjust_by_staff,
    coins_move,
)

pytestmark = pytest.mark.django_db

WALLETS = reverse("admin:accounts_wallet_changelist")
LIMIT = 100_000_000


def adjust(client: Client, wallet: Wallet, amount: str) -> str:
    """Post the adjustment form; returns the form page shown again, or "" for a success."""
    response = client.post(
        WALLETS,
        {
            "action": "adjust_coins",
            "_selected_action": [str(wallet.pk)],
            "apply": "1",
            "amount": amount,
            "reason": "Support ticket",
        },
    )
    if response.status_code == 302:
        return ""
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def staff_client(staff: User) -> Client:
    client = Client(headers={"accept-language": "en"})
    client.force_login(staff)
    return client


def test_the_limits_fit_the_ledger() -> None:
    assert settings.MAX_STAFF_ADJUSTMENT == LIMIT
    assert settings.MAX_STAFF_ADJUSTMENT < settings.MAX_BALANCE < 2**63 // 1000


@pytest.mark.parametrize(
    "amount",
    [
        str(2**63),
        str(2**63 - 1),
        str(-(2**63)),
        str(-(2**64)),
        "9" * 40,
        "-" + "9" * 40,
        str(LIMIT + 1),
        str(-LIMIT - 1),
    ],
)
def test_an_adjustment_beyond_the_limit_is_refused_with_a_clear_error(
    staff_client: Client, player: User, staff: User, amount: str
) -> None:
    wallet = Wallet.objects.get(user=player)
    page = adjust(staff_client, wallet, amount)
    assert "An adjustment adds or takes at most 100,000,000 coins." in page
    assert Wallet.objects.get(user=player).balance == 10_000
    assert not LedgerEntry.objects.filter(staff=staff).exists()


@pytest.mark.parametrize("amount", [LIMIT, LIMIT - 1])
def test_an_adjustment_at_the_limit_is_made(
    staff_client: Client, player: User, staff: User, amount: int
) -> None:
    wallet = Wallet.objects.get(user=player)
    assert adjust(staff_client, wallet, str(amount)) == ""
    assert Wallet.objects.get(user=player).balance == 10_000 + amount
    assert adjust(staff_client, wallet, str(-amount)) == ""
    assert Wallet.objects.get(user=player).balance == 10_000
    assert LedgerEntry.objects.filter(staff=staff).count() == 2


def test_the_service_refuses_too_large_an_adjustment(player: User, staff: User) -> None:
    wallet = Wallet.objects.get(user=player)
    for amount in (2**63, -(2**63), LIMIT + 1, -LIMIT - 1):
        with pytest.raises(ValidationError):
            coins_adjust_by_staff(wallet=wallet, amount=amount, staff=staff, reason_text="x")
    assert not LedgerEntry.objects.filter(staff=staff).exists()


def test_no_wallet_goes_above_the_largest_balance(
    staff_client: Client, make_player: Callable[..., User], staff: User
) -> None:
    rich = make_player(username="rich", balance=settings.MAX_BALANCE - LIMIT + 1)
    wallet = Wallet.objects.get(user=rich)
    before = LedgerEntry.objects.count()
    page = adjust(staff_client, wallet, str(LIMIT))
    assert "a balance cannot go above 1,000,000,000,000,000. No wallet was changed." in page
    with pytest.raises(BalanceTooLarge):
        coins_move(wallet=wallet, amount=2**63, reason=LedgerReason.COMPENSATION)
    with pytest.raises(BalanceTooLarge):
        coins_move(wallet=wallet, amount=LIMIT, reason=LedgerReason.COMPENSATION)
    assert LedgerEntry.objects.count() == before
    assert Wallet.objects.get(user=rich).balance == settings.MAX_BALANCE - LIMIT + 1
    # Up to the largest balance exactly is allowed.
    assert adjust(staff_client, wallet, str(LIMIT - 1)) == ""
    assert Wallet.objects.get(user=rich).balance == settings.MAX_BALANCE
