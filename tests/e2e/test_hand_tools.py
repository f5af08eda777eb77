"""The hand tools in a real browser: sorting by rank or by combination (kept across a reload),
dragging across cards to select several (on a phone too), and a double tap on the table that
plays the selected cards."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.test import override_settings
from playwright.sync_api import Page, expect

from tests.e2e import browser
from tests.e2e.test_tables import make_player, table_state

pytestmark = pytest.mark.e2e

RANKS = "3456789TJQKA2"


def rank(code: str) -> int:
    return {"BJ": 13, "RJ": 14}.get(code, RANKS.find(code[:1]))


def hand(page: Page) -> list[str]:
    return list(
        page.locator("#hand-form .hand .card").evaluate_all(
            "cards => cards.map(c => c.dataset.card)"
        )
    )


def chosen(page: Page) -> list[str]:
    return list(
        page.locator("#hand-form input[name=cards]").evaluate_all(
            "boxes => boxes.filter(b => b.checked).map(b => b.value)"
        )
    )


def drag(page: Page, codes: list[str]) -> None:
    """Press on the first card and move along the others, at each card's visible left edge."""
    page.locator("#hand-form .hand").scroll_into_view_if_needed()
    points = []
    for code in codes:
        box = page.locator(f'#hand-form .card[data-card="{code}"]').bounding_box()
        assert box is not None
        points.append((box["x"] + 6, box["y"] + box["height"] - 12))
    page.mouse.move(*points[0])
    page.mouse.down()
    for point in points[1:]:
        page.mouse.move(*point, steps=6)
    page.mouse.up()


@override_settings(
    BOT_FILL_SECONDS=1, BOT_MOVE_DELAY_SECONDS=0.3, TABLE_RUNNER_INTERVAL_SECONDS=0.1
)
class HandTools(browser.BrowserTestCase):
    def start(self, page: Page) -> None:
        self.log_in(page, "xiaoli")
        page.locator("#room-novice").get_by_role("button", name="开始游戏").click()
        expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))
        expect(page.locator("#table")).to_have_attribute("data-status", "playing", timeout=20_000)
        expect(page.locator("#hand-form .card")).not_to_have_count(0)
        # On the player's turn the bots wait: no frame replaces the hand while it is handled.
        expect(page.locator("#table")).to_have_attribute("data-my-turn", "true", timeout=30_000)

    def test_sort_drag_and_double_tap(self) -> None:
        make_player("xiaoli")
        page = self.page
        self.start(page)

        # Sorted by rank as dealt; by combination, the ranks held most often come first.
        cards = hand(page)
        assert [rank(c) for c in cards] == sorted(rank(c) for c in cards)
        page.locator("#hand-order").click()
        expect(page.locator("#hand-order")).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#hand-order")).to_have_text("理牌：按牌型")
        counts = Counter(rank(c) for c in hand(page))
        keys = [(-counts[rank(c)], rank(c)) for c in hand(page)]
        assert keys == sorted(keys) and sorted(hand(page)) == sorted(cards)
        page.reload()
        expect(page.locator("#hand-order")).to_have_attribute("aria-pressed", "true")
        keys = [(-Counter(rank(c) for c in hand(page))[rank(c)], rank(c)) for c in hand(page)]
        assert keys == sorted(keys)
        page.locator("#hand-order").click()
        expect(page.locator("#hand-order")).to_have_text("理牌：按点数")

        # A drag across three cards selects the three; one back across two unselects them.
        cards = hand(page)
        drag(page, cards[:3])
        assert chosen(page) == cards[:3]
        drag(page, [cards[1], cards[0]])
        assert chosen(page) == [cards[2]]
        # A plain tap still toggles one card.
        page.locator(f'#hand-form .card[data-card="{cards[2]}"]').click()
        assert chosen(page) == []
        self.shot("dragged")

        # With the hint's cards chosen, a double tap on the table plays them.
        while not page.locator('[data-action="hint"]').count():
            version = table_state(page)["version"]
            page.locator('[data-action="pass"]').click()
            page.wait_for_function(
                "v => document.getElementById('table').dataset.version !== v", arg=version
            )
            expect(page.locator("#table")).to_have_attribute("data-my-turn", "true", timeout=30_000)
        page.locator('[data-action="hint"]').click()
        picked = chosen(page)
        assert picked
        before = len(hand(page))
        version = table_state(page)["version"]
        page.locator("#table .board").dblclick()
        page.wait_for_function(
            "v => document.getElementById('table').dataset.version !== v", arg=version
        )
        page.wait_for_function(
            f"() => document.querySelectorAll('#hand-form .card').length < {before}"
        )
        assert not set(picked) & set(hand(page))

    def test_a_finger_drags_across_the_cards_on_a_phone(self) -> None:
        make_player("xiaoli")
        page = self.new_context(viewport={"width": 390, "height": 844}, has_touch=True).new_page()
        self.start(page)
        cards = hand(page)
        drag(page, cards[:4])
        assert chosen(page) == cards[:4]
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        self.shot("phone-dragged", page)

    def test_the_keyboard_plays_and_keeps_its_place(self) -> None:
        make_player("xiaoli")
        page = self.page
        self.start(page)
        expect(page.locator("#announcer")).to_have_text("轮到你了！")
        cards = hand(page)
        focused = "() => document.activeElement && document.activeElement.value"
        page.keyboard.press("ArrowRight")
        assert page.evaluate(focused) == cards[0]
        page.keyboard.press("ArrowRight")
        page.keyboard.press("Space")
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("Space")
        assert page.evaluate(focused) == cards[0]
        assert chosen(page) == cards[:2]
        page.keyboard.press("ArrowLeft")  # round to the last card
        assert page.evaluate(focused) == cards[-1]

        # H asks for the hint (P passes when nothing beats the table), Enter plays.
        version = table_state(page)["version"]
        if page.locator('[data-action="hint"]').count():
            page.keyboard.press("h")
            picked = chosen(page)
            assert picked and picked != cards[:2]
            page.keyboard.press("Enter")
        else:
            page.keyboard.press("p")
        page.wait_for_function(
            "v => document.getElementById('table').dataset.version !== v", arg=version
        )
        expect(page.locator("#table")).to_have_attribute("data-my-turn", "false")

        # While the bots move, every frame replaces the hand; the focused card keeps the focus.
        page.keyboard.press("ArrowRight")
        card = page.evaluate(focused)
        assert card in hand(page)
        version = table_state(page)["version"]
        # The next frame: a bot's move, or, if both have moved already, the turn clock's.
        page.wait_for_function(
            "v => document.getElementById('table').dataset.version !== v",
            arg=version,
            timeout=40_000,
        )
        assert page.evaluate(focused) == card
