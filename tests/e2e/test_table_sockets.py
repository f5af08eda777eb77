"""A table page refused as one socket too many (close code 4429): it says so, stays away, and
connects once the player tries again with a place free."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings
from playwright.sync_api import expect

from tests.e2e import browser
from tests.e2e.test_tables import make_player

pytestmark = pytest.mark.e2e


@override_settings(TABLE_SOCKETS_PER_USER=1, BOT_FILL_SECONDS=600)
class TooManyTabs(browser.BrowserTestCase):
    def test_one_table_page_too_many_is_told_why_and_can_try_again(self) -> None:
        make_player("zhaolei")
        page = self.page
        self.log_in(page, "zhaolei")
        page.goto(self.url("/rooms/novice/"))
        page.get_by_role("button", name="开始游戏").click()
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")

        other = self.context.new_page()
        other.goto(page.url)
        connection = other.locator("#connection")
        expect(connection).to_have_attribute("data-state", "busy")
        alert = other.locator("#connection-alert")
        expect(alert).to_be_visible()
        # The server's own words replaced the page's default ones.
        expect(alert.locator("#connection-busy-text")).to_contain_text(
            re.compile("too many table pages|打开的牌桌页面太多")
        )
        self.shot("refused", other)
        # It stays away rather than knocking again and again.
        other.wait_for_timeout(2500)
        expect(connection).to_have_attribute("data-state", "busy")

        page.close()  # its place is given back
        alert.locator("[data-when=busy] a.button").click()
        expect(other.locator("#connection")).to_have_attribute("data-state", "open")
        expect(other.locator("#connection-alert")).to_be_hidden()
        self.shot("after-trying-again", other)
