"""The Content-Security-Policy in a real browser: the lobby, a room, the live table, a game page
and the admin work under it, and the browser reports no violation."""

from __future__ import annotations

import contextlib
import json
import re
import time
from typing import Any

import pytest
from django.test import override_settings
from playwright.sync_api import ConsoleMessage, Page, Response, expect
from playwright.sync_api import Error as PlaywrightError

from accounts.models import User
from accounts.services import wallet_create
from games.models import Game, Table
from tests.e2e import browser
from tests.e2e.finished_games import finished_game

pytestmark = pytest.mark.e2e

# Every page of the context reports the violations it sees to the test, through a binding that
# survives navigation (the init script runs again in each new document).
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.reportCspViolation({
    page: location.pathname,
    directive: event.violatedDirective,
    blocked: event.blockedURI,
    sample: event.sample,
  });
});
"""


@override_settings(
    BOT_FILL_SECONDS=1, BOT_MOVE_DELAY_SECONDS=0.1, TABLE_RUNNER_INTERVAL_SECONDS=0.1
)
class ContentSecurityPolicy(browser.BrowserTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.violations: list[dict[str, Any]] = []
        self.console_errors: list[str] = []
        self.watch(self.context, self.page)

    def watch(self, context: Any, page: Page) -> None:
        """Collect the violations of every page of ``context``, and the browser's console
        messages about the policy."""
        context.expose_binding(
            "reportCspViolation", lambda _source, violation: self.violations.append(violation)
        )
        context.add_init_script(REPORT_VIOLATIONS)

        def on_console(message: ConsoleMessage) -> None:
            if (
                "Content Security Policy" in message.text
                or "Content-Security-Policy" in message.text
            ):
                self.console_errors.append(message.text)

        page.on("console", on_console)

    def visit(self, page: Page, path: str) -> Response:
        response = page.goto(self.url(path))
        assert response is not None and response.ok, path
        policy = response.headers.get("content-security-policy", "")
        assert "default-src 'self'" in policy and "script-src 'self'" in policy, path
        return response

    def assert_no_violation(self) -> None:
        time.sleep(0.5)  # the browser reports violations asynchronously
        assert self.violations == [], self.violations
        assert self.console_errors == [], self.console_errors

    def test_the_site_and_the_admin_run_under_the_policy(self) -> None:
        self.shot_prefix = "csp"
        player = User.objects.create_user(username="xiaoming", password=browser.PASSWORD)
        wallet_create(user=player)
        User.objects.create_superuser(username="boss", password=browser.PASSWORD)
        page = self.page

        self.visit(page, "/accounts/login/")
        self.log_in(page, "xiaoming")
        self.visit(page, "/")
        expect(page.locator(".player-box .balance-amount")).to_have_text("10,000")
        self.visit(page, "/rules/")
        self.visit(page, "/rooms/novice/")
        page.get_by_role("button", name="开始游戏").first.click()
        expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))

        # The table's websocket (connect-src 'self') connects and the table comes live: bots sit
        # down, the game starts, the hand is dealt and the turn clock runs.
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        expect(page.locator("#table")).to_have_attribute("data-status", "playing", timeout=20_000)
        expect(page.locator(".opponents .seat .badge-bot")).to_have_count(2)
        expect(page.locator("#hand-form .card")).not_to_have_count(0)
        # A move of the player's, with the page's own script (Hint), and the frame that follows.
        expect(page.locator("#table")).to_have_attribute("data-my-turn", "true", timeout=20_000)
        version = page.locator("#table").get_attribute("data-version")
        hints = json.loads(page.locator("#hints").text_content() or "[]")
        if hints:
            page.locator('[data-action="hint"]').click()
            expect(page.locator("#hand-form input[name=cards]:checked")).not_to_have_count(0)
            page.locator('[data-action="play"]').click()
            choice = page.locator("#prompt .prompt-choice button")
            with contextlib.suppress(PlaywrightError):
                choice.first.click(timeout=1500)  # a joker with more than one meaning
        else:
            page.locator('[data-action="pass"]').click()
        expect(page.locator("#table")).not_to_have_attribute("data-version", version or "")
        self.shot("table")
        self.assert_no_violation()

        # The game's page, whose styles now come from a static file.
        game = Game.objects.get(table=Table.objects.get(seats__user=player))
        self.visit(page, f"/games/{game.pk}/")
        expect(page.locator(".game-page")).to_have_css("display", "grid")

        # The rules page folds its contents on a phone, from its static script.
        phone_context = self.new_context(viewport={"width": 390, "height": 844})
        phone = phone_context.new_page()
        self.watch(phone_context, phone)
        self.visit(phone, "/rules/")
        expect(phone.locator(".rules-toc details").first).not_to_have_attribute("open", "")
        self.assert_no_violation()

        # The admin: its login, index, a list with filters, a change form and the replay page.
        admin_context = self.new_context()
        admin = admin_context.new_page()
        self.watch(admin_context, admin)
        self.visit(admin, "/admin/login/")  # the site's login, which leads back to the admin
        admin.locator("main input[name=login]").fill("boss")
        admin.locator("main input[name=password]").fill(browser.PASSWORD)
        admin.locator("main form button[type=submit]").click()
        expect(admin).to_have_url(self.url("/admin/"))
        self.visit(admin, "/admin/games/game/")
        expect(admin.locator("#changelist-filter")).to_be_visible()
        self.visit(admin, f"/admin/accounts/user/{player.pk}/change/")
        # The admin's own scripts run: the date and time shortcuts appear beside the fields.
        expect(admin.locator(".datetimeshortcuts").first).to_be_visible()
        laoli = User.objects.create_user(username="laoli")
        wallet_create(user=laoli)
        finished = finished_game(laoli, seed=20261201)
        self.visit(admin, f"/admin/games/game/{finished.pk}/replay/")
        expect(admin.locator(".replay-table td").first).to_have_css("vertical-align", "top")
        self.shot("admin-replay", admin)
        self.assert_no_violation()

        # The watch works: an inline script is blocked, and reported.
        ran = page.evaluate(
            "() => { const s = document.createElement('script');"
            " s.textContent = 'window.inlineRan = true;'; document.body.appendChild(s);"
            " return window.inlineRan === true; }"
        )
        assert ran is False
        page.wait_for_function("() => true")
        deadline = time.monotonic() + 5
        while not self.violations and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        assert [v["directive"] for v in self.violations] == ["script-src-elem"], self.violations
