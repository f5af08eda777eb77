"""The table's sounds and the player's turn, noticed, in a real browser: each change's sound,
the turn's sound, a title and an icon that flash while the tab is in the background, and the
switch that silences them, remembered for the player."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.e2e import browser
from tests.e2e.test_tables import make_player, take_turn

pytestmark = pytest.mark.e2e

SOUNDS = ("deal", "play", "pass", "bid", "bomb", "rocket", "win", "lose", "turn")


# The newest change's sound and animation, once a frame shows one (null until then).
ANIMATION = """() => {
    const table = document.getElementById("table");
    if (!table || !table.dataset.fresh) { return null; }
    const cards = table.querySelector(".board-play .board-cards");
    return {
        fresh: table.dataset.fresh,
        sound: table.dataset.sound,
        cards: cards ? getComputedStyle(cards).animationName : null,
    };
}"""
ANIMATION_NOW = """() => {
    const cards = document.querySelector("#table .board-play .board-cards");
    return cards ? getComputedStyle(cards).animationName : null;
}"""


def played(page: Page) -> list[str]:
    return list(page.evaluate("() => window.tableNotice.played.slice()"))


def wait_for_my_turn(page: Page) -> None:
    expect(page.locator("#table")).to_have_attribute("data-my-turn", "true", timeout=30_000)


def hide_the_tab(page: Page, hidden: bool) -> None:
    """What the browser does when the player switches to another tab, and back."""
    page.evaluate(
        """hidden => {
            Object.defineProperty(document, "visibilityState",
                {configurable: true, get: () => hidden ? "hidden" : "visible"});
            document.dispatchEvent(new Event("visibilitychange"));
        }""",
        hidden,
    )


@override_settings(
    BOT_FILL_SECONDS=1, BOT_MOVE_DELAY_SECONDS=0.3, TABLE_RUNNER_INTERVAL_SECONDS=0.1
)
class TurnNotice(browser.BrowserTestCase):
    def test_sounds_and_a_flashing_tab_tell_the_turn_until_the_player_mutes_them(self) -> None:
        make_player("xiaoming")
        page = self.page
        self.log_in(page, "xiaoming")
        # The sounds are the site's own files, and the browser can play them.
        for name in SOUNDS:
            seconds = page.evaluate(
                """url => new Promise((done, failed) => {
                    const audio = new Audio(url);
                    audio.addEventListener("loadedmetadata", () => done(audio.duration));
                    audio.addEventListener("error", () => failed(new Error(url)));
                })""",
                f"/static/sounds/{name}.wav",
            )
            assert 0 < seconds < 1, (name, seconds)

        page.locator("#room-novice").get_by_role("button", name="开始游戏").click()
        expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))
        expect(page.locator("#sounds-toggle")).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#sounds-toggle")).to_have_text("声音：开")
        expect(page.locator("#table")).to_have_attribute("data-status", "playing", timeout=20_000)

        # The deal is heard, each move of the bots too, and the player's turn as it comes.
        wait_for_my_turn(page)
        page.wait_for_function("() => window.tableNotice.played.includes('turn')")
        heard = played(page)
        assert "deal" in heard or heard[0] in ("play", "pass", "bomb", "rocket"), heard
        assert set(heard) <= set(SOUNDS), heard
        self.shot("my-turn")

        # In a background tab the title and the icon flash until the player looks.
        take_turn(page, use_hint=True)
        # The player's own move is seen too: the frame that shows it first animates it, unless
        # the player's system asks for less motion.
        seen = page.wait_for_function(ANIMATION).json_value()
        assert seen["fresh"] == seen["sound"] and seen["sound"] in SOUNDS, seen
        if seen["fresh"] in ("play", "bomb") and seen["cards"] is not None:
            assert seen["cards"] == "play-in", seen
        page.emulate_media(reduced_motion="reduce")
        assert page.evaluate(ANIMATION_NOW) in (None, "none")
        page.emulate_media(reduced_motion="no-preference")
        expect(page.locator("#table")).not_to_have_attribute("data-my-turn", "true")
        title = page.title()
        hide_the_tab(page, True)
        wait_for_my_turn(page)
        page.wait_for_function("() => document.title.startsWith('轮到你了')")
        page.wait_for_function(
            "() => document.querySelector('link[rel=icon]').href.endsWith('favicon-turn.svg')"
        )
        hide_the_tab(page, False)
        expect(page).to_have_title(title)
        icon = page.locator("link[rel=icon]")
        expect(icon).to_have_attribute("href", re.compile(r"/favicon\.svg$"))

        # Muted: remembered for the player, after a reload and on the server; nothing is heard.
        with page.expect_response(lambda response: "/accounts/sounds/" in response.url) as sent:
            page.locator("#sounds-toggle").click()
        assert sent.value.ok and sent.value.json() == {"sounds_on": False}
        expect(page.locator("#sounds-toggle")).to_have_attribute("aria-pressed", "false")
        expect(page.locator("#sounds-toggle")).to_have_text("声音：关")
        expect(page.locator("[data-switch=sounds_on] [name=on]")).to_have_value("1")
        assert not User.objects.get(username="xiaoming").sounds_on
        page.reload()
        expect(page.locator("#sounds-toggle")).to_have_attribute("aria-pressed", "false")
        version = page.locator("#table").get_attribute("data-version")
        if page.locator("#table").get_attribute("data-my-turn") == "true":
            take_turn(page, use_hint=True)
        page.wait_for_function(
            "v => document.getElementById('table').dataset.version !== v", arg=version
        )
        wait_for_my_turn(page)
        assert played(page) == []
        self.shot("muted")
