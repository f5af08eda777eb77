"""accounts.adapter: signing up through allauth opens a wallet with the welcome grant."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import LedgerEntry, LedgerReason, User, Wallet

pytestmark = pytest.mark.django_db

SIGNUP = "/accounts/signup/"


def test_signup_opens_exactly_one_wallet_with_the_welcome_grant(client: Client) -> None:
    response = client.post(
        SIGNUP,
        {
            "username": "xiaoming",
            "email": "xm@example.com",
            "password1": "hongtao-7-dui",
            "password2": "hongtao-7-dui",
        },
    )
    assert response.status_code == 302
    user = User.objects.get(username="xiaoming")
    assert Wallet.objects.filter(is_house=False).count() == 1  # the house has the other
    assert Wallet.objects.get(user=user).balance == 10_000
    [entry] = LedgerEntry.objects.filter(wallet__is_house=False)
    assert (entry.wallet.user, entry.amount, entry.balance_after, entry.reason) == (
        user,
        10_000,
        10_000,
        LedgerReason.SIGNUP_GRANT,
    )


def test_a_refused_signup_opens_no_wallet(client: Client) -> None:
    response = client.post(
        SIGNUP, {"username": "xiaoming", "password1": "hongtao-7-dui", "password2": "other-9"}
    )
    assert response.status_code == 200
    assert not User.objects.exclude(wallet__is_house=True).exists()
    assert not Wallet.objects.filter(is_house=False).exists()
    assert not LedgerEntry.objects.filter(wallet__is_house=False).exists()


def test_the_user_and_the_wallet_are_saved_together(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_wallet_create(**kwargs: object) -> None:
        raise RuntimeError("the wallet could not be opened")

    monkeypatch.setattr("accounts.adapter.wallet_create", broken_wallet_create)
    with pytest.raises(RuntimeError):
        client.post(
            SIGNUP,
            {"username": "xiaoming", "password1": "hongtao-7-dui", "password2": "hongtao-7-dui"},
        )
    assert not User.objects.filter(username="xiaoming").exists()
    assert not Wallet.objects.filter(is_house=False).exists()
