"""House rules in a real browser: a host chooses them for a private table on the room page, the
table says them, and a game with bots is played to its settlement under them; tables of 2 to 6
seats on a computer and a phone."""

from __future__ import annotations

import json
import re

import pytest
from django.test import override_settings
from playwright.sync_api import Page, expect

from games import selectors, services
from games.models import Game, GamePlayer, Room, Table
from games.rules import Rank, parse_cards, parse_ranks
from games.rules.gandengyan import ComboKind
from games.rules.gandengyan.combos import combo_from_ranks
from tests.e2e import browser
from tests.e2e.test_accessibility import violations
from tests.e2e.test_tables import make_player, play_to_the_end

pytestmark = pytest.mark.e2e

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def pair_straight_in(hand: object) -> list[str] | None:
    """Six natural cards of ``hand`` making a pair straight of three ranks, if it holds one."""
    by_rank: dict[int, list[str]] = {}
    for card in hand:  # type: ignore[attr-defined]
        if Rank.THREE <= card.rank <= Rank.ACE:
            by_rank.setdefault(card.rank, []).append(str(card))
    for low in range(Rank.THREE, Rank.ACE - 1):
        if all(len(by_rank.get(rank, [])) >= 2 for rank in (low, low + 1, low + 2)):
            return [code for rank in (low, low + 1, low + 2) for code in by_rank[rank][:2]]
    return None


def twos_and_jokers(cards: str) -> int:
    return sum(1 for card in parse_cards(cards) if card.rank >= Rank.TWO)


@override_settings(
    BOT_FILL_SECONDS=1, BOT_MOVE_DELAY_SECONDS=0.1, TABLE_RUNNER_INTERVAL_SECONDS=0.1
)
class HouseRulesTable(browser.BrowserTestCase):
    # A deal where the host leads first holding a pair straight, which these rules refuse.
    deals = 30528

    def test_a_host_plays_a_game_with_bots_under_the_house_rules_they_chose(self) -> None:
        make_player("zhuren")
        Room.objects.create(
            code="house", name_zh="家规场", name_en="House", base=10, min_coins=0, position=9
        )
        page = self.page
        self.log_in(page, "zhuren")
        page.goto(self.url("/rooms/house/"))
        expect(page.locator("[data-rules]")).to_contain_text("标准规则")
        form = page.locator("[data-house-rules]")
        form.locator("summary").click()
        # It starts from the room's rules: the standard game.
        expect(page.locator("#id_players")).to_have_value("3")
        expect(page.locator("#id_pair_straights")).to_be_checked()
        expect(page.locator("#id_rocket_multiplier_0")).to_be_checked()
        self.shot("rules-form")

        page.locator("#id_players").fill("4")
        page.locator("#id_one_card_free").check()
        page.locator("#id_loser_twos_jokers_double").check()
        page.locator("#id_rocket_multiplier_1").check()  # ×4
        page.locator("#id_pair_straights").uncheck()
        page.get_by_role("button", name="开私人牌桌").click()
        expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))
        table = Table.objects.get(created_by__username="zhuren")
        rules = {
            "players": 4,
            "pair_straights": False,
            "rocket_multiplier": 4,
            "loser_twos_jokers_double": True,
            "one_card_free": True,
        }
        assert table.rules == rules
        expect(page.locator("#table .opponents .seat")).to_have_count(3)

        # The table says its rules in a line, and all of them on hover.
        line = page.locator("[data-table-rules] .table-rules-line")
        expect(line).to_contain_text("4 人")
        expect(line).to_contain_text("王炸 ×4")
        expect(line).to_contain_text("剩一张不用付")
        listed = page.locator("[data-table-rules] .table-rules-list")
        expect(listed).to_be_hidden()
        page.locator("[data-table-rules]").hover()
        expect(listed).to_be_visible()
        expect(listed.locator("li")).to_have_count(5)
        self.shot("table-rules")
        page.mouse.move(0, 0)

        page.locator('[data-action="bots"]').click()
        expect(page.locator("#table")).to_have_attribute("data-status", "playing", timeout=20_000)
        expect(page.locator(".opponents .seat .badge-bot")).to_have_count(3)
        game = Game.objects.get(table=table)
        assert game.rules == rules
        assert sorted(len(hand.split()) for hand in game.hands) == [5, 5, 5, 6]

        offered: list[dict[str, str]] = []
        refused: list[str] = []
        seat = GamePlayer.objects.get(game=game, user__username="zhuren").seat

        def before_turn(mover: Page, _turns: int) -> bool:
            offered.extend(json.loads(mover.locator("#hints").text_content() or "[]"))
            state = selectors.game_state(game=Game.objects.get(pk=game.pk))
            run = pair_straight_in(state.hand(seat)) if state.table is None else None
            if run and not refused:
                # A lead the standard game allows is refused here, and nothing moves.
                version = mover.locator("#table").get_attribute("data-version")
                for code in run:
                    mover.locator(f'#hand-form .card[data-card="{code}"]').click()
                mover.locator('[data-action="play"]').click()
                expect(mover.locator("#notice")).to_have_text("这几张牌不成牌型。")
                expect(mover.locator("#table")).to_have_attribute("data-version", version or "")
                for code in run:
                    mover.locator(f'#hand-form .card[data-card="{code}"]').click()
                refused.append(" ".join(run))
            return False

        play_to_the_end([page], before_turn=before_turn)
        expect(page.locator(".settlement")).to_be_visible()
        # Nothing the page offered was a pair straight, and the one tried was refused.
        assert refused, "the deal never let the host lead a pair straight"
        assert offered
        for hint in offered:
            kind = combo_from_ranks(parse_ranks(hint["as"])).kind
            assert kind is not ComboKind.PAIR_STRAIGHT, hint
        expect(page.locator("[data-settlement-rules]")).to_contain_text("剩一张不用付")
        self.shot("settlement")

        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED
        multiplier = game.result["multiplier"]
        changed = False
        for player in GamePlayer.objects.filter(game=game):
            row = page.locator(f'.settlement tr[data-seat="{player.seat}"]')
            expect(row.locator(".nominal")).to_have_text(re.compile(r"."))
            if player.seat == game.winner:
                continue
            left = game_hand_left(game, player.seat)
            standard = player.cards_left * multiplier * (2 if player.spring else 1) * game.base
            # one_card_free, else loser_twos_jokers_double
            expected = 0 if player.cards_left == 1 else standard * 2 ** twos_and_jokers(left)
            assert player.nominal == -expected, (player.seat, left)
            changed = changed or expected != standard
        assert changed, "no loser's payment was changed by the house rules in this deal"

        # The table, the form and the rules page on a phone: nothing runs off the side, and
        # axe finds nothing serious (it is added as a tester's extension would add it).
        phone = self.new_context(viewport=PHONE, bypass_csp=True).new_page()
        self.log_in(phone, "zhuren")
        phone.goto(self.url(f"/tables/{table.pk}/"))
        expect(phone.locator("#connection")).to_have_attribute("data-state", "open")
        self.shot("table-phone", phone)
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        assert violations(phone) == []
        phone.locator("[data-table-rules]").focus()
        expect(phone.locator("[data-table-rules] .table-rules-list")).to_be_visible()
        self.shot("table-rules-phone", phone)
        phone.goto(self.url("/rooms/house/"))
        phone.locator("[data-house-rules] summary").click()
        expect(phone.locator("#id_max_multiplier")).to_be_visible()
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        assert violations(phone) == []
        self.shot("rules-form-phone", phone)
        phone.goto(self.url("/rules/#house-rules"))
        expect(phone.locator("#rule-one_card_free")).to_be_visible()
        expect(phone.locator("#rule-one_card_free h3")).to_contain_text("one_card_free")
        self.shot("rules-page-phone", phone)


def game_hand_left(game: Game, seat: int) -> str:
    state = selectors.game_state(game=game)
    return " ".join(str(card) for card in state.hand(seat))


@override_settings(BOT_FILL_SECONDS=1, BOT_MOVE_DELAY_SECONDS=3, TABLE_RUNNER_INTERVAL_SECONDS=0.2)
class SeatsAroundTheTable(browser.BrowserTestCase):
    def test_tables_of_two_four_and_six_seats_on_a_computer_and_a_phone(self) -> None:
        room = Room.objects.create(
            code="seats", name_zh="座位场", name_en="Seats", base=10, min_coins=0, position=9
        )
        for players in (2, 4, 6):
            host = make_player(f"host{players}")
            table = browser.off_the_loop(
                services.table_create_private,
                user=host,
                room=room,
                rules={"players": players, "one_card_free": True},
            )
            if players > 2:
                browser.off_the_loop(services.table_call_bots, user=host, table=table)
            else:
                friend = make_player("pengyou")
                browser.off_the_loop(
                    services.table_join_by_invite, user=friend, code=table.invite_code
                )
            for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
                page = self.new_context(viewport=viewport).new_page()
                self.log_in(page, host.username)
                page.goto(self.url(f"/tables/{table.pk}/"))
                expect(page.locator("#table")).to_have_attribute("data-status", "playing")
                expect(page.locator("#table .opponents .seat")).to_have_count(players - 1)
                expect(page.locator("#hand-form .card").first).to_be_visible()
                self.shot(f"seats-{players}-{name}", page)
                width = viewport["width"]
                # Nothing runs off the side; every opponent is on the screen, none overlap.
                assert page.evaluate("() => document.documentElement.scrollWidth") <= width
                boxes = page.locator("#table .opponents .seat").evaluate_all(
                    "seats => seats.map(s => s.getBoundingClientRect().toJSON())"
                )
                for box in boxes:
                    assert box["left"] >= 0 and box["right"] <= width, (players, name, box)
                    assert box["width"] >= 80, (players, name, box)
                for one, other in zip(boxes, boxes[1:], strict=False):
                    apart = (
                        one["right"] <= other["left"] + 1
                        or other["right"] <= one["left"] + 1
                        or one["bottom"] <= other["top"] + 1
                        or other["bottom"] <= one["top"] + 1
                    )
                    assert apart, (players, name, one, other)
                page.context.close()
