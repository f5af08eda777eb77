"""``manage.py seed_demo``: demo accounts on a development site, and nothing elsewhere."""

from io import StringIO

import pytest
from django.core.management import call_command
from pytest_django.fixtures import Settings

from accounts.models import LedgerEntry, User, Wallet
from games.models import Room

pytestmark = pytest.mark.django_db


def seed() -> str:
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def test_creates_the_staff_user_and_two_players_with_wallets(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.DEBUG = True
    monkeypatch.setenv("DEMO_ADMIN_PASSWORD", "s3cret-admin")
    seed()

    admin = User.objects.get(username="admin")
    assert admin.is_staff and admin.is_superuser
    assert admin.check_password("s3cret-admin")
    assert not Wallet.objects.filter(user=admin).exists()

    players = Wallet.objects.filter(is_house=False)  # the house has its own, from a migration
    balances = dict(players.values_list("user__username", "balance"))
    assert balances == {"zhangsan": 10_000, "lisi": 300_000}
    assert User.objects.get(username="zhangsan").check_password("player")
    # Every coin came through the ledger: the welcome grant, then the staff's top-up.
    assert list(
        LedgerEntry.objects.filter(wallet__user__username="lisi")
        .order_by("id")
        .values_list("reason", "amount", "balance_after", "staff__username")
    ) == [("signup_grant", 10_000, 10_000, None), ("staff_adjustment", 290_000, 300_000, "admin")]
    # 干瞪眼's six rooms, 斗地主's five and 上海斗地主's five.
    assert sorted(Room.objects.values_list("game", flat=True)) == sorted(
        ["gandengyan"] * 6 + ["doudizhu"] * 5 + ["shanghai"] * 5
    )


def test_running_it_again_changes_nothing(settings: Settings) -> None:
    settings.DEBUG = True
    seed()
    admin = User.objects.get(username="admin")
    admin.set_password("changed")
    admin.save(update_fields=["password"])
    users, entries = User.objects.count(), LedgerEntry.objects.count()
    wallets = list(Wallet.objects.order_by("id").values_list("user__username", "balance"))

    assert "Created" not in seed()
    assert User.objects.count() == users
    assert LedgerEntry.objects.count() == entries
    assert list(Wallet.objects.order_by("id").values_list("user__username", "balance")) == wallets
    assert User.objects.get(username="admin").check_password("changed")


def test_does_nothing_without_debug(settings: Settings) -> None:
    settings.DEBUG = False
    assert "DEBUG is off" in seed()
    assert not User.objects.exclude(wallet__is_house=True).exists()
    assert not Wallet.objects.filter(is_house=False).exists()


def test_an_account_it_did_not_create_is_left_alone(settings: Settings) -> None:
    """A stranger who signed up as ``admin`` while DEBUG was off must not become a superuser,
    keeping their own password, when a developer later seeds the demo accounts."""
    settings.DEBUG = True
    stranger = User.objects.create_user(username="admin", password="strangers-own-pw-4")
    player = User.objects.create_user(username="zhangsan", password="real-players-pw-8")

    output = seed()

    stranger.refresh_from_db()
    assert not stranger.is_staff and not stranger.is_superuser
    assert stranger.check_password("strangers-own-pw-4")
    assert "admin" in output and "did not create" in output
    player.refresh_from_db()
    assert player.check_password("real-players-pw-8")
    assert not Wallet.objects.filter(user=player).exists()
    # The demo player it makes is still made, topped up by no one in particular.
    lisi = User.objects.get(username="lisi")
    assert lisi.check_password("player") and lisi.wallet.balance == 300_000
    assert LedgerEntry.objects.filter(wallet__user=lisi, staff__isnull=True).count() == 2


def test_it_still_restores_its_own_admin(settings: Settings) -> None:
    settings.DEBUG = True
    seed()
    User.objects.filter(username="admin").update(is_staff=False, is_superuser=False)
    assert "Made admin staff again." in seed()
    admin = User.objects.get(username="admin")
    assert admin.is_staff and admin.is_superuser
