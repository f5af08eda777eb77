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
