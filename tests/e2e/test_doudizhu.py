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

from accounts.models import LedgerEntry, LedgerReason, User, Wallet
from accounts.templatetags.accounts_tags import signed_coins
from games.models import Game, GameEvent, GamePlayer, Table
from games.selectors import game_state
from tests.e2e import browser
from tests.e2e.test_tables import make_player

pytestmark = pytest.mark.e2e

GAME_TIMEOUT = 240
CARD = re.compile(r'data-card="([^"]+)"')


def click_if_shown(page: Page, selector: str) -> bool:
    button = page.locator(selector)
    if button.count() and button.first.is_visible():
        button.first.click()
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
                        page.locator('[data-action="play"]').click()
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
