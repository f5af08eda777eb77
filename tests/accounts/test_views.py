"""The profile page and the relief button."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import LedgerEntry, LedgerReason, User, Wallet
from accounts.services import coins_move
from games.models import Dispute

pytestmark = pytest.mark.django_db

PROFILE = reverse("accounts:profile")
RELIEF = reverse("accounts:relief")


def logged_in(user: User, language: str = "en") -> Client:
    client = Client(headers={"accept-language": language})
    client.force_login(user)
    return client


def test_the_profile_needs_a_login(client: Client) -> None:
    response = client.get(PROFILE)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


def test_the_profile_shows_name_balance_and_chart(player: User) -> None:
    wallet = Wallet.objects.get(user=player)
    coins_move(wallet=wallet, amount=-1_234, reason=LedgerReason.GAME)
    html = logged_in(player).get(PROFILE).content.decode()
    assert "xiaoming" in html
    assert 'data-testid="balance">8,766<' in html
    assert "<svg" in html
    assert re.search(r'<polyline class="chart-line" points="[0-9., ]+"', html)
    assert "10,000" in html and "8,766" in html  # the chart's max and min labels
    assert "−1,234" in html  # the ledger row, with a real minus sign
    assert "amount-out" in html and "amount-in" in html


def test_the_profile_is_chinese_first(player: User) -> None:
    html = logged_in(player, "zh-hans").get(PROFILE).content.decode()
    assert "余额" in html
    assert "金币流水" in html
    assert "注册礼金" in html


def test_a_player_without_a_wallet_sees_a_zero_balance(db: None) -> None:
    user = User.objects.create_user(username="nowallet")
    response = logged_in(user).get(PROFILE)
    assert response.status_code == 200
    assert 'data-testid="balance">0<' in response.content.decode()


def test_ledger_paging(player: User) -> None:
    wallet = Wallet.objects.get(user=player)
    for amount in range(1, 25):
        coins_move(wallet=wallet, amount=-amount, reason=LedgerReason.GAME)
    client = logged_in(player)
    first = client.get(PROFILE).content.decode()
    assert "Page 1 of 2" in first
    assert f'href="{PROFILE}?page=2#ledger"' in first
    assert "Welcome coins" not in first  # the oldest row is on page 2
    second = client.get(PROFILE, {"page": 2}).content.decode()
    assert "Page 2 of 2" in second
    assert "Welcome coins" in second
    assert "−4<" in second and "−5<" not in second


def test_other_players_data_is_never_shown(player: User, make_player, make_game, make_dispute):
    other = make_player(username="laowang")
    coins_move(
        wallet=Wallet.objects.get(user=other),
        amount=-7_777,
        reason=LedgerReason.STAFF_ADJUSTMENT,
        note="secret note for laowang",
    )
    game = make_game(players=[other, None], winner=0, coins=[4_321, -4_321])
    make_dispute(game=game, user=other, reason="laowang complains", note="laowang's answer")
    html = logged_in(player).get(PROFILE).content.decode()
    for secret in ["laowang", "7,777", "4,321", "secret note", f"/games/{game.pk}/"]:
        assert secret not in html
    assert "You have not played a game yet." in html
    assert "You have not opened any disputes." in html


def test_games_and_disputes_of_the_player(player: User, make_player, make_game, make_dispute):
    other = make_player()
    game = make_game(players=[other, player], winner=1, coins=[-800, 800], cards_left=[3, 0])
    lost = make_game(players=[player, other], winner=1, coins=[-1_600, 1_600], cards_left=[5, 0])
    make_dispute(
        game=lost,
        user=player,
        reason="my opponent played out of turn",
        status=Dispute.Status.REJECTED,
        note="The replay shows the play was legal.",
    )
    html = logged_in(player).get(PROFILE).content.decode()
    assert f'href="/games/{game.pk}/"' in html
    assert f'href="/games/{lost.pk}/"' in html
    assert "outcome-won" in html and "outcome-lost" in html
    assert "+800" in html and "−1,600" in html
    assert "Novice" in html
    assert "Rejected" in html
    assert "The replay shows the play was legal." in html


def test_a_game_row_in_the_ledger_links_to_the_game(player: User, make_player, make_game):
    game = make_game(players=[player, make_player()])
    coins_move(
        wallet=Wallet.objects.get(user=player), amount=500, reason=LedgerReason.GAME, game=game
    )
    html = logged_in(player).get(PROFILE).content.decode()
    assert f'<a href="/games/{game.pk}/">Game #{game.pk}</a>' in html


# Relief -------------------------------------------------------------------------------------------


def test_a_rich_player_sees_why_there_is_no_relief_button(player: User) -> None:
    html = logged_in(player).get(PROFILE).content.decode()
    assert f'action="{RELIEF}"' not in html
    assert "cannot afford any room" in html


def test_a_poor_player_claims_relief(make_player, settings) -> None:
    user = make_player(balance=10)
    client = logged_in(user)
    assert f'action="{RELIEF}"' in client.get(PROFILE).content.decode()
    response = client.post(RELIEF, follow=True)
    assert response.redirect_chain == [(PROFILE, 302)]
    html = response.content.decode()
    assert f"You received {settings.RELIEF_COINS:,} relief coins" in html
    assert Wallet.objects.get(user=user).balance == 10 + settings.RELIEF_COINS
    # Now above the lowest room's minimum: no button, and a second claim is refused.
    assert f'action="{RELIEF}"' not in html
    html = client.post(RELIEF, follow=True).content.decode()
    assert "cannot afford any room" in html
    assert LedgerEntry.objects.filter(wallet__user=user, reason=LedgerReason.RELIEF).count() == 1


def test_relief_needs_a_post_and_a_login(client: Client, player: User) -> None:
    assert logged_in(player).get(RELIEF).status_code == 405
    response = client.post(RELIEF)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))
    assert not LedgerEntry.objects.filter(reason=LedgerReason.RELIEF).exists()


SOUNDS = reverse("accounts:sounds")


def test_the_table_sounds_are_switched_and_remembered(player: User) -> None:
    client = logged_in(player)
    assert User.objects.get(pk=player.pk).sounds_on
    response = client.post(SOUNDS, {"on": "0"}, headers={"accept": "application/json"})
    assert response.status_code == 200 and response.json() == {"sounds_on": False}
    assert not User.objects.get(pk=player.pk).sounds_on
    # Without the table's script: the form goes back to the page it was on.
    response = client.post(SOUNDS, {"on": "1", "next": "/tables/7/"})
    assert response.status_code == 302 and response["Location"] == "/tables/7/"
    assert User.objects.get(pk=player.pk).sounds_on


def test_a_bad_sound_switch_is_refused_and_changes_nothing(client: Client, player: User) -> None:
    for data in ({}, {"on": "yes"}, {"on": ""}, {"on": "2"}):
        response = logged_in(player).post(SOUNDS, data)
        assert response.status_code == 400
        assert "on=1 or on=0" in response.content.decode()
    assert User.objects.get(pk=player.pk).sounds_on
    assert logged_in(player).get(SOUNDS).status_code == 405
    response = client.post(SOUNDS, {"on": "0"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))
    assert User.objects.get(pk=player.pk).sounds_on
    # Another site is never where the switch leads.
    response = logged_in(player).post(SOUNDS, {"on": "0", "next": "https://evil.example/"})
    assert response["Location"] == PROFILE
