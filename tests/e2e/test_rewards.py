"""The daily rewards in a real browser: check in from the lobby (the card answers in place), and
from the profile with JavaScript off (the form posts and the page comes back)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from accounts.rewards import check_in_claim
from accounts.selectors import check_in_coins
from accounts.services import wallet_create
from tests.e2e import browser
from tests.e2e.finished_games import finished_game

pytestmark = pytest.mark.e2e


def make_player(username: str) -> User:
    user = User.objects.create_user(username=username, password=browser.PASSWORD)
    wallet_create(user=user)
    return user


def coins(text: str) -> int:
    return int(text.replace(",", ""))


class DailyRewards(browser.BrowserTestCase):
    def test_a_player_checks_in_and_sees_the_streak_and_the_tasks(self) -> None:
        user = make_player("qiandao")
        # Checked in yesterday: today is the streak's second day.
        check_in_claim(user=user, now=timezone.now() - timedelta(days=1))
        finished_game(user, seed=7)
        page = self.page
        self.log_in(page, "qiandao")

        card = page.locator("#rewards")
        expect(card).to_have_attribute("data-streak", "2")
        expect(card).to_have_attribute("data-checked-today", "0")
        expect(card.locator(".streak-dot")).to_have_count(7)
        expect(card.locator(".streak-dot.is-checked")).to_have_count(1)
        expect(card.locator(".streak-dot.is-today")).to_have_attribute("data-day", "2")
        expect(card.locator("[data-task=play_games]")).to_have_attribute("data-progress", "1")
        expect(card.locator("[data-task=play_games] progress")).to_have_attribute("value", "1")
        self.shot("lobby-before")

        lobby_balance = page.locator(".player-box .balance-amount")
        before = coins(lobby_balance.inner_text())
        card.locator("[data-action=check-in]").click()

        # htmx swaps the card and the balance in place: the page stays where it was.
        card = page.locator("#rewards")
        expect(card).to_have_attribute("data-checked-today", "1")
        expect(card.locator(".rewards-notice.message-success")).to_be_visible()
        expect(card.locator(".streak-dot.is-checked")).to_have_count(2)
        expect(card.locator("[data-claimed=check_in]")).to_be_visible()
        expect(card.locator("[data-action=check-in]")).to_have_count(0)
        expect(lobby_balance).to_have_text(f"{before + check_in_coins(2):,}")
        expect(page).to_have_url(self.url("/"))
        self.shot("lobby-checked-in")

        page.locator(".player-box-link").click()
        expect(page).to_have_url(self.url("/accounts/profile/"))
        profile_card = page.locator("#rewards")
        expect(profile_card).to_have_attribute("data-streak", "2")
        expect(profile_card.locator("[data-claimed=check_in]")).to_be_visible()
        expect(page.locator("#ledger tbody tr").first).to_contain_text(f"+{check_in_coins(2):,}")
        self.shot("profile")

        phone = self.new_context(viewport={"width": 390, "height": 844}).new_page()
        phone.context.add_cookies(self.context.cookies())
        phone.goto(self.url("/"))
        expect(phone.locator("#rewards .streak-dot")).to_have_count(7)
        self.shot("lobby-phone", phone)

    def test_checking_in_works_without_javascript(self) -> None:
        make_player("nojs")
        page = self.new_context(java_script_enabled=False).new_page()
        self.log_in(page, "nojs")
        page.goto(self.url("/accounts/profile/"))
        balance = page.locator("[data-testid=balance]")
        before = coins(balance.inner_text())
        page.locator("#rewards [data-action=check-in]").click()

        expect(page).to_have_url(self.url("/accounts/profile/#rewards"))
        expect(page.locator(".messages .message-success")).to_be_visible()
        expect(page.locator("#rewards")).to_have_attribute("data-checked-today", "1")
        expect(page.locator("#rewards")).to_have_attribute("data-streak", "1")
        expect(balance).to_have_text(f"{before + check_in_coins(1):,}")
        self.shot("profile-no-javascript", page)
