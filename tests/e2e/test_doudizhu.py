"""斗地主 in a real browser: a new player sits down in the lobby's 斗地主 room, the bots fill the
table, the deal comes in stages, the player shows the hand while it is dealt (明牌), bids, doubles
and plays with the Hint button to the settlement; a spectator sees the shown hand and no other;
the wallet moves by exactly the settlement."""

from __future__ import annotations

import contextlib
import re
import time

import pytest
from django.test import override_settings
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from accounts.models import LedgerEntry, LedgerReason, User, Wallet
from accounts.templatetags.accounts_tags import signed_coins
from games.models import Game, GameEvent, GamePlayer, Room, Table
from games.selectors import game_state
from tests.e2e import browser
from tests.e2e.test_table_phone import (
    PHONE,
    SMALL_PHONE,
    assert_no_sideways_scroll,
    assert_seen_at_its_centre,
)
from tests.e2e.test_tables import make_player, table_text

pytestmark = pytest.mark.e2e

GAME_TIMEOUT = 240
CARD = re.compile(r'data-card="([^"]+)"')


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


@override_settings(
    BOT_FILL_SECONDS=1,
    BOT_MOVE_DELAY_SECONDS=0.1,
    TABLE_RUNNER_INTERVAL_SECONDS=0.1,
    DEAL_STAGE_SECONDS=1.5,
)
class DoudizhuAgainstBots(browser.BrowserTestCase):
    def test_a_player_shows_the_hand_bids_doubles_and_plays_a_whole_game(self) -> None:
        self.shot_prefix = "d-doudizhu"
        page = self.page
        page.goto(self.url("/accounts/signup/"))
        page.locator("main input[name=username]").fill("xiaoming")
        page.locator("main input[name=password1]").fill(browser.PASSWORD)
        page.locator("main input[name=password2]").fill(browser.PASSWORD)
        page.locator("main form button[type=submit]").click()
        expect(page.locator(".player-box .balance-amount")).to_have_text("10,000")
        expect(page.locator("#game-doudizhu h3")).to_have_text("斗地主")
        self.shot("lobby")

        page.locator("#room-ddz-novice").get_by_role("button", name="开始游戏").click()
        expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))
        expect(page.locator("#table")).to_have_attribute("data-status", "playing", timeout=20_000)
        user = User.objects.get(username="xiaoming")
        table = Table.objects.get(seats__user=user)
        game = Game.objects.get(table=table)
        seat = GamePlayer.objects.get(game=game, user=user).seat

        # While the cards come in, the player shows the hand: ×4 while 8 are out, ×3 after.
        show = page.locator('[data-action="show"]')
        expect(show).to_be_visible()
        expect(page.locator("#table")).to_have_attribute("data-phase", "deal")
        self.shot("deal")
        mine_shown = page.locator(f'.ddz-shown[data-shown-seat="{seat}"]')
        for _attempt in range(3):  # a stage dealt meanwhile makes the click stale: again
            if click_if_shown(page, '[data-action="show"]'):
                with contextlib.suppress(AssertionError):
                    expect(mine_shown).to_be_visible(timeout=2_000)
            if mine_shown.count():
                break
        expect(mine_shown).to_be_visible()
        shown = GameEvent.objects.filter(game=game, seat=seat, action__show__isnull=False).get()
        assert shown.source == GameEvent.Source.PLAYER

        # A spectator sees the shown hand and no other card of any hand.
        watcher = make_player("guanzhong")
        assert watcher.pk
        spectator = self.new_context(viewport={"width": 390, "height": 844}).new_page()
        self.log_in(spectator, "guanzhong")
        spectator.goto(self.url(f"/tables/{table.pk}/"))
        expect(spectator.locator("#table")).to_have_attribute("data-spectator", "true")
        expect(spectator.locator(f'.ddz-shown[data-shown-seat="{seat}"]')).to_be_visible()

        said: set[str] = set()
        bottom_seen = False
        deadline = time.monotonic() + GAME_TIMEOUT
        while time.monotonic() < deadline:
            if page.locator('[data-action="again"]').count():
                break
            state = game_state(game=Game.objects.get(pk=game.pk))
            if state.landlord is not None and not state.is_terminal and not bottom_seen:
                # The bottom cards, taken by the landlord, are shown to everyone.
                bottom = page.locator(".ddz-bottom [data-card]")
                cards = bottom.evaluate_all("cards => cards.map(c => c.dataset.card)")
                bottom_seen = set(cards) == {str(card) for card in state.bottom}
            if not state.is_terminal:
                # No frame of the spectator holds a card of a hand not shown.
                frame = spectator.locator("#table").inner_html()
                for other in range(3):
                    if not state.shown[other] and state.landlord is not None:
                        hidden = {str(card) for card in state.hand(other)}
                        hidden -= {str(card) for card in state.bottom}
                        assert not set(CARD.findall(frame)) & hidden
            for action in ("bid-call", "bid-rob", "double", "no-double"):
                if click_if_shown(page, f'[data-action="{action}"]'):
                    said.add(action)
                    time.sleep(0.3)
                    break
            else:
                table_now = page.locator("#table")
                mine = table_now.get_attribute("data-my-turn") == "true"
                if mine and table_now.get_attribute("data-phase") == "play":
                    if "play" not in said:
                        self.shot("play")
                    if click_if_shown(page, '[data-action="hint"]'):
                        if click_if_shown(page, '[data-action="play"]'):
                            said.add("play")
                    else:
                        click_if_shown(page, '[data-action="pass"]')
                    time.sleep(0.3)
                else:
                    time.sleep(0.2)
        expect(page.locator(".settlement")).to_be_visible()
        self.shot("settlement")
        assert said & {"bid-call", "bid-rob"} or said & {"double", "no-double"}

        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED and game.settled_at is not None
        assert game.result["multipliers"]["show"] in (3, 4, 5)
        mine_row = GamePlayer.objects.get(game=game, user=user)
        row = page.locator(f'.settlement tr[data-seat="{seat}"]')
        expect(row.locator(".coin-change")).to_have_text(signed_coins(mine_row.coins))
        assert Wallet.objects.get(user=user).balance == 10_000 + mine_row.coins
        entry = LedgerEntry.objects.get(wallet__user=user, game=game, reason=LedgerReason.GAME)
        assert entry.amount == mine_row.coins
        assert bottom_seen, "the bottom cards were never shown with the landlord's"


def hand_cards(page: Page) -> list[str]:
    return list(
        page.locator("#hand-form .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
    )


def assert_no_hidden_card(pages: dict[int, Page], game: Game) -> None:
    """No page holds a card of another seat's hand unless that hand is shown (明牌), nor the
    bottom cards before the landlord takes them."""
    state = game_state(game=Game.objects.get(pk=game.pk))
    if state.is_terminal:
        return
    for seat, page in pages.items():
        found = set(CARD.findall(page.locator("#table").inner_html()))
        for other in range(3):
            if other == seat or state.shown[other]:
                continue
            hidden = {str(card) for card in state.hand(other)}
            if state.landlord is not None:
                hidden -= {str(card) for card in state.bottom}
            assert not found & hidden, f"seat {seat} sees {found & hidden} of seat {other}"
        if state.landlord is None and not any(state.shown):
            assert not found & {str(card) for card in state.bottom}, "the bottom, face down"


@override_settings(BOT_FILL_SECONDS=60, DEAL_STAGE_SECONDS=1)
class ThreePeopleDoudizhu(browser.BrowserTestCase):
    """Three people at one 斗地主 table, two of them on phones: they bid, the landlord shows the
    hand after taking the bottom cards, they double and play to the settlement; a phone is
    reloaded in the middle of the play and comes back as it was; then 再来一局."""

    def test_three_people_bid_double_and_play_with_a_reload_on_a_phone(self) -> None:
        self.shot_prefix = "d-doudizhu-friends"
        names = ("dizhu", "nongmin", "xiaobai")
        for name in names:
            make_player(name)
        Room.objects.create(
            code="ddz-friends",
            game="doudizhu",
            name_zh="好友斗地主",
            name_en="Friends",
            base=10,
            min_coins=0,
            position=109,
        )
        host = self.page
        self.log_in(host, names[0])
        host.goto(self.url("/rooms/ddz-friends/"))
        host.get_by_role("button", name="开私人牌桌").click()
        expect(host).to_have_url(re.compile(r".*/tables/\d+/$"))
        invite = host.locator("[data-invite-link]")
        expect(invite).to_have_value(re.compile(r"^http://.*/join/[\w-]+/$"))
        link = invite.input_value()

        pages = [host]
        for name, viewport in zip(names[1:], (PHONE, SMALL_PHONE), strict=True):
            page = self.new_context(viewport=viewport).new_page()
            self.log_in(page, name)
            page.goto(link)
            page.get_by_role("button", name="入座").click()
            expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))
            pages.append(page)
        phones = pages[1:]
        for page in pages:
            expect(page.locator("#table")).to_have_attribute("data-status", "playing")
        game = Game.objects.get(table__seats__user__username=names[0])
        by_seat = {
            game.players.get(user__username=name).seat: page
            for name, page in zip(names, pages, strict=True)
        }
        for page in phones:
            expect(page.locator("#table")).to_have_attribute("data-phase", "deal")
            assert_no_sideways_scroll(page, "the deal on a phone")
        self.shot("deal-phone", phones[0])

        seen_phases: set[str] = set()
        said: list[str] = []
        reloaded = {"done": False}
        plays = 0
        deadline = time.monotonic() + GAME_TIMEOUT
        while time.monotonic() < deadline:
            if any(page.locator("#table .settlement").count() for page in pages):
                break
            assert_no_hidden_card(by_seat, game)
            moved = False
            for index, page in enumerate(pages):
                table = page.locator("#table")
                phase = table.get_attribute("data-phase") or ""
                if phase and phase not in seen_phases and page in phones:
                    seen_phases.add(phase)
                    assert_no_sideways_scroll(page, f"the {phase} phase on a phone")
                    self.shot(f"{phase}-phone", page)
                state = game_state(game=Game.objects.get(pk=game.pk))
                # The landlord shows the hand after taking the bottom cards: ×2.
                landlord_to_show = (
                    phase == "double"
                    and state.landlord is not None
                    and page is by_seat[state.landlord]
                    and not state.shown[state.landlord]
                )
                if landlord_to_show and click_if_shown(page, '[data-action="show"]'):
                    said.append("show")
                    moved = True
                    break
                if phase == "bid":
                    # The first to bid calls, the next robs: 叫地主 then 抢地主 (×2).
                    wanted = ("bid-call", "bid-rob") if len(said) < 2 else ("bid-no_rob",)
                    if any(click_if_shown(page, f'[data-action="{a}"]') for a in wanted):
                        said.append("bid")
                        moved = True
                        break
                if phase == "double":
                    choice = "double" if index == 1 else "no-double"
                    if click_if_shown(page, f'[data-action="{choice}"]') or click_if_shown(
                        page, '[data-action="no-double"]'
                    ):
                        said.append(choice)
                        moved = True
                        break
                if phase == "play" and table.get_attribute("data-my-turn") == "true":
                    if page in phones:
                        for action in ("hint", "play", "pass"):
                            button = page.locator(f'[data-action="{action}"]')
                            if button.count():
                                assert_seen_at_its_centre(button)
                    version = table.get_attribute("data-version") or ""
                    if click_if_shown(page, '[data-action="hint"]'):
                        page.locator('[data-action="play"]').click()
                    else:
                        page.locator('[data-action="pass"]').click()
                    expect(table).not_to_have_attribute("data-version", version)
                    plays += 1
                    moved = True
                    if plays == 6 and not reloaded["done"]:
                        reloaded["done"] = True
                        self.reload_and_compare(phones[0], like=page)
                    break
            time.sleep(0.3 if moved else 0.15)
        for page in pages:
            expect(page.locator(".settlement")).to_be_visible()
            expect(page.locator(".settlement tbody tr")).to_have_count(3)
        self.shot("settlement-phone", phones[1])
        self.shot("settlement")
        assert reloaded["done"], "the game ended before the reload"
        assert "show" in said and said.count("bid") >= 2

        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED and game.settled_at is not None
        assert game.result["multipliers"]["show"] == 2
        assert game.result["multipliers"]["rob"] == 2
        changes = {p.user.username: p.coins for p in game.players.select_related("user")}
        assert sum(changes.values()) == 0
        for page, name in zip(pages, names, strict=True):
            seat = game.players.get(user__username=name).seat
            expect(page.locator(f'.settlement tr[data-seat="{seat}"] .coin-change')).to_have_text(
                signed_coins(changes[name])
            )
            assert Wallet.objects.get(user__username=name).balance == 10_000 + changes[name]
        for page in phones:
            assert_no_sideways_scroll(page, "the settlement on a phone")

        # 再来一局, the host with the hand shown from the start (明牌开始 ×5): every box says so
        # until the next game is dealt, and then the others see the host's cards as they come.
        pages[0].locator('[data-action="again-start"]').click()
        for page in pages:
            expect(page.locator(".badge-start")).to_have_text("明牌开始")
        expect(pages[0].locator('[data-action="again-start"]')).to_have_count(0)
        self.shot("start-shown-chosen")
        for page in pages[1:]:
            page.locator('[data-action="again"]').click()
            expect(page.locator('[data-action="again"]')).to_have_count(0)
        host_seat = game.players.get(user__username=names[0]).seat
        for page in phones:
            expect(page.locator(f'.ddz-shown[data-shown-seat="{host_seat}"]')).to_be_visible()
            expect(page.locator("[data-multiplier-parts]")).to_contain_text("明牌 ×5")
        self.shot("start-shown-phone", phones[0])
        second = Game.objects.get(table=game.table, number=2)
        assert game_state(game=second).shown[host_seat]

    def reload_and_compare(self, page: Page, *, like: Page) -> None:
        """Reload ``page`` once it shows the version ``like`` shows: it comes back the same."""
        before = like.locator("#table").get_attribute("data-version") or ""
        expect(page.locator("#table")).to_have_attribute("data-version", before)
        text = table_text(page)
        hand = hand_cards(page)
        page.reload()
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        assert page.locator("#table").get_attribute("data-version") == before
        assert table_text(page) == text
        assert hand_cards(page) == hand
        assert_no_sideways_scroll(page, "the table after a reload on a phone")
        self.shot("after-reload-phone", page)
