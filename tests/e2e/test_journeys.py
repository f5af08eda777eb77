"""Whole journeys through the site in a real browser: sign up, the lobby, a dispute."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from accounts.models import User
from accounts.services import wallet_create
from games.models import Dispute
from tests.e2e import browser
from tests.e2e.finished_games import finished_game

pytestmark = pytest.mark.e2e


def make_player(username: str, **fields: object) -> User:
    user = User.objects.create_user(username=username, password=browser.PASSWORD, **fields)
    wallet_create(user=user)
    return user


class PlayerJourneys(browser.BrowserTestCase):
    def test_a_new_player_signs_up_and_finds_the_welcome_coins(self) -> None:
        self.shot_prefix = "a-signup"
        page = self.page
        page.goto(self.url("/"))
        expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
        expect(page.locator(".hero")).to_contain_text("注册即送 10,000 金币。")
        self.shot("lobby-visitor")

        page.locator(".hero").get_by_role("link", name="注册").click()
        expect(page).to_have_url(self.url_pattern("/accounts/signup/"))
        page.locator("main input[name=username]").fill("xiaoming")
        page.locator("main input[name=password1]").fill(browser.PASSWORD)
        page.locator("main input[name=password2]").fill(browser.PASSWORD)
        self.shot("signup-form")
        page.locator("main form button[type=submit]").click()

        expect(page).to_have_url(self.url("/"))
        expect(page.locator(".player-box")).to_contain_text("欢迎回来，xiaoming。")
        expect(page.locator(".player-box .balance-amount")).to_have_text("10,000")
        self.shot("lobby-signed-up")

        page.locator(".site-nav").get_by_role("link", name="个人中心").click()
        expect(page).to_have_url(self.url("/accounts/profile/"))
        ledger = page.locator("#ledger")
        expect(ledger.locator("tbody tr")).to_have_count(1)
        expect(ledger.locator("tbody tr").first).to_contain_text("注册礼金")
        expect(ledger.locator("tbody tr").first).to_contain_text("10,000")
        self.shot("profile-ledger")

    def test_a_player_enters_a_room_that_fits_and_is_refused_one_that_does_not(self) -> None:
        self.shot_prefix = "b-rooms"
        make_player("laowang")
        page = self.page
        self.log_in(page, "laowang")

        rooms = page.locator("#game-gandengyan .room-card")
        expect(rooms).to_have_count(6)
        expect(rooms.locator("h4")).to_have_text(
            ["新手场", "初级场", "中级场", "高级场", "大师场", "至尊场"]
        )
        expect(page.locator("#game-gandengyan h3.lobby-game-title")).to_have_text("干瞪眼")
        expect(page.locator("#game-doudizhu h3.lobby-game-title")).to_have_text("斗地主")
        expect(page.locator("#game-doudizhu .room-card h4")).to_have_text(
            ["新手场", "初级场", "中级场", "高级场", "大师场"]
        )
        novice = page.locator("#room-novice")
        expect(novice.locator(".room-base")).to_have_text("400")
        expect(novice.locator(".room-range")).to_have_text("1,000 – 50,000")
        expect(page.locator("#room-supreme .room-range")).to_have_text("540,000 起")
        expect(page.locator(".player-box .balance-amount")).to_have_text("10,000")
        self.shot("lobby")

        novice.get_by_role("button", name="开始游戏").click()
        expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))
        expect(page.locator("#table")).to_contain_text("新手场")
        self.shot("seated-novice")

        page.get_by_role("link", name="大厅").first.click()
        expect(page.locator(".my-table")).to_contain_text("回到你在新手场的牌桌")
        page.locator("#room-senior").get_by_role("button", name="开始游戏").click()
        expect(page).to_have_url(self.url("/rooms/senior/"))
        refusal = page.locator(".message-error")
        expect(refusal).to_have_text(
            "高级场至少需要 20,000 金币才能进入，你现在有 10,000 金币。可以试试中级场。"
        )
        expect(refusal.get_by_role("link", name="中级场")).to_have_attribute(
            "href", "/rooms/intermediate/"
        )
        self.shot("refused-senior")

        # The same lobby in English, through the language switcher.
        page.goto(self.url("/"))
        page.locator(".lang-switch").get_by_role("button", name="English").click()
        expect(page.locator("html")).to_have_attribute("lang", "en")
        expect(page.locator("#room-novice h4")).to_have_text("Novice")
        expect(page.locator("#room-supreme .room-range")).to_have_text("540,000 and up")
        self.shot("lobby-english")

        phone = self.new_context(viewport={"width": 390, "height": 844}).new_page()
        phone.context.add_cookies(self.context.cookies())
        phone.goto(self.url("/"))
        expect(phone.locator(".room-card")).to_have_count(6 + 5 + 5)  # 干瞪眼, 斗地主, 上海斗地主
        self.shot("lobby-phone", phone)

    def test_a_dispute_goes_from_the_game_page_to_the_admin_and_back_to_the_profile(
        self,
    ) -> None:
        self.shot_prefix = "c-dispute"
        player = make_player("laoli")
        User.objects.create_user(
            username="boss", password=browser.PASSWORD, is_staff=True, is_superuser=True
        )
        game = finished_game(player, seed=20240611)
        page = self.page
        self.log_in(page, "laoli")

        page.goto(self.url(f"/games/{game.pk}/"))
        self.shot("game-page")
        reason = "最后一手的结算好像不对，请帮我核对一下。"
        page.locator("main textarea[name=reason]").fill(reason)
        page.locator(f'main form[action="/games/{game.pk}/dispute/"] button[type=submit]').click()
        expect(page).to_have_url(self.url(f"/games/{game.pk}/"))
        expect(page.locator("main")).to_contain_text(reason)
        self.shot("dispute-sent")
        dispute = Dispute.objects.get(game=game, user=player)
        assert dispute.status == Dispute.Status.OPEN

        staff = self.new_context().new_page()
        staff.goto(self.url("/admin/"))
        staff.locator("main input[name=login]").fill("boss")
        staff.locator("main input[name=password]").fill(browser.PASSWORD)
        staff.locator("main form button[type=submit]").click()
        expect(staff).to_have_url(self.url("/admin/"))
        staff.locator('a[href="/admin/games/dispute/"]').first.click()
        row = staff.locator("#result_list tbody tr", has_text="laoli")
        expect(row).to_have_count(1)
        self.shot("admin-dispute-queue", staff)
        row.locator(f'a[href="/admin/games/dispute/{dispute.pk}/resolve/"]').click()
        note = "已核对回放：结算无误，但牌局记录显示有延迟，补偿 500 金币。"
        staff.locator("textarea[name=note]").fill(note)
        staff.locator("input[name=compensation]").fill("500")
        self.shot("admin-resolve-form", staff)
        staff.locator("#content-main form [type=submit]").click()
        expect(staff.locator(".messagelist")).to_be_visible()
        self.shot("admin-resolved", staff)
        dispute.refresh_from_db()
        assert (dispute.status, dispute.compensation) == (Dispute.Status.RESOLVED, 500)

        page.goto(self.url("/accounts/profile/"))
        disputes = page.locator("#disputes")
        expect(disputes).to_contain_text(note)
        expect(disputes.locator(".dispute-compensation")).to_contain_text("500")
        expect(page.locator("#ledger tbody tr").first).to_contain_text("申诉补偿")
        expect(page.locator("#ledger tbody tr").first).to_contain_text("500")
        self.shot("profile-dispute-resolved")
