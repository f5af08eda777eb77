"""The daily rewards' card on the profile and in the lobby, its buttons, and its admin page."""

from __future__ import annotations

import re

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from accounts.models import LedgerEntry, LedgerReason, RewardClaim, RewardKind, User, Wallet
from accounts.rewards import check_in_claim

pytestmark = pytest.mark.django_db

PROFILE = reverse("accounts:profile")
LOBBY = reverse("games:home")
CHECK_IN = reverse("accounts:check_in")


def logged_in(user: User, language: str = "en") -> Client:
    client = Client(headers={"accept-language": language})
    client.force_login(user)
    return client


def task_url(kind: str) -> str:
    return reverse("accounts:task_claim", args=[kind])


def messages_of(response: object) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]  # type: ignore[attr-defined]


def test_the_profile_shows_the_check_in_and_the_tasks(player: User) -> None:
    html = logged_in(player).get(PROFILE).content.decode()
    assert 'id="rewards"' in html
    assert len(re.findall(r'class="streak-dot[^"]*" data-day="\d"', html)) == 7
    assert re.search(r'class="streak-dot is-today" data-day="1" aria-current="date"', html)
    assert 'data-action="check-in"' in html
    assert f'action="{CHECK_IN}"' in html
    for kind in ("play_games", "win_game", "use_bomb"):
        assert f'data-task="{kind}" data-progress="0"' in html
    assert '<progress max="3" value="0"' in html
    assert 'data-action="claim-task"' not in html  # nothing done yet


def test_the_lobby_shows_the_card_to_players_only(player: User, client: Client) -> None:
    assert 'id="rewards"' not in client.get(LOBBY).content.decode()
    html = logged_in(player).get(LOBBY).content.decode()
    assert 'class="rewards rewards-compact"' in html
    assert 'data-action="check-in"' in html
    assert 'name="next" value="/#rewards"' in html


def test_checking_in_goes_back_with_a_message(player: User) -> None:
    client = logged_in(player)
    before = Wallet.objects.get(user=player).balance
    response = client.post(CHECK_IN, {"next": "/#rewards"})
    assert response.status_code == 302 and response["Location"] == "/#rewards"
    assert messages_of(response) == ["Checked in: day 1 in a row, 100 coins."]
    assert Wallet.objects.get(user=player).balance == before + 100

    html = client.get(LOBBY).content.decode()
    assert 'data-claimed="check_in"' in html and 'data-action="check-in"' not in html
    assert 'data-checked-today="1"' in html

    again = client.post(CHECK_IN, {"next": "/"})
    assert again["Location"] == "/"
    assert messages_of(again) == ["You have already checked in today. Come back tomorrow!"]
    assert Wallet.objects.get(user=player).balance == before + 100
    assert RewardClaim.objects.filter(user=player).count() == 1


def test_the_ledger_names_the_rewards(player: User) -> None:
    check_in_claim(user=player)
    html = logged_in(player).get(PROFILE).content.decode()
    assert "Daily check-in" in html
    assert LedgerEntry.objects.filter(wallet__user=player, reason=LedgerReason.CHECK_IN).exists()


def test_next_must_be_of_this_site(player: User) -> None:
    response = logged_in(player).post(CHECK_IN, {"next": "https://evil.example/"})
    assert response["Location"] == PROFILE


def test_a_task_not_done_is_refused_and_changes_nothing(player: User) -> None:
    client = logged_in(player)
    rows = LedgerEntry.objects.count()
    response = client.post(task_url("win_game"), {"next": PROFILE})
    assert response["Location"] == PROFILE
    assert messages_of(response) == ["This task is not done yet: 0 of 1."]
    unknown = client.post(task_url("fly"), {"next": PROFILE})
    assert messages_of(unknown)[-1] == "There is no such daily task."
    assert LedgerEntry.objects.count() == rows and not RewardClaim.objects.exists()


def test_the_buttons_need_a_login_a_post_and_the_csrf_token(player: User, client: Client) -> None:
    response = client.post(CHECK_IN)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))
    assert logged_in(player).get(CHECK_IN).status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(player)
    assert strict.post(CHECK_IN).status_code == 403
    assert strict.post(task_url("play_games")).status_code == 403
    assert not RewardClaim.objects.exists()


def test_the_card_is_chinese_first(player: User) -> None:
    html = logged_in(player, "zh-hans").get(PROFILE).content.decode()
    assert 'id="rewards"' in html  # its words are translated once the catalogue is compiled


def test_staff_see_the_claims_read_only(player: User, staff: User) -> None:
    claim = check_in_claim(user=player)
    client = logged_in(staff)
    listing = client.get(reverse("admin:accounts_rewardclaim_changelist"))
    assert listing.status_code == 200
    assert "xiaoming" in listing.content.decode() and "+100" in listing.content.decode()
    page = client.get(reverse("admin:accounts_rewardclaim_change", args=[claim.pk]))
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert client.get(reverse("admin:accounts_rewardclaim_add")).status_code == 403
    delete = client.post(reverse("admin:accounts_rewardclaim_delete", args=[claim.pk]))
    assert delete.status_code == 403
    assert RewardClaim.objects.filter(kind=RewardKind.CHECK_IN).count() == 1


def test_with_htmx_the_answer_is_the_card_and_the_new_balance(player: User) -> None:
    client = logged_in(player)
    before = Wallet.objects.get(user=player).balance
    response = client.post(
        CHECK_IN, {"next": "/#rewards", "compact": "1"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section class="rewards rewards-compact"')
    assert 'data-checked-today="1"' in html
    assert "Checked in: day 1 in a row, 100 coins." in html and "message-success" in html
    assert f'hx-swap-oob="innerHTML:[data-balance]">{before + 100:,}</span>' in html
    assert messages_of(response) == []  # the card says it; nothing waits for the next page

    again = client.post(CHECK_IN, {"next": "https://evil.example/"}, headers={"HX-Request": "true"})
    html = again.content.decode()
    assert 'class="rewards profile-card"' in html and "message-error" in html
    assert "already checked in" in html
    assert Wallet.objects.get(user=player).balance == before + 100
