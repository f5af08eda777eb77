"""The house wallet (系统庄家) that bots play for: opened by a migration, one only, and its system
user can never sign in nor be changed in the admin."""

from __future__ import annotations

import threading

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import IntegrityError, connections, transaction
from django.test import Client
from django.urls import reverse

from accounts.models import (
    HOUSE_OPENING_COINS,
    HOUSE_USERNAME,
    LedgerEntry,
    LedgerReason,
    User,
    Wallet,
)
from accounts.selectors import house_wallet_get
from accounts.services import house_wallet

LOGIN = "/accounts/login/"


def assert_is_the_opened_house(wallet: Wallet) -> None:
    assert wallet.is_house and wallet.balance == HOUSE_OPENING_COINS
    user = wallet.user
    assert user.username == HOUSE_USERNAME and user.is_house
    assert not user.is_active and not user.has_usable_password()
    assert not (user.is_staff or user.is_superuser)
    [entry] = LedgerEntry.objects.filter(wallet=wallet)
    assert (entry.amount, entry.balance_after, entry.reason) == (
        HOUSE_OPENING_COINS,
        HOUSE_OPENING_COINS,
        LedgerReason.HOUSE_FUNDING,
    )


@pytest.mark.django_db
def test_the_migrations_open_the_house_with_its_funding_row() -> None:
    wallet = house_wallet_get()
    assert wallet is not None
    assert_is_the_opened_house(wallet)
    assert Wallet.objects.filter(is_house=True).count() == 1
    assert house_wallet() == wallet  # the service finds it, and opens nothing


@pytest.mark.django_db
def test_the_database_allows_one_house_wallet_only() -> None:
    user = User.objects.create_user("second", password="pw-123456")
    with pytest.raises(IntegrityError), transaction.atomic():
        Wallet.objects.create(user=user, is_house=True)
    assert Wallet.objects.filter(is_house=True).count() == 1


@pytest.mark.django_db
def test_nobody_signs_in_as_the_house(client: Client) -> None:
    assert not client.login(username=HOUSE_USERNAME, password="")
    for password in ("", "house", "!"):
        client.post(LOGIN, {"login": HOUSE_USERNAME, "password": password})
        assert "_auth_user_id" not in client.session
    # Even with a password someone set outside the services, the house user is inactive.
    user = User.objects.get(username=HOUSE_USERNAME)
    user.set_password("hongtao-7-dui")
    user.save(update_fields=["password"])
    assert not client.login(username=HOUSE_USERNAME, password="hongtao-7-dui")
    client.post(LOGIN, {"login": HOUSE_USERNAME, "password": "hongtao-7-dui"})
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_the_house_name_cannot_be_signed_up_for(client: Client) -> None:
    for name in (HOUSE_USERNAME, HOUSE_USERNAME.upper()):
        client.post(
            "/accounts/signup/",
            {"username": name, "password1": "hongtao-7-dui", "password2": "hongtao-7-dui"},
        )
        assert User.objects.filter(username__iexact=HOUSE_USERNAME).count() == 1


@pytest.mark.django_db
def test_the_admin_shows_the_house_wallet_and_keeps_its_user_as_it_is(staff: User) -> None:
    client = Client(headers={"accept-language": "en"})
    client.force_login(staff)
    wallet = house_wallet()
    response = client.get(reverse("admin:accounts_wallet_changelist") + "?is_house__exact=1")
    assert response.status_code == 200
    assert list(response.context["cl"].result_list) == [wallet]
    page = client.get(reverse("admin:accounts_wallet_change", args=[wallet.pk]))
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()

    user = wallet.user
    page = client.get(reverse("admin:accounts_user_change", args=[user.pk]))
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    response = client.post(
        reverse("admin:accounts_user_change", args=[user.pk]),
        {"username": HOUSE_USERNAME, "is_active": "on"},
    )
    assert response.status_code == 403
    response = client.post(
        reverse("admin:auth_user_password_change", args=[user.pk]),
        {"password1": "hongtao-7-dui", "password2": "hongtao-7-dui"},
    )
    assert response.status_code == 403
    assert client.post(reverse("admin:accounts_user_delete", args=[user.pk])).status_code == 403
    user.refresh_from_db()
    assert not user.is_active and not user.has_usable_password()


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_missing_house_is_opened_again() -> None:
    # Emptied as a transactional test leaves the database (sequences kept, as Django does).
    call_command("flush", interactive=False, verbosity=0, reset_sequences=False)
    assert house_wallet_get() is None

    wallet = house_wallet()
    assert_is_the_opened_house(wallet)
    assert house_wallet() == wallet
    assert Wallet.objects.filter(is_house=True).count() == 1


@pytest.mark.postgres
@pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
    reason="concurrent transactions need PostgreSQL (set DATABASE_URL)",
)
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_threads_opening_a_missing_house_at_once_open_one() -> None:
    call_command("flush", interactive=False, verbosity=0, reset_sequences=False)
    threads = 8
    barrier = threading.Barrier(threads)
    opened: list[int] = []
    errors: list[BaseException] = []

    def open_house() -> None:
        try:
            barrier.wait(timeout=30)
            with transaction.atomic():
                opened.append(house_wallet().pk)
        except BaseException as exc:  # reported by the test
            errors.append(exc)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=open_house) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)

    assert errors == []
    wallet = house_wallet_get()
    assert wallet is not None and opened == [wallet.pk] * threads
    assert_is_the_opened_house(wallet)
