"""A finished game's replay in a real browser, for 干瞪眼 and 斗地主: found from the profile,
stepped with the buttons, the keys, the slider and play/pause, a seat's hand shrinking as it
plays; then its share link opened signed out, and the replay on a phone's width."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import override_settings
from playwright.sync_api import Page, expect

from games.models import Game
from games.selectors import game_replay_frames
from tests.e2e import browser
from tests.e2e.finished_games import finished_doudizhu_game, finished_game
from tests.e2e.test_journeys import make_player

pytestmark = pytest.mark.e2e


def hand_codes(page: Page, seat: int) -> list[str]:
    return page.locator(f'[data-replay] [data-seat="{seat}"] [data-hand] [data-card]').evaluate_all(
        "cards => cards.map(card => card.dataset.card)"
    )


@override_settings(DEAL_STAGE_SECONDS=600)
class ReplayPages(browser.BrowserTestCase):
    def test_a_game_of_gandengyan(self) -> None:
        self.shot_prefix = "r-replay-gandengyan"
        self.step_through(finished_game, "xiaoming")

    def test_a_game_of_doudizhu(self) -> None:
        self.shot_prefix = "r-replay-doudizhu"
        self.step_through(finished_doudizhu_game, "xiaohong")

    def step_through(self, finish: Callable[..., Game], name: str) -> None:
        player = make_player(name)
        game = finish(player, seed=11)
        frames: list[dict[str, Any]] = browser.off_the_loop(game_replay_frames, game=game)
        last = len(frames) - 1
        # The first play: its seat's hand before and after, and the cards it put on the table.
        played = next(n for n, frame in enumerate(frames) if frame["board"] is not None)
        seat = frames[played]["seat"]

        page = self.page
        self.log_in(page, name)
        page.goto(self.url("/accounts/profile/"))
        page.locator(f'a[data-replay-link][href="/games/{game.pk}/replay/"]').click()
        expect(page).to_have_url(self.url_pattern(f"/games/{game.pk}/replay/"))
        replay = page.locator("[data-replay]")
        expect(replay).to_have_attribute("data-step", "0")
        for each in range(3):
            assert sorted(hand_codes(page, each)) == sorted(frames[0]["hands"][each].split())
        self.shot("deal")

        # The keys: End, Home, and → to the step before the first play.
        page.keyboard.press("End")
        expect(replay).to_have_attribute("data-step", str(last))
        expect(page.locator("[data-seat][data-winner]")).to_have_count(1)
        self.shot("end")
        page.keyboard.press("Home")
        expect(replay).to_have_attribute("data-step", "0")
        for number in range(1, played):
            page.keyboard.press("ArrowRight")
            expect(replay).to_have_attribute("data-step", str(number))
        before = hand_codes(page, seat)
        assert sorted(before) == sorted(frames[played - 1]["hands"][seat].split())
        # The button: the play leaves the hand and lies on the table.
        page.locator('[data-replay] [data-nav="next"]').click()
        expect(replay).to_have_attribute("data-step", str(played))
        board = frames[played]["board"]["cards"].split()
        expect(page.locator("[data-board-cards] [data-card]")).to_have_count(len(board))
        after = hand_codes(page, seat)
        assert len(after) == len(before) - len(board)
        assert sorted(after) == sorted(set(before) - set(board))
        expect(page.locator("[data-action-text]")).to_contain_text(frames[played]["text"])
        expect(page.locator(f'[data-seat="{frames[played]["to_move"]}"]')).to_have_attribute(
            "data-to-move", ""
        )
        assert page.url.endswith(f"?step={played}#replay")
        self.shot("first-play")
        page.keyboard.press("ArrowLeft")
        expect(replay).to_have_attribute("data-step", str(played - 1))
        page.locator('[data-replay] [data-nav="previous"]').click()
        expect(replay).to_have_attribute("data-step", str(max(played - 2, 0)))
        page.locator('[data-replay] [data-nav="last"]').click()
        expect(replay).to_have_attribute("data-step", str(last))
        page.locator('[data-replay] [data-nav="first"]').click()
        expect(replay).to_have_attribute("data-step", "0")

        # The slider, then play and pause: the fastest speed moves on by itself.
        middle = last // 2
        page.locator("[data-slider]").fill(str(middle))
        expect(replay).to_have_attribute("data-step", str(middle))
        page.locator("[data-speed]").select_option("300")
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("Space")
        expect(page.locator("[data-play]")).to_have_attribute("aria-pressed", "true")
        expect(replay).not_to_have_attribute("data-step", str(middle))
        page.keyboard.press("Space")
        expect(page.locator("[data-play]")).to_have_attribute("aria-pressed", "false")
        stopped = replay.get_attribute("data-step")
        page.wait_for_timeout(700)
        expect(replay).to_have_attribute("data-step", stopped or "")
        page.locator("[data-play]").click()
        expect(page.locator("[data-play]")).to_have_attribute("aria-pressed", "true")
        # It stops by itself at the end.
        expect(replay).to_have_attribute("data-step", str(last), timeout=60_000)
        expect(page.locator("[data-play]")).to_have_attribute("aria-pressed", "false")

        # The share link: copied, then opened in a fresh browser that is signed out.
        share = page.locator("[data-share-url]").input_value()
        token = share.rstrip("/").rsplit("/", 1)[-1]
        assert share.startswith(self.url("/games/replay/")) and token != str(game.pk)
        page.locator("[data-copy-link]").click()
        expect(page.locator("[data-copied]")).not_to_be_empty()
        self.shot("shared")

        visitor = self.new_context().new_page()
        visitor.goto(share)
        expect(visitor.locator("[data-replay]")).to_have_attribute("data-step", "0")
        expect(visitor.locator("[data-game-page]")).to_have_count(0)
        expect(visitor.locator(".nav-user")).to_have_count(0)
        visitor.keyboard.press("ArrowRight")
        expect(visitor.locator("[data-replay]")).to_have_attribute("data-step", "1")
        if game.game == "doudizhu":
            # Its record holds the seats' coins: for the players and watchers only.
            expect(visitor.locator("[data-record-download]")).to_have_count(0)
        else:
            with visitor.expect_download() as info:
                visitor.locator("[data-record-download]").click()
            assert info.value.suggested_filename == f"{game.game}-game-{game.pk}.json"
        self.shot("visitor", visitor)

        # A phone: the table fits the width, nothing scrolls sideways.
        phone = self.new_context(viewport={"width": 390, "height": 844}).new_page()
        phone.goto(share + f"?step={played}")
        expect(phone.locator("[data-replay]")).to_have_attribute("data-step", str(played))
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
        self.shot("phone", phone)
        phone.goto(share + f"?step={last}")
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
        self.shot("phone-end", phone)
