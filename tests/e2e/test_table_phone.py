"""The live table on phones (390×844 and 360×740) and a desktop: the turn clock's seconds and
its hurry colours, the meaning prompt over the table, the connection coming back after it drops
(or saying why it cannot), and no page a player reaches that scrolls sideways."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import override_settings
from playwright.sync_api import Locator, Page, expect

from accounts.models import User
from accounts.services import wallet_create
from games import services
from games.models import Table
from games.selectors import table_version
from tests.e2e import browser
from tests.e2e.finished_games import finished_game

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 740}
FAST_BOTS = {
    "BOT_FILL_SECONDS": 1,
    "BOT_MOVE_DELAY_SECONDS": 0.1,
    "TABLE_RUNNER_INTERVAL_SECONDS": 0.1,
}


def make_player(username: str) -> User:
    user = User.objects.create_user(username=username, password=browser.PASSWORD)
    wallet_create(user=user)
    return user


def relative_luminance(colour: str) -> float:
    """WCAG's relative luminance of a computed CSS colour (``rgb(r, g, b)``, opaque)."""
    numbers = [float(n) for n in re.findall(r"[\d.]+", colour)]
    assert len(numbers) == 3 or numbers[3] == 1, f"not an opaque colour: {colour}"
    channels = []
    for value in numbers[:3]:
        c = value / 255
        channels.append(c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4)
    return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]


def contrast(first: str, second: str) -> float:
    light, dark = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def assert_no_sideways_scroll(page: Page, where: str) -> None:
    """The page is no wider than the screen; the message names what sticks out."""
    found = page.evaluate(
        """() => {
          const width = window.innerWidth;
          const out = [...document.querySelectorAll("body *")]
            .filter(e => e.getBoundingClientRect().right > width + 0.5)
            .slice(0, 5).map(e => e.tagName.toLowerCase() + "." + e.className);
          return {scroll: document.documentElement.scrollWidth, width, out};
        }"""
    )
    assert found["scroll"] <= found["width"], f"{where} scrolls sideways: {found}"


def box(locator: Locator) -> dict[str, float]:
    rect = locator.bounding_box()
    assert rect is not None, f"{locator} is not shown"
    return rect


def assert_in_viewport(page: Page, locator: Locator) -> None:
    size = page.viewport_size
    assert size is not None
    rect = box(locator)
    assert rect["x"] >= 0 and rect["y"] >= 0, rect
    assert rect["x"] + rect["width"] <= size["width"], (rect, size)
    assert rect["y"] + rect["height"] <= size["height"], (rect, size)


def assert_seen_at_its_centre(locator: Locator) -> None:
    """Nothing covers or clips the element: the point at its centre hits it."""
    assert locator.evaluate(
        """e => { e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect();
          const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
          return r.width > 0 && r.height > 0 && (hit === e || e.contains(hit)); }"""
    ), f"{locator} is hidden"


def assert_clock_readable(page: Page) -> None:
    """The seconds left of the player's own turn: shown, whole, and big enough to read."""
    # After the socket's first frame, which replaces the table the page was served with: an
    # element found before it would be measured detached.
    expect(page.locator("#connection")).to_have_attribute("data-state", "open")
    text = page.locator(".me-area .countdown-text")
    expect(text).to_have_text(re.compile(r"^\d{1,2}s$"))
    assert_seen_at_its_centre(text)
    size = page.viewport_size
    assert size is not None
    rect = box(text)
    assert rect["x"] >= 0 and rect["x"] + rect["width"] <= size["width"], rect
    font_size = text.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert font_size >= 13, font_size


def connection_states(page: Page) -> list[str]:
    return list(page.evaluate("() => window.connectionStates"))


WATCH_CONNECTION = """() => {
  window.connectionStates = [];
  const elt = document.getElementById("connection");
  new MutationObserver(() => window.connectionStates.push(elt.dataset.state))
    .observe(elt, {attributes: true, attributeFilter: ["data-state"]});
}"""

# The page's socket, through the htmx websocket extension's data on the element that opened it.
DROP_SOCKET = """code => document.querySelector("[ws-connect]")["htmx-internal-data"]
  .webSocket.socket.close(code)"""


@override_settings(**FAST_BOTS)
class PhoneTable(browser.BrowserTestCase):
    # A deal that the player at seat 0 leads, holding J♦ Q♠ and a joker: 10 J Q or J Q K.
    deals = 88

    def test_the_clock_and_the_meaning_prompt_on_a_phone(self) -> None:
        make_player("shouji")
        phone = self.new_context(viewport=PHONE).new_page()
        self.log_in(phone, "shouji")
        phone.goto(self.url("/rooms/novice/"))
        phone.get_by_role("button", name="开私人牌桌").click()
        expect(phone).to_have_url(re.compile(r".*/tables/\d+/$"))
        # As a person would: once the page says it is connected.
        expect(phone.locator("#connection")).to_have_attribute("data-state", "open")
        phone.locator('[data-action="bots"]').click()
        table = phone.locator("#table")
        expect(table).to_have_attribute("data-status", "playing", timeout=20_000)
        expect(table).to_have_attribute("data-my-turn", "true")

        # The seconds left are in sight beside the bar, on a phone and on a desktop.
        assert_clock_readable(phone)
        self.shot("clock-phone", phone)
        self.log_in(self.page, "shouji")
        self.page.goto(phone.url)
        expect(self.page.locator("#table")).to_have_attribute("data-my-turn", "true")
        assert_clock_readable(self.page)
        self.shot("clock-desktop")
        self.page.close()

        # Two meanings: the prompt opens over the table, in sight without scrolling, with the
        # focus in it; Escape closes it and leaves the cards chosen.
        for code in ("Jd", "Qs", "BJ"):
            phone.locator(f'#hand-form label[data-card="{code}"]').click()
        phone.locator('[data-action="play"]').click()
        dialog = phone.locator("#prompt dialog[open]")
        expect(dialog).to_be_visible()
        choices = dialog.locator(".prompt-choice button")
        expect(choices).to_have_text(["顺子 10 J Q", "顺子 J Q K"])
        cancel = dialog.get_by_role("button", name="取消")
        for button in [*choices.all(), cancel]:
            assert_in_viewport(phone, button)
        assert dialog.evaluate("d => d.contains(document.activeElement)")
        self.shot("prompt-phone", phone)
        phone.keyboard.press("Escape")
        expect(phone.locator("#prompt dialog")).to_have_count(0)
        expect(phone.locator("#hand-form input[name=cards]:checked")).to_have_count(3)

        # The same on the smallest phone, where Cancel closes it.
        phone.set_viewport_size(SMALL_PHONE)
        phone.locator('[data-action="play"]').click()
        expect(dialog).to_be_visible()
        for button in [*choices.all(), cancel]:
            assert_in_viewport(phone, button)
        self.shot("prompt-small-phone", phone)
        cancel.click()
        expect(phone.locator("#prompt dialog")).to_have_count(0)

        # A choice plays the cards.
        version = table.get_attribute("data-version")
        phone.locator('[data-action="play"]').click()
        choices.first.click()
        expect(table).not_to_have_attribute("data-version", version or "")
        expect(phone.locator("#prompt dialog")).to_have_count(0)
        assert_no_sideways_scroll(phone, "the table at 360 px")

        # The last seconds: the red bar stands out from its track, the seconds from their pill.
        expect(table).to_have_attribute("data-my-turn", "true", timeout=20_000)
        hurry = phone.locator(".me-area .countdown.is-low")
        expect(hurry).to_be_visible(timeout=25_000)
        colours: dict[str, Any] = hurry.evaluate(
            """c => ({
              track: getComputedStyle(c).backgroundColor,
              bar: getComputedStyle(c.querySelector(".countdown-bar")).backgroundColor,
              pill: getComputedStyle(c.querySelector(".countdown-text")).backgroundColor,
              seconds: getComputedStyle(c.querySelector(".countdown-text")).color,
            })"""
        )
        assert contrast(colours["bar"], colours["track"]) >= 3, colours
        assert contrast(colours["seconds"], colours["pill"]) >= 4.5, colours
        assert_clock_readable(phone)
        self.shot("clock-hurry-small-phone", phone)


@override_settings(**FAST_BOTS)
class PhonePages(browser.BrowserTestCase):
    def test_no_page_a_player_reaches_scrolls_sideways_on_a_phone(self) -> None:
        user = make_player("xiaoping")
        game = finished_game(user, seed=7)
        table_url = ""
        for viewport in (PHONE, SMALL_PHONE):
            width = viewport["width"]
            page = self.new_context(viewport=viewport).new_page()
            for path in ("/", "/accounts/login/", "/accounts/signup/", "/rules/"):
                page.goto(self.url(path))
                assert_no_sideways_scroll(page, f"{path} at {width} px, signed out")
            self.log_in(page, "xiaoping")
            for path in ("/", "/rooms/novice/", "/accounts/profile/", f"/games/{game.pk}/"):
                page.goto(self.url(path))
                assert_no_sideways_scroll(page, f"{path} at {width} px")
            self.shot(f"game-record-{width}", page)

            if not table_url:
                page.goto(self.url("/rooms/novice/"))
                page.get_by_role("button", name="开私人牌桌").click()
                expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))
                table_url = page.url
            else:
                page.goto(table_url)
            table = page.locator("#table")
            expect(page.locator("#connection")).to_have_attribute("data-state", "open")
            invite = Table.objects.get(seats__user=user).invite_code
            if table.get_attribute("data-status") == "waiting":
                assert_no_sideways_scroll(page, f"the waiting table at {width} px")
                self.shot(f"waiting-{width}", page)
                page.locator('[data-action="bots"]').click()
            expect(table).to_have_attribute("data-status", "playing", timeout=20_000)
            assert_no_sideways_scroll(page, f"the table during a game at {width} px")
            self.shot(f"playing-{width}", page)
            page.goto(self.url(f"/join/{invite}/"))
            assert_no_sideways_scroll(page, f"the invitation at {width} px")
            page.context.close()


class Reconnecting(browser.BrowserTestCase):
    def open_private_table(self, page: Page) -> Table:
        page.goto(self.url("/rooms/novice/"))
        page.get_by_role("button", name="开私人牌桌").click()
        expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        page.evaluate(WATCH_CONNECTION)
        return Table.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))

    def test_the_table_comes_back_after_the_connection_drops(self) -> None:
        host = make_player("duanxian")
        make_player("pengyou")
        page = self.new_context(viewport=PHONE).new_page()
        self.log_in(page, "duanxian")
        table = self.open_private_table(page)
        connection = page.locator("#connection")
        alert = page.locator("#connection-alert")

        # The network goes: the page says so at once, and the table takes no clicks.
        page.context.set_offline(True)
        expect(connection).to_have_attribute("data-state", "offline")
        expect(alert).to_be_visible()
        expect(alert).to_contain_text("你已离线")
        assert page.locator("#table").evaluate("t => t.inert")
        # Meanwhile a friend sits down.
        friend = User.objects.get(username="pengyou")
        browser.off_the_loop(services.table_join_by_invite, user=friend, code=table.invite_code)
        table.refresh_from_db()
        now = table_version(table=table)
        assert page.locator("#table").get_attribute("data-version") != now
        self.shot("offline", page)

        # The network comes back: so does the table, as it is now.
        page.context.set_offline(False)
        expect(connection).to_have_attribute("data-state", "open")
        expect(page.locator("#table")).to_have_attribute("data-version", now)
        expect(page.locator(".opponents")).to_contain_text("pengyou")
        expect(alert).to_be_hidden()
        assert not page.locator("#table").evaluate("t => t.inert")

        # A clean close (code 1000, after which htmx alone would stay away): it comes back too.
        page.evaluate(WATCH_CONNECTION)
        page.evaluate(DROP_SOCKET, 1000)
        # The close is reported later: until then the state is still the old "open".
        page.wait_for_function("() => window.connectionStates.length > 0")
        expect(connection).to_have_attribute("data-state", "open")
        assert connection_states(page)[:1] == ["reconnecting"], connection_states(page)
        expect(page.locator("#table")).to_have_attribute("data-version", now)

        # Signed out in another tab: the next connection is refused, and the page says why
        # with a way to log in and come back.
        other = page.context.new_page()
        other.goto(self.url("/accounts/logout/"))
        # Closed only once the sign-out has landed: a tab closed while it navigates can leave
        # Playwright waiting for the close for good.
        with other.expect_navigation():
            other.locator("main form button[type=submit]").click()
        other.close()
        page.evaluate(DROP_SOCKET, 1000)
        expect(connection).to_have_attribute("data-state", "signed-out")
        login = alert.get_by_role("link", name="登录")
        expect(login).to_be_visible()
        expect(login).to_have_attribute("href", f"/accounts/login/?next=/tables/{table.pk}/")
        self.shot("signed-out", page)
        assert host.pk

    def test_a_table_that_closes_says_so(self) -> None:
        user = make_player("likai")
        page = self.new_context(viewport=SMALL_PHONE).new_page()
        self.log_in(page, "likai")
        self.open_private_table(page)
        # The only player leaves from another tab: the table closes, and this page may no longer
        # see it.
        other = page.context.new_page()
        other.goto(page.url)
        other.get_by_role("button", name="离开牌桌").click()
        expect(other).to_have_url(self.url("/"))
        other.close()
        assert Table.objects.get(created_by=user).status == Table.Status.CLOSED
        connection = page.locator("#connection")
        expect(connection).to_have_attribute("data-state", "gone")
        alert = page.locator("#connection-alert")
        expect(alert).to_contain_text("这张牌桌已不在")
        back = alert.get_by_role("link", name="返回大厅")
        assert_in_viewport(page, back)
        self.shot("gone", page)
        # It stays away, rather than reconnecting.
        page.wait_for_timeout(2500)
        assert connection_states(page) == ["gone"], connection_states(page)
        back.click()
        expect(page).to_have_url(self.url("/"))
