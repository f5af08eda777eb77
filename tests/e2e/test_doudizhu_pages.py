"""A finished game of 斗地主 in a real browser: its page (landlord and farmers, the bidding, the
bottom cards, the multiplier and the settlement by pair), its record downloaded and replayed by
the rules engine's command line, and the admin's replay stepped through to the end."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings
from playwright.sync_api import expect

from accounts.models import User
from games.selectors import game_state
from tests.e2e import browser
from tests.e2e.finished_games import finished_doudizhu_game
from tests.e2e.test_journeys import make_player

pytestmark = pytest.mark.e2e


@override_settings(DEAL_STAGE_SECONDS=600)
class DoudizhuGamePages(browser.BrowserTestCase):
    def test_the_page_of_a_finished_game_its_record_and_its_replay(self) -> None:
        self.shot_prefix = "f-doudizhu-pages"
        player = make_player("xiaohong")
        User.objects.create_user(
            username="boss", password=browser.PASSWORD, is_staff=True, is_superuser=True
        )
        game = finished_doudizhu_game(player, seed=11)
        result = game.result
        landlord = result["landlord"]
        state = game_state(game=game)
        events = list(game.events.order_by("number"))

        page = self.page
        self.log_in(page, "xiaohong")
        page.goto(self.url(f"/games/{game.pk}/"))
        expect(page.locator("#landlord")).to_contain_text(f"{landlord + 1} · ")
        expect(page.locator('[data-role="landlord"]')).to_have_count(1)
        expect(page.locator('[data-role="farmer"]')).to_have_count(2)
        expect(page.locator("#multiplier")).to_have_text(f"×{result['multiplier']}")
        expect(page.locator(".bidding")).to_have_count(2)
        expect(page.locator('.bidding[data-deal="1"]')).to_contain_text("都不叫，重新发牌")
        expect(page.locator('.bidding[data-deal="2"]')).to_contain_text("抢地主")
        expect(page.locator("#bottom .card-chip")).to_have_count(3)
        expect(page.locator("#pairs tbody tr")).to_have_count(2)
        expect(page.locator("#seed")).to_have_text(game.seed)
        self.shot("game-page")

        # The record, downloaded as a file, is one the rules engine replays to the same result.
        with page.expect_download() as info:
            page.locator("#record-download").click()
        download = info.value
        assert download.suggested_filename == f"doudizhu-game-{game.pk}.json"
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / download.suggested_filename
            download.save_as(path)
            record = json.loads(path.read_text(encoding="utf-8"))
            assert record["format"] == "doudizhu-record/1" and len(record["deals"]) == 2
            run = subprocess.run(
                [sys.executable, "-m", "games.rules", "replay", str(path)],
                cwd=settings.BASE_DIR,
                capture_output=True,
                text=True,
                encoding="utf-8",
                timeout=120,
            )
        assert run.returncode == 0, run.stderr
        replayed = json.loads(run.stdout)
        assert replayed["ok"] and replayed["applied"] == len(events)
        assert replayed["result"]["payments"] == result["payments"]

        # The admin's replay, stepped through from the deal to the last card.
        staff = self.new_context().new_page()
        staff.goto(self.url("/admin/"))
        staff.locator("main input[name=login]").fill("boss")
        staff.locator("main input[name=password]").fill(browser.PASSWORD)
        staff.locator("main form button[type=submit]").click()
        expect(staff).to_have_url(self.url("/admin/"))
        staff.goto(self.url(f"/admin/games/game/{game.pk}/change/"))
        staff.get_by_role("link", name="回放").first.click()
        expect(staff).to_have_url(self.url(f"/admin/games/game/{game.pk}/replay/"))
        expect(staff.locator("#verdict")).to_have_text("全部一致")
        expect(staff.locator("#landlord")).to_contain_text(f"座位 {landlord}")
        expect(staff.locator(".replay-deal")).to_have_count(2)
        expect(staff.locator("#pairs tbody tr")).to_have_count(2)
        expect(staff.locator(".replay-table tbody tr")).to_have_count(len(events) + 1)
        self.shot("admin-replay", staff)

        position = staff.locator(".replay-position")
        thrown_in = staff.locator(".replay-table tr.new-deal").get_attribute("id") or ""
        shots = {int(thrown_in.removeprefix("step-")): "admin-replay-redeal"}
        kinds = [
            staff.locator(f"#step-{n}").get_attribute("data-kind") for n in range(len(events) + 1)
        ]
        shots[kinds.index("double")] = "admin-replay-doubling"
        shots[kinds.index("play") + 6] = "admin-replay-play"
        for number in range(1, len(events) + 1):
            staff.locator('[data-nav="next"]').click()
            expect(position).to_have_attribute("data-step", str(number))
            expect(staff.locator(f"#step-{number}")).to_have_class(re.compile(r"\bcurrent\b"))
            if number in shots:
                if shots[number] == "admin-replay-redeal":
                    expect(position).to_contain_text("都不叫，重新发牌")
                self.shot(shots[number], staff)
        expect(staff.locator('[data-nav="next"]')).to_have_count(0)
        hands = position.locator(".position-hand")
        for seat in range(3):
            shown = hands.nth(seat).locator(".card-chip")
            codes = shown.evaluate_all("chips => chips.map(chip => chip.title)")
            assert sorted(codes) == sorted(str(card) for card in state.hand(seat))
        expect(position).to_contain_text("出完了牌")
        self.shot("admin-replay-end", staff)
        staff.locator('[data-nav="first"]').click()
        expect(position).to_have_attribute("data-step", "0")
