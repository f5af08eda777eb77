"""Admin of users, wallets and the ledger: who may see it, the coin adjustment, read-only rows."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from accounts.models import LedgerEntry, LedgerReason, User, Wallet

pytestmark = pytest.mark.django_db

WALLETS = reverse("admin:accounts_wallet_changelist")
LEDGER = reverse("admin:accounts_ledgerentry_changelist")


def admin_urls(user: User) -> list[str]:
    wallet = Wallet.objects.get(user=user)
    entry = LedgerEntry.objects.filter(wallet=wallet).first()
    assert entry is not None
    urls = [reverse("admin:app_list", args=["accounts"])]
    for model, pk in [("user", user.pk), ("wallet", wallet.pk), ("ledgerentry", entry.pk)]:
        urls += [
            reverse(f"admin:accounts_{model}_changelist"),
            reverse(f"admin:accounts_{model}_add"),
            reverse(f"admin:accounts_{model}_change", args=[pk]),
            reverse(f"admin:accounts_{model}_delete", args=[pk]),
            reverse(f"admin:accounts_{model}_history", args=[pk]),
        ]
    urls.append(reverse("admin:auth_user_password_change", args=[user.pk]))
    return urls


def adjust(client: Client, wallets: list[Wallet], **data: object) -> object:
    return client.post(
        WALLETS,
        {
            "action": "adjust_coins",
            "_selected_action": [str(wallet.pk) for wallet in wallets],
            **data,
        },
    )


def en_client(user: User | None = None) -> Client:
    client = Client(headers={"accept-language": "en"})
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.parametrize("who", ["anonymous", "player"])
def test_non_staff_are_sent_to_the_admin_login_everywhere(who: str, player: User) -> None:
    client = en_client(None if who == "anonymous" else player)
    login = reverse("admin:login")
    for url in admin_urls(player):
        for response in (client.get(url), client.post(url, {})):
            assert response.status_code == 302, url
            assert response["Location"].startswith(f"{login}?next="), url
    response = adjust(
        client, [Wallet.objects.get(user=player)], apply="1", amount="500", reason="x"
    )
    assert response.status_code == 302
    assert response["Location"].startswith(f"{login}?next=")
    assert Wallet.objects.get(user=player).balance == 10_000
    assert LedgerEntry.objects.filter(wallet__user=player).count() == 1


def test_staff_run_the_adjust_action(player: User, staff: User, make_player) -> None:
    other = make_player(username="laoli")
    wallets = [Wallet.objects.get(user=player), Wallet.objects.get(user=other)]
    client = en_client(staff)

    form = adjust(client, wallets)
    assert form.status_code == 200
    html = form.content.decode()
    assert 'name="amount"' in html and 'name="reason"' in html
    assert "xiaoming" in html and "laoli" in html

    response = adjust(client, wallets, apply="1", amount="-300", reason="Double settlement")
    assert response.status_code == 302
    assert response["Location"] == WALLETS
    for user in (player, other):
        entry = LedgerEntry.objects.filter(wallet__user=user).order_by("-id").first()
        assert (entry.amount, entry.reason, entry.staff, entry.note) == (
            -300,
            LedgerReason.STAFF_ADJUSTMENT,
            staff,
            "Double settlement",
        )
        assert Wallet.objects.get(user=user).balance == 9_700
    messages = [str(m) for m in client.get(WALLETS).context["messages"]]
    assert messages == ["Adjusted 2 wallets by -300 coins each."]


def test_an_adjustment_that_would_go_below_zero_changes_no_wallet(
    player: User, staff: User, make_player: Callable[..., User]
) -> None:
    poor = make_player(username="poor", balance=100)
    wallets = [Wallet.objects.get(user=player), Wallet.objects.get(user=poor)]
    response = adjust(en_client(staff), wallets, apply="1", amount="-500", reason="Fine")
    assert response.status_code == 200
    assert "poor has only 100 coins" in response.content.decode()
    assert Wallet.objects.get(user=player).balance == 10_000
    assert Wallet.objects.get(user=poor).balance == 100
    assert not LedgerEntry.objects.filter(staff=staff).exists()


@pytest.mark.parametrize(
    ("amount", "reason"), [("500", ""), ("500", "   "), ("0", "x"), ("a", "x")]
)
def test_the_adjust_form_needs_an_amount_and_a_reason(
    player: User, staff: User, amount: str, reason: str
) -> None:
    wallet = Wallet.objects.get(user=player)
    response = adjust(en_client(staff), [wallet], apply="1", amount=amount, reason=reason)
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert not LedgerEntry.objects.filter(staff=staff).exists()


def test_staff_without_the_wallet_permission_cannot_adjust(player: User, make_player) -> None:
    viewer = make_player(username="viewer", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_wallet"))
    client = en_client(viewer)
    assert client.get(WALLETS).status_code == 200
    assert "adjust_coins" not in client.get(WALLETS).content.decode()
    wallet = Wallet.objects.get(user=player)
    adjust(client, [wallet], apply="1", amount="500", reason="gift")
    assert Wallet.objects.get(user=player).balance == 10_000
    assert not LedgerEntry.objects.filter(reason=LedgerReason.STAFF_ADJUSTMENT).exists()


def test_the_wallet_balance_is_not_editable(player: User, staff: User) -> None:
    wallet = Wallet.objects.get(user=player)
    client = en_client(staff)
    url = reverse("admin:accounts_wallet_change", args=[wallet.pk])
    page = client.get(url)
    assert page.status_code == 200
    assert 'name="balance"' not in page.content.decode()
    assert client.post(url, {"balance": "99999999"}).status_code == 403
    assert client.get(reverse("admin:accounts_wallet_add")).status_code == 403
    assert Wallet.objects.get(pk=wallet.pk).balance == 10_000


def test_the_ledger_is_read_only_in_the_admin(player: User, staff: User) -> None:
    entry = LedgerEntry.objects.get(wallet__user=player)
    client = en_client(staff)
    changelist = client.get(LEDGER, {"reason__exact": "signup_grant", "q": "xiaoming"})
    assert changelist.status_code == 200
    html = changelist.content.decode()
    assert "xiaoming" in html
    assert "delete_selected" not in html
    change = reverse("admin:accounts_ledgerentry_change", args=[entry.pk])
    page = client.get(change)
    assert page.status_code == 200
    assert 'name="amount"' not in page.content.decode()
    assert client.post(change, {"amount": "1"}).status_code == 403
    assert client.get(reverse("admin:accounts_ledgerentry_add")).status_code == 403
    delete = reverse("admin:accounts_ledgerentry_delete", args=[entry.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    assert LedgerEntry.objects.get(pk=entry.pk).amount == 10_000


def test_the_ledger_date_hierarchy_works(player: User, staff: User) -> None:
    entry = LedgerEntry.objects.get(wallet__user=player)
    response = en_client(staff).get(LEDGER, {"created_at__year": entry.created_at.year})
    assert response.status_code == 200


def test_a_user_added_in_the_admin_gets_a_wallet(staff: User) -> None:
    response = en_client(staff).post(
        reverse("admin:accounts_user_add"),
        {
            "username": "newbie",
            "password1": "hongtao-7-dui",
            "password2": "hongtao-7-dui",
            "usable_password": "true",
        },
    )
    assert response.status_code == 302
    wallet = Wallet.objects.get(user__username="newbie")
    assert wallet.balance == 10_000
    assert wallet.entries.get().reason == LedgerReason.SIGNUP_GRANT


def test_the_user_list_shows_balances(player: User, staff: User) -> None:
    html = en_client(staff).get(reverse("admin:accounts_user_changelist")).content.decode()
    assert "10,000" in html
