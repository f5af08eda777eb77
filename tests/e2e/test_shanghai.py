"""上海斗地主 in a real browser: a player sits down in the lobby's 上海斗地主 room, three bots fill
the table, the player bids, selects cards by dragging across the overlapping hand, and plays with
the Hint button to the settlement, which the wallet follows; the table reads on a computer
(1280×800) and on a phone (390×844): 25 cards (33 for the landlord) that fit, in two rows at most
on the phone, three opponents, the bottom cards and every seat's bombs left."""

from __future__ import annotations

import re
import time

import pytest
from django.test import override_settings
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from accounts.models import LedgerEntry, LedgerReason, Wallet
from accounts.templatetags.accounts_tags import signed_coins
from games.models import Game, GamePlayer, Table
from games.selectors import game_replay_frames, game_state
from tests.e2e import browser
from tests.e2e.finished_games import finished_shanghai_game
from tests.e2e.test_table_phone import PHONE, assert_no_sideways_scroll
from tests.e2e.test_tables import make_player

pytestmark = pytest.mark.e2e

DESKTOP = {"width": 1280, "height": 800}
GAME_TIMEOUT = 300


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
    """Press on the first card and move along the others, each at the strip left uncovered."""
    page.locator("#hand-form .hand").scroll_into_view_if_needed()
    points = []
    for code in codes:
        box = page.locator(f'#hand-form .card[data-card="{code}"]').bounding_box()
        assert box is not None
        points.append((box["x"] + 6, box["y"] + box["height"] - 10))
    page.mouse.move(*points[0])
    page.mouse.down()
    for point in points[1:]:
        page.mouse.move(*point, steps=6)
    page.mouse.up()


def hand_layout(page: Page) -> dict[str, float]:
    """How the hand lies: its rows, its widest right edge and the narrowest strip a card shows."""
    return dict(
        page.evaluate(
            """() => {
              const cards = [...document.querySelectorAll('#hand-form .hand .card')];
              const boxes = cards.map(c => c.getBoundingClientRect());
              // Rows by the cards' places in the layout: a chosen or hovered card is only
              // drawn higher.
              const tops = cards.map(c => c.offsetTop);
              const rows = new Set(tops);
              let strip = Infinity;
              for (let i = 1; i < boxes.length; i++) {
                if (tops[i] === tops[i - 1]) {
                  strip = Math.min(strip, boxes[i].left - boxes[i - 1].left);
                }
              }
              return {
                rows: rows.size,
                right: Math.max(...boxes.map(b => b.right)),
                left: Math.min(...boxes.map(b => b.left)),
                strip: strip,
                width: window.innerWidth,
              };
            }"""
        )
    )


def click_if_shown(page: Page, selector: str) -> bool:
    """Click the button if the table shows it; False when it is not there, or when the table
    moved on before the click landed (a new frame replaced it: a turn whose time ran out)."""
    button = page.locator(selector)
    if button.count() and button.first.is_visible():
        try:
            button.first.click(timeout=5_000)
        except PlaywrightTimeoutError:
            return False
        return True
    return False


def check_layout(page: Page, where: str, *, max_rows: int, on_screen: bool = False) -> None:
    assert_no_sideways_scroll(page, where)
    if on_screen:
        # The whole hand shows without scrolling down.
        bottom = page.evaluate(
            "() => document.querySelector('#hand-form .hand').getBoundingClientRect().bottom"
        )
        assert bottom <= page.viewport_size["height"], (where, bottom)
    layout = hand_layout(page)
    assert layout["rows"] <= max_rows, (where, layout)
    assert layout["left"] >= 0 and layout["right"] <= layout["width"], (where, layout)
    # Each card shows a strip wide enough to read its rank and to touch it.
    assert layout["strip"] >= 16, (where, layout)
    expect(page.locator("#table .opponents .seat")).to_have_count(3)


@override_settings(
    BOT_FILL_SECONDS=1, BOT_MOVE_DELAY_SECONDS=0.1, TABLE_RUNNER_INTERVAL_SECONDS=0.1
)
class ShanghaiAgainstBots(browser.BrowserTestCase):
    max_rows = 1

    def play_to_the_end(self, page: Page, game: Game, *, shots: str) -> set[str]:
        said: set[str] = set()
        deadline = time.monotonic() + GAME_TIMEOUT
        while time.monotonic() < deadline:
            if page.locator("#table .settlement").count():
                break
            table = page.locator("#table")
            mine = table.get_attribute("data-my-turn") == "true"
            phase = table.get_attribute("data-phase")
            if mine and phase == "bid":
                for name in ("bid-small", "bid-big"):
                    if click_if_shown(page, f'[data-action="{name}"]'):
                        said.add(name)
                        break
                time.sleep(0.3)
            elif mine and phase == "play":
                if "play" not in said and "pass" not in said:
                    self.shot(f"{shots}-play", page)
                    check_layout(
                        page, f"{shots}, play", max_rows=self.max_rows, on_screen=self.max_rows == 1
                    )
                if click_if_shown(page, '[data-action="hint"]'):
                    if click_if_shown(page, '[data-action="play"]'):
                        said.add("play")
                elif click_if_shown(page, '[data-action="pass"]'):
                    said.add("pass")
                time.sleep(0.3)
            else:
                state = game_state(game=Game.objects.get(pk=game.pk))
                if state.landlord is not None and "landlord-shot" not in said:
                    said.add("landlord-shot")
                    expect(page.locator("#table [data-seat-note]")).not_to_have_count(0)
                    self.shot(f"{shots}-landlord", page)
                time.sleep(0.15)
        expect(page.locator("#table .settlement")).to_be_visible()
        return said

    def test_a_player_bids_drags_and_plays_a_whole_game_on_a_computer(self) -> None:
        self.shot_prefix = "sh-desktop"
        user = make_player("shanghainese")
        page = self.new_context(viewport=DESKTOP).new_page()
        self.log_in(page, "shanghainese")
        expect(page.locator("#game-shanghai h3")).to_have_text("上海斗地主")
        page.locator("#room-sh-novice").get_by_role("button", name="开始游戏").click()
        expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))
        expect(page.locator("#table")).to_have_attribute("data-status", "playing", timeout=20_000)
        table = Table.objects.get(seats__user=user)
        game = Game.objects.get(table=table)
        seat = GamePlayer.objects.get(game=game, user=user).seat
        expect(page.locator("#hand-form .hand .card")).to_have_count(25)
        expect(page.locator("#table [data-bottom] .card-back")).to_have_count(8)
        self.shot("bidding", page)
        check_layout(page, "desktop, bidding", max_rows=1, on_screen=True)

        # Dragging across five cards chooses all five; dragging back over them lets them go.
        cards = hand(page)
        assert len(set(cards)) == 25
        drag(page, cards[3:8])
        assert chosen(page) == cards[3:8]
        drag(page, cards[3:8])
        assert chosen(page) == []

        # A spectator on a phone: four seats, no hand, the bottom cards face down.
        make_player("pangguan")
        spectator = self.new_context(viewport=PHONE).new_page()
        self.log_in(spectator, "pangguan")
        spectator.goto(self.url(f"/tables/{table.pk}/"))
        expect(spectator.locator("#table")).to_have_attribute("data-spectator", "true")
        expect(spectator.locator("#table .seat[data-seat]")).to_have_count(4)
        expect(spectator.locator("#hand-form")).to_have_count(0)
        expect(spectator.locator("#table [data-bottom] [data-card]")).to_have_count(0)
        self.shot("spectator", spectator)
        assert_no_sideways_scroll(spectator, "spectator on a phone")
        spectator.context.close()

        said = self.play_to_the_end(page, game, shots="desktop")
        self.shot("settlement", page)
        assert said & {"bid-small", "bid-big"} or "play" in said
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED and game.settled_at is not None
        mine = GamePlayer.objects.get(game=game, user=user)
        row = page.locator(f'.settlement tr[data-seat="{seat}"]')
        expect(row.locator(".coin-change")).to_have_text(signed_coins(mine.coins))
        expect(row.locator("[data-points]")).to_have_attribute(
            "data-points", str(mine.nominal // game.base)
        )
        assert Wallet.objects.get(user=user).balance == 10_000 + mine.coins
        entry = LedgerEntry.objects.get(wallet__user=user, game=game, reason=LedgerReason.GAME)
        assert entry.amount == mine.coins

    def test_the_table_on_a_phone_in_two_rows_with_drag_selection(self) -> None:
        self.shot_prefix = "sh-phone"
        self.max_rows = 2
        make_player("xiaolong")
        page = self.new_context(viewport=PHONE, has_touch=True).new_page()
        self.log_in(page, "xiaolong")
        page.locator("#room-sh-novice").get_by_role("button", name="开始游戏").click()
        expect(page.locator("#table")).to_have_attribute("data-status", "playing", timeout=20_000)
        expect(page.locator("#hand-form .hand .card")).to_have_count(25)
        self.shot("bidding", page)
        check_layout(page, "phone, bidding", max_rows=2)
        cards = hand(page)
        drag(page, cards[:4])
        assert chosen(page) == cards[:4]
        drag(page, cards[:4])
        game = Game.objects.get(table__seats__user__username="xiaolong")
        # The player bids 大地主 at once when asked: the landlord's 33 cards fit in two rows.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            state = game_state(game=Game.objects.get(pk=game.pk))
            if state.landlord is not None:
                break
            click_if_shown(page, '[data-action="bid-big"]')
            time.sleep(0.2)
        expect(page.locator("#table")).to_have_attribute("data-phase", "play", timeout=20_000)
        self.shot("play", page)
        check_layout(page, "phone, play", max_rows=2)
        self.play_to_the_end(page, game, shots="phone")
        self.shot("settlement", page)
        assert_no_sideways_scroll(page, "phone, settlement")


def replay_hand(page: Page, seat: int) -> list[str]:
    return list(
        page.locator(f'[data-replay] [data-seat="{seat}"] [data-hand] [data-card]').evaluate_all(
            "cards => cards.map(card => card.dataset.card)"
        )
    )


class ShanghaiReplay(browser.BrowserTestCase):
    def test_a_finished_game_replays_from_the_profile_and_its_share_link(self) -> None:
        self.shot_prefix = "sh-replay"
        player = make_player("huifang")
        game = finished_shanghai_game(player, seed=11)
        frames = browser.off_the_loop(game_replay_frames, game=game)
        played = next(n for n, frame in enumerate(frames) if frame["board"] is not None)
        page = self.new_context(viewport=DESKTOP).new_page()
        self.log_in(page, "huifang")
        page.goto(self.url("/accounts/profile/"))
        page.locator(f'a[data-replay-link][href="/games/{game.pk}/replay/"]').click()
        replay = page.locator("[data-replay]")
        expect(replay).to_have_attribute("data-step", "0")
        # Four seats, each with its 25 cards, both copies of a card told apart.
        for seat in range(4):
            assert replay_hand(page, seat) == frames[0]["hands"][seat].split()
        self.shot("deal", page)
        page.keyboard.press("End")
        expect(replay).to_have_attribute("data-step", str(len(frames) - 1))
        expect(page.locator("[data-seat][data-winner]")).to_have_count(1)
        page.keyboard.press("Home")
        for number in range(1, played + 1):
            page.keyboard.press("ArrowRight")
            expect(replay).to_have_attribute("data-step", str(number))
        board = frames[played]["board"]["cards"].split()
        expect(page.locator("[data-board-cards] [data-card]")).to_have_count(len(board))
        self.shot("first play", page)
        # The share link, signed out, on a phone.
        share = page.locator("[data-share-url]").input_value()
        phone = self.new_context(viewport=PHONE).new_page()
        phone.goto(share)
        expect(phone.locator("[data-replay]")).to_have_attribute("data-step", "0")
        assert replay_hand(phone, 0) == frames[0]["hands"][0].split()
        assert_no_sideways_scroll(phone, "replay on a phone")
        self.shot("shared on a phone", phone)
