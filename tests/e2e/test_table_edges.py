"""What a new player meets at the edges of a game: 托管 and leaving during a game, the cards
the losers still held (亮牌) with the settlement, a closed table's page, the next game refused
for want of coins, on a desktop and on phones."""

from __future__ import annotations

import contextlib
import re
import time

import pytest
from django.test import override_settings
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page, expect

from accounts.models import User
from games.models import Game, GamePlayer, Seat, Table
from tests.e2e import browser
from tests.e2e.test_tables import make_player
from tests.games.helpers import set_balance

pytestmark = pytest.mark.e2e

GAME_SECONDS = 180  # a whole game that bots (and 托管) play, BOT_MOVE_DELAY_SECONDS apart

#: The WCAG contrast ratio of an element's text on its own background.
CONTRAST = """element => {
  const rgb = text => text.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => {
    const c = [r, g, b].map(v => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const style = getComputedStyle(element);
  const [a, b] = [lum(rgb(style.color)), lum(rgb(style.backgroundColor))].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


def contrast(element: Locator) -> float:
    """``CONTRAST`` of ``element``, measured again if a frame replaced it meanwhile (a detached
    element has no computed style)."""
    for _attempt in range(5):
        with contextlib.suppress(PlaywrightError):
            return float(element.evaluate(CONTRAST))
        time.sleep(0.2)
    return float(element.evaluate(CONTRAST))


def start_against_bots(page: Page, base: browser.BrowserTestCase) -> Table:
    page.goto(base.url("/rooms/novice/"))
    page.get_by_role("button", name="开始游戏").click()
    expect(page.locator("#table")).to_have_attribute("data-status", "playing", timeout=20_000)
    return Table.objects.get(pk=int(re.findall(r"/tables/(\d+)/", page.url)[0]))


def assert_fits(page: Page, width: int) -> None:
    """No horizontal scroll, and no cell of the settlement wrapped to a column of characters."""
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    # Found and measured in one step: a frame arriving between the two would leave the cells
    # found detached, with no size.
    cells = page.evaluate(
        "() => Array.from(document.querySelectorAll('.settlement-table td'), cell => {"
        " const s = getComputedStyle(cell);"
        " return [cell.getBoundingClientRect().height, parseFloat(s.lineHeight)"
        " || parseFloat(s.fontSize) * 1.3, cell.textContent]; })"
    )
    assert cells
    for height, line, text in cells:
        assert height < 2 * line, (text, height, line)


@override_settings(
    BOT_FILL_SECONDS=1,
    BOT_MOVE_DELAY_SECONDS=0.05,
    TABLE_RUNNER_INTERVAL_SECONDS=0.1,
    READY_SECONDS=300,
)
class TableEdges(browser.BrowserTestCase):
    def test_auto_play_and_leaving_after_the_game_then_the_closed_table(self) -> None:
        self.shot_prefix = "edges-leave"
        make_player("likai")
        page = self.page
        self.log_in(page, "likai")
        table = start_against_bots(page, self)
        user = User.objects.get(username="likai")

        # During a game: 托管 and "leave after this game", not a leave that would be refused.
        controls = page.locator(".me-area .seat-controls")
        expect(controls.locator('[data-action="auto"]')).to_have_text("托管")
        expect(controls.locator('[data-action="leave"]')).to_have_text("本局结束后离开")
        expect(page.locator(".leave-form")).to_be_hidden()
        self.shot("playing-controls")

        phone = self.new_context(viewport={"width": 390, "height": 844}).new_page()
        self.log_in(phone, "likai")
        phone.goto(self.url(f"/tables/{table.pk}/"))
        expect(phone.locator('.seat-controls [data-action="auto"]')).to_be_visible()
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
        self.shot("playing-controls-phone", phone)
        phone.context.close()

        # Leaving after the game says what happens until then, and can be taken back.
        controls.locator('[data-action="leave"]').click()
        banner = page.locator(".leave-after-banner")
        expect(banner).to_contain_text("本局结束后你将离开牌桌。")
        expect(banner).to_contain_text("在此之前你仍需出牌")
        expect(page.locator(".me-area .badge-leaving")).to_have_text("本局后离开")
        assert Seat.objects.get(user=user).leaves_after_game
        self.shot("leaving-after-the-game")
        banner.locator('[data-action="stay"]').click()
        expect(banner).to_have_count(0)
        assert not Seat.objects.get(user=user).leaves_after_game
        controls.locator('[data-action="leave"]').click()
        expect(banner).to_be_visible()

        # 托管: the bot plays the rest of the game for the player.
        controls.locator('[data-action="auto"]').click()
        expect(page.locator(".auto-play-banner")).to_be_visible()
        expect(banner).to_contain_text("在此之前由机器人替你出牌。")
        expect(controls.locator('[data-action="auto"]')).to_have_count(0)
        self.shot("auto-play-and-leaving")

        # The game ends: the seat is freed, the table (nobody left at it) closes, and its page
        # still shows how the game ended, with the losers' cards.
        expect(page.locator("#table")).to_have_attribute(
            "data-status", "closed", timeout=GAME_SECONDS * 1000
        )
        game = Game.objects.get(table=table)
        assert game.status == Game.Status.FINISHED
        assert not Seat.objects.filter(user=user).exists()
        self.check_closed_table(page, game)
        self.shot("closed-table")
        page.reload()
        self.check_closed_table(page, game)

        # On phones the settlement, 亮牌 included, fits without scrolling sideways.
        for width in (390, 360):
            phone = self.new_context(viewport={"width": width, "height": 844}).new_page()
            self.log_in(phone, "likai")
            phone.goto(self.url(f"/tables/{table.pk}/"))
            expect(phone.locator(".settlement [data-shown-hand]").first).to_be_visible()
            expect(phone.locator("#connection")).to_have_attribute("data-state", "open")
            assert_fits(phone, width)
            self.shot(f"closed-table-{width}", phone)
            phone.context.close()

        # The game has one number and seats count from 1, on the table as on its record.
        page.locator(".seed-line a").click()
        expect(page.locator("h1")).to_contain_text(f"牌局 #{game.pk}")
        seats = page.locator(".game-table").first.locator("tbody tr td:first-child")
        expect(seats).to_have_text(["1", "2", "3"])
        self.shot("game-record")
        page.go_back()
        page.locator(".table-closed .back-to-lobby").click()
        expect(page).to_have_url(self.url("/"))

    def check_closed_table(self, page: Page, game: Game) -> None:
        expect(page.locator(".settlement")).to_be_visible()
        expect(page.locator(".game-number")).to_have_text(f"#{game.pk}")
        expect(page.locator(".seed-line a")).to_have_text(f"牌局 #{game.pk} 的记录")
        for player in GamePlayer.objects.filter(game=game):
            row = page.locator(f'.settlement tr[data-seat="{player.seat}"]')
            cards = row.locator("[data-shown-hand] .card")
            expect(cards).to_have_count(0 if player.seat == game.winner else player.cards_left)
        # The seats are empty now: no card counts, coins or ready marks of those who left.
        expect(page.locator(".seat.is-empty")).to_have_count(2)
        expect(
            page.locator(".seat .seat-card-count, .seat .seat-coins, .seat-ready")
        ).to_have_count(0)
        back = page.locator(".table-closed .back-to-lobby")
        expect(back).to_have_text("返回大厅")
        assert contrast(back) >= 4.5

    def test_a_player_who_cannot_afford_the_next_game_sees_why_and_the_way_out(self) -> None:
        self.shot_prefix = "edges-refused"
        make_player("qiongren")
        page = self.page
        self.log_in(page, "qiongren")
        table = start_against_bots(page, self)
        page.locator('.seat-controls [data-action="auto"]').click()
        expect(page.locator(".settlement")).to_be_visible(timeout=GAME_SECONDS * 1000)
        user = User.objects.get(username="qiongren")
        assert Seat.objects.get(user=user).table_id == table.pk

        # The coins went elsewhere meanwhile: 再来一局 is refused, and the refusal stays.
        set_balance(user, 300)
        page.locator('[data-action="again"]').click()
        refusal = page.locator("[data-next-game-refused]")
        expect(refusal).to_contain_text("你不能在本场继续下一局。")
        expect(refusal).to_contain_text("新手场至少需要 1,000 金币才能进入，你现在有 300 金币。")
        expect(page.locator('[data-action="again"]')).to_have_count(0)
        page.wait_for_timeout(1500)
        expect(refusal).to_be_visible()
        assert not Seat.objects.get(user=user).ready
        self.shot("refused")

        # The way out: relief coins on the profile, or another room from the lobby.
        expect(refusal.get_by_role("link", name="去大厅选择其他场次")).to_have_attribute(
            "href", "/"
        )
        refusal.locator('a[href="/accounts/profile/"]').click()
        expect(page).to_have_url(self.url("/accounts/profile/"))
        self.shot("relief")
