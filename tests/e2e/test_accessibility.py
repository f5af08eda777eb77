"""Accessibility in a real browser: axe-core (the npm package pinned in package.json) finds no
serious or critical violation on the site's pages (the lobby, the rules, signing in, the
leaderboards, a player's public page and their own, a game's page, the table), in Chinese and
in English, on a computer and on a phone; cards are named in full for screen readers; and a
frame is morphed into the table, so the focused card, the live region and the table itself stay
the same elements."""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings
from django.test import override_settings
from playwright.sync_api import Page, expect

from tests.e2e import browser
from tests.e2e.finished_games import (
    finished_doudizhu_game,
    finished_game,
    finished_shanghai_game,
)
from tests.e2e.test_tables import (
    make_player,
    play_again,
    play_to_the_end,
    table_state,
    take_turn,
)

pytestmark = pytest.mark.e2e

AXE = settings.BASE_DIR / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"width": 390, "height": 844}

# The violations that keep someone from using the page (axe's "serious" and "critical"), with
# the first few elements of each, for the failure message.
RUN_AXE = """async () => {
    const results = await axe.run(document, {resultTypes: ["violations"]});
    return results.violations
        .filter(v => v.impact === "serious" || v.impact === "critical")
        .map(v => ({rule: v.id, impact: v.impact, help: v.help,
                    where: v.nodes.slice(0, 4).map(n => n.target.join(" "))}));
}"""

# What the page holds now, marked, so that a later look can tell whether a frame replaced the
# elements or morphed them in place.
MARK = """code => {
    window.marked = {
        table: document.getElementById("table"),
        announcer: document.getElementById("announcer"),
        card: document.getElementById("hand-" + code),
    };
}"""
SAME_ELEMENTS = """code => ({
    table: window.marked.table === document.getElementById("table"),
    announcer: window.marked.announcer === document.getElementById("announcer"),
    card: window.marked.card === document.getElementById("hand-" + code),
    focused: document.activeElement && document.activeElement.value,
})"""


def violations(page: Page) -> list[dict[str, object]]:
    """axe-core's serious and critical findings on the page as it is now."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    return list(page.evaluate(RUN_AXE))


class AxeTestCase(browser.BrowserTestCase):
    def setUp(self) -> None:
        super().setUp()
        # axe is added to each page as a tester's browser extension would add it: the site's
        # own policy allows only its own scripts.
        self.context = self.new_context(bypass_csp=True)
        self.page = self.context.new_page()

    def check(self, page: Page, where: str, found: dict[str, object]) -> None:
        found[where] = violations(page)
        self.shot(re.sub(r"\W+", "-", where).strip("-"), page)


# The deal's stages wait long enough that the runner never deals while a test plays a game of
# 斗地主 to the end outside the browser.
@override_settings(DEAL_STAGE_SECONDS=30)
class AccessiblePages(AxeTestCase):
    def test_pages_in_both_languages_on_a_computer_and_a_phone(self) -> None:
        player = make_player("xiaoming")
        gandengyan = finished_game(player, seed=7)
        doudizhu = finished_doudizhu_game(player, seed=8)
        shanghai = finished_shanghai_game(player, seed=9)
        found: dict[str, object] = {}
        for language in ("zh-CN", "en-US"):
            for viewport in ({"width": 1280, "height": 900}, PHONE):
                context = self.new_context(bypass_csp=True, locale=language, viewport=viewport)
                page = context.new_page()
                label = f"{language} {viewport['width']}"
                for path in (
                    "/",
                    "/rules/",
                    "/accounts/login/",
                    "/accounts/signup/",
                    "/leaderboard/",
                    "/leaderboard/?board=winrate",
                    "/players/xiaoming/",
                ):
                    page.goto(self.url(path))
                    self.check(page, f"{label} {path}", found)
                self.log_in(page, "xiaoming")
                for path in (
                    "/",
                    "/accounts/profile/",
                    f"/games/{gandengyan.pk}/",
                    f"/games/{doudizhu.pk}/",
                    f"/games/{gandengyan.pk}/replay/",
                    f"/games/{doudizhu.pk}/replay/?step=9",
                    f"/games/{shanghai.pk}/",
                    f"/games/{shanghai.pk}/replay/?step=9",
                ):
                    page.goto(self.url(path))
                    self.check(page, f"{label} signed in {path}", found)
                context.close()
        assert all(not found[where] for where in found), json.dumps(
            {where: seen for where, seen in found.items() if seen}, ensure_ascii=False, indent=1
        )


@override_settings(
    BOT_FILL_SECONDS=1, BOT_MOVE_DELAY_SECONDS=0.3, TABLE_RUNNER_INTERVAL_SECONDS=0.1
)
class AccessibleTables(AxeTestCase):
    def test_a_game_against_bots_morphs_each_frame_into_the_table(self) -> None:
        make_player("xiaohong")
        page = self.page
        self.log_in(page, "xiaohong")
        page.locator("#room-novice").get_by_role("button", name="开始游戏").click()
        expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))
        expect(page.locator("#table")).to_have_attribute("data-my-turn", "true", timeout=30_000)
        found: dict[str, object] = {}
        self.check(page, "table your turn", found)
        # The quick phrases' menu, and the players' dialog (mute, report), open.
        page.locator("#chat-toggle").click()
        expect(page.locator("#chat-menu")).to_be_visible()
        self.check(page, "table phrases", found)
        page.keyboard.press("Escape")
        page.locator("#chat-people-open").click()
        expect(page.locator("#chat-people")).to_be_visible()
        expect(page.locator("#chat-people-body")).not_to_be_empty()
        self.check(page, "table players dialog", found)
        page.locator("[data-chat-people-close]").click()
        expect(page.locator("#chat-people")).to_be_hidden()

        # Every card of the hand is a checkbox named in full, as a screen reader says it.
        codes = page.locator("#hand-form input[name=cards]").evaluate_all(
            "boxes => boxes.map(box => box.value)"
        )
        names = page.locator("#hand-form input[name=cards]").evaluate_all(
            "boxes => boxes.map(box => box.getAttribute('aria-label'))"
        )
        for code, name in zip(codes, names, strict=True):
            assert name == expected_name(code), (code, name)
        expect(page.get_by_role("checkbox", name=expected_name(codes[0]))).to_have_count(1)

        # The player plays the hint by the keyboard from a card they keep; frames follow (their
        # play, the bots'), and the card they were on keeps the focus, as the same element.
        wait_for_a_turn_with_a_play(page)
        codes = page.locator("#hand-form input[name=cards]").evaluate_all(
            "boxes => boxes.map(box => box.value)"
        )
        page.locator('#hand-form [data-action="hint"]').click()
        chosen = set(
            page.locator("#hand-form input[name=cards]:checked").evaluate_all(
                "boxes => boxes.map(box => box.value)"
            )
        )
        kept = next(code for code in codes if code not in chosen)
        page.locator(f"#hand-{kept} input").focus()
        page.evaluate(MARK, kept)
        version = table_state(page)["version"]
        page.keyboard.press("Enter")
        page.wait_for_function(
            "v => document.getElementById('table').dataset.version !== v", arg=version
        )
        played = page.locator("#table .board-play .board-cards [role=img]").first
        expect(played).to_have_attribute("aria-label", re.compile(r"\S"))
        same = page.evaluate(SAME_ELEMENTS, kept)
        assert same == {"table": True, "announcer": True, "card": True, "focused": kept}, same

        # The end of the game, on a phone as well.
        play_to_the_end([page])
        expect(page.locator("#table .settlement")).to_be_visible()
        self.check(page, "table settled", found)
        page.set_viewport_size(PHONE)
        self.check(page, "table settled on a phone", found)
        assert all(not found[where] for where in found), json.dumps(found, ensure_ascii=False)

    def test_a_doudizhu_table_while_bidding_and_playing(self) -> None:
        make_player("xiaogang")
        page = self.page
        self.log_in(page, "xiaogang")
        page.locator("#room-ddz-novice form.room-enter button").click()
        expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))
        found: dict[str, object] = {}
        expect(page.locator('[data-action="show"]')).to_be_visible(timeout=30_000)
        self.check(page, "doudizhu deal", found)
        table = page.locator("#table")
        expect(table).to_have_attribute("data-phase", re.compile("bid|play"), timeout=30_000)
        self.check(page, "doudizhu bidding", found)
        page.set_viewport_size(PHONE)
        self.check(page, "doudizhu bidding on a phone", found)
        assert all(not found[where] for where in found), json.dumps(found, ensure_ascii=False)

    def test_a_shanghai_table_while_bidding_and_playing(self) -> None:
        make_player("xiaoshang")
        page = self.page
        self.log_in(page, "xiaoshang")
        page.locator("#room-sh-novice form.room-enter button").click()
        expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))
        found: dict[str, object] = {}
        table = page.locator("#table")
        expect(table).to_have_attribute("data-phase", "bid", timeout=30_000)
        expect(page.locator("#hand-form .card")).to_have_count(25)
        self.check(page, "shanghai bidding", found)
        page.set_viewport_size(PHONE)
        self.check(page, "shanghai bidding on a phone", found)
        # Every card of the hand is a checkbox named as the card is said, both copies alike.
        names = page.locator("#hand-form input[name=cards]").evaluate_all(
            "boxes => boxes.map(b => [b.value, b.getAttribute('aria-label')])"
        )
        assert len({value for value, _name in names}) == 25
        for value, name in names:
            assert name == expected_name(value.split(".")[0]), value
        expect(table).to_have_attribute("data-phase", "play", timeout=60_000)
        self.check(page, "shanghai play on a phone", found)
        assert all(not found[where] for where in found), json.dumps(found, ensure_ascii=False)


def wait_for_a_turn_with_a_play(page: Page) -> None:
    """Pass (or play again after a game) until it is the player's turn with a play to make."""
    for _turn in range(40):
        if page.locator('[data-action="again"]').count():
            play_again(page)
        table = page.locator("#table")
        expect(table).to_have_attribute("data-my-turn", "true", timeout=30_000)
        hints = page.locator("#hints")
        if hints.count() and json.loads(hints.text_content() or "[]"):
            return
        expect(page.locator('[data-action="pass"]')).to_be_visible()
        take_turn(page, use_hint=False)
    raise AssertionError("no turn with a play to make")


def expected_name(code: str) -> str:
    """A card's name in Chinese, from its code: 黑桃3, 红桃10, 小王, 大王."""
    jokers = {"BJ": "小王", "RJ": "大王"}
    if code in jokers:
        return jokers[code]
    suits = {"s": "黑桃", "h": "红桃", "d": "方块", "c": "梅花"}
    rank = "10" if code[0] == "T" else code[0]
    return suits[code[1]] + rank
