"""The leaderboards and a player's page in a real browser: a player picks a nickname and an
avatar, finds themself on the boards after two finished games, follows their name to their
public page, and the same pages on a phone 390 px wide, which never scroll sideways."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.e2e import browser
from tests.e2e.finished_games import finished_game
from tests.e2e.test_journeys import make_player

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}


def assert_no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide"


@override_settings(LEADERBOARD_MIN_GAMES=2)
class Leaderboards(browser.BrowserTestCase):
    def test_nickname_leaderboards_and_a_players_page(self) -> None:
        self.shot_prefix = "g-leaderboard"
        player = make_player("xiaoming")
        for seed in (3, 4):
            finished_game(player, seed=seed)

        page = self.page
        self.log_in(page, "xiaoming")

        # The nickname and the avatar, chosen on the profile page.
        page.goto(self.url("/accounts/profile/"))
        form = page.locator("form.identity-form")
        form.locator("input[name=nickname]").fill("  小明同学 ")
        form.locator('.avatar-choice:has(input[value="tiger"])').click()
        expect(form.locator('input[value="tiger"]')).to_be_checked()
        self.shot("profile-form")
        form.locator('[data-action="identity-save"]').click()
        expect(page).to_have_url(self.url("/accounts/profile/#identity"))
        expect(page.locator(".profile-head h1")).to_have_text("小明同学")
        expect(page.locator(".nav-user img")).to_have_attribute(
            "src", re.compile(r"avatars/tiger\.svg$")
        )
        assert User.objects.get(pk=player.pk).nickname == "小明同学"

        # A nickname already someone's username is refused, and the form says why.
        form = page.locator("form.identity-form")
        form.locator("input[name=nickname]").fill("opponent-a-3")
        form.locator('[data-action="identity-save"]').click()
        expect(page.locator("#identity .errorlist")).to_be_visible()
        self.shot("profile-form-error")
        assert User.objects.get(pk=player.pk).nickname == "小明同学"

        # The coins board of 干瞪眼, through the site's nav.
        page.locator('.site-nav [data-nav="leaderboard"]').click()
        expect(page.locator(".leaderboard")).to_have_attribute("data-board", "coins")
        rows = page.locator(".board-table tbody .board-row")
        expect(rows).to_have_count(5)  # me and the four opponents, no bot
        own = page.locator(".board-row.is-own")
        expect(own).to_have_attribute("data-user", "xiaoming")
        expect(own.locator(".player-chip-name")).to_have_text("小明同学")
        expect(own.locator(".board-games")).to_have_text("2")
        self.shot("coins")

        # The tabs: 斗地主 has no games yet; back to 干瞪眼's win rates.
        page.locator('[data-tab-game="doudizhu"]').click()
        expect(page).to_have_url(self.url("/leaderboard/?game=doudizhu&board=coins"))
        expect(page.locator('[data-testid="board-empty"]')).to_be_visible()
        expect(page.locator('[data-testid="own-rank-none"]')).to_be_visible()
        page.locator('[data-tab-board="winrate"]').click()
        page.locator('[data-tab-game="gandengyan"]').click()
        expect(page).to_have_url(self.url("/leaderboard/?game=gandengyan&board=winrate"))
        expect(page.locator(".board-row.is-own")).to_have_count(1)
        self.shot("winrate")

        # My name leads to my public page: results and my games, no coins.
        page.locator(".board-row.is-own .player-chip").click()
        expect(page).to_have_url(self.url("/players/xiaoming/"))
        expect(page.locator(".player-head h1")).to_have_text("小明同学")
        expect(page.locator('[data-testid="games-gandengyan"]')).to_have_text("2")
        expect(page.locator(".recent-game")).to_have_count(2)
        expect(page.locator(".recent-game-link")).to_have_count(2)
        assert "profile-balance" not in page.content()
        self.shot("player")

        # Someone else sees my page without the links to my games.
        other = self.new_context().new_page()
        other.goto(self.url("/players/xiaoming/"))
        expect(other.locator(".recent-game")).to_have_count(2)
        expect(other.locator(".recent-game-link")).to_have_count(0)
        missing = other.goto(self.url("/players/nobody-here/"))
        assert missing is not None and missing.status == 404

        # On a phone, 390 px wide: no page scrolls sideways.
        phone = self.new_context(viewport=PHONE).new_page()
        self.log_in(phone, "xiaoming")
        for path, name in (
            ("/leaderboard/", "phone-coins"),
            ("/leaderboard/?game=gandengyan&board=winrate", "phone-winrate"),
            ("/players/xiaoming/", "phone-player"),
            ("/players/opponent-b-3/", "phone-opponent"),
            ("/accounts/profile/#identity", "phone-profile"),
        ):
            phone.goto(self.url(path))
            assert_no_sideways_scroll(phone)
            self.shot(name, phone)
