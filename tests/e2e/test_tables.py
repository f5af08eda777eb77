"""Playing at a live table in a real browser: against bots, three people at one table, a
reload in the middle of a game, and a spectator."""

from __future__ import annotations

import contextlib
import json
import re
import time

import pytest
from django.test import override_settings
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from accounts.models import LedgerEntry, LedgerReason, User, Wallet
from accounts.services import wallet_create
from accounts.templatetags.accounts_tags import coins, signed_coins
from games.models import Game, GameEvent, GamePlayer, Room, Seat, Table
from tests.e2e import browser

pytestmark = pytest.mark.e2e

GAME_TIMEOUT = 240  # seconds for a whole game; bots move after BOT_MOVE_DELAY_SECONDS


def make_player(username: str) -> User:
    user = User.objects.create_user(username=username, password=browser.PASSWORD)
    wallet_create(user=user)
    return user


def table_state(page: Page) -> dict[str, str]:
    table = page.locator("#table")
    return {
        "version": table.get_attribute("data-version") or "",
        "status": table.get_attribute("data-status") or "",
        "my_turn": table.get_attribute("data-my-turn") or "",
    }


def table_text(page: Page) -> str:
    """The table's text without the ticking seconds of the turn clock."""
    return str(
        page.locator("#table").evaluate(
            "t => { const c = t.cloneNode(true); c.removeAttribute('id');"
            " c.querySelectorAll('.countdown-text').forEach(e => e.remove());"
            " document.body.appendChild(c); const text = c.innerText; c.remove();"
            " return text; }"
        )
    )


def wait_for_version_change(page: Page, version: str, timeout: float = 20) -> None:
    page.wait_for_function(
        "v => { const t = document.getElementById('table'); return t && t.dataset.version !== v; }",
        arg=version,
        timeout=timeout * 1000,
    )


def selected_cards(page: Page) -> set[str]:
    return set(
        page.locator("#hand-form input[name=cards]:checked").evaluate_all(
            "inputs => inputs.map(input => input.value)"
        )
    )


def take_turn(page: Page, *, use_hint: bool) -> None:
    """Make one move as a person would: pick cards (by Hint, or by clicking the cards of the
    first suggestion) and press Play, or press Pass when nothing beats the table."""
    version = table_state(page)["version"]
    hints = json.loads(page.locator("#hints").text_content() or "[]")
    if not hints:
        # Nothing beats the table: the page says so, and Pass is the only button.
        expect(page.locator("#table")).to_have_attribute("data-can-beat", "false")
        expect(page.locator(".cannot-beat")).to_have_text("你没有牌能压过桌上的牌。")
        expect(page.locator('[data-action="play"], [data-action="hint"]')).to_have_count(0)
        expect(page.locator('[data-action="pass"]')).to_have_class(re.compile(r"button-primary"))
        page.locator('[data-action="pass"]').click()
    else:
        if use_hint:
            hint = page.locator('[data-action="hint"]')
            # Hint offers each play in turn, the bot's choice first, and comes round again.
            rounds = len(hints) + 1 if len(hints) <= 8 else 1
            for index in range(rounds):
                hint.click()
                expected = set(hints[index % len(hints)]["cards"].split())
                expect(page.locator("#hand-form input[name=cards]:checked")).to_have_count(
                    len(expected)
                )
                assert selected_cards(page) == expected
        else:
            for code in hints[0]["cards"].split():
                page.locator(f'#hand-form label[data-card="{code}"]').click()
        chosen = page.locator("#hand-form input[name=cards]:checked")
        expect(chosen).to_have_count(len(hints[0]["cards"].split()))
        assert selected_cards(page) == set(hints[0]["cards"].split())
        page.locator('[data-action="play"]').click()
        choice = page.locator("#prompt .prompt-choice button")
        try:
            choice.first.wait_for(timeout=1500)
            choice.first.click()
        except Exception:
            pass  # one meaning only: no prompt
    wait_for_version_change(page, version)


def open_private_table(test: browser.BrowserTestCase, host: Page, room: str) -> str:
    """Open a private table of ``room`` as ``host`` (signed in) from the room's page; returns
    its invitation link, once the page's script has made it whole."""
    host.goto(test.url(f"/rooms/{room}/"))
    host.get_by_role("button", name="开私人牌桌").click()
    expect(host).to_have_url(re.compile(r".*/tables/\d+/$"))
    invite = host.locator("[data-invite-link]")
    expect(invite).to_have_value(re.compile(r"^http://.*/join/[\w-]+/$"))
    return invite.input_value()


def play_again(page: Page) -> None:
    """Press 再来一局 until the page shows the player ready (the button gone): a click that
    lands just as another player's frame replaces the button is pressed again, as a person
    would."""
    button = page.locator('[data-action="again"]')
    for _ in range(3):
        with contextlib.suppress(PlaywrightError):
            button.click(timeout=5_000)
        try:
            expect(button).to_have_count(0, timeout=5_000)
            return
        except AssertionError:
            continue
    expect(button).to_have_count(0)


def play_to_the_end(
    pages: list[Page], *, on_turn: object = None, before_turn: object = None
) -> int:
    """Let every page move when it is its turn until the game ends; returns the turns taken.
    ``before_turn(page, turns)`` and ``on_turn(turns)`` are called around each move;
    ``before_turn`` returns True when it saw the move made itself."""
    turns = 0
    deadline = time.monotonic() + GAME_TIMEOUT
    while time.monotonic() < deadline:
        for page in pages:
            if page.locator("#table .settlement").count():
                return turns
        mover = next((page for page in pages if table_state(page)["my_turn"] == "true"), None)
        if mover is None:
            time.sleep(0.1)
            continue
        if not (callable(before_turn) and before_turn(mover, turns)):
            take_turn(mover, use_hint=turns % 2 == 0)
        turns += 1
        if callable(on_turn):
            on_turn(turns)
    raise AssertionError("the game did not end in time")


@override_settings(
    BOT_FILL_SECONDS=1, BOT_MOVE_DELAY_SECONDS=0.1, TABLE_RUNNER_INTERVAL_SECONDS=0.1
)
class AgainstBots(browser.BrowserTestCase):
    def test_a_new_player_plays_a_whole_game_against_two_bots(self) -> None:
        self.shot_prefix = "c-bots"
        page = self.page
        page.goto(self.url("/accounts/signup/"))
        page.locator("main input[name=username]").fill("xiaohong")
        page.locator("main input[name=password1]").fill(browser.PASSWORD)
        page.locator("main input[name=password2]").fill(browser.PASSWORD)
        page.locator("main form button[type=submit]").click()
        expect(page.locator(".player-box .balance-amount")).to_have_text("10,000")

        page.locator("#room-novice").get_by_role("button", name="开始游戏").click()
        expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        self.shot("waiting")
        # Bots take the two free seats after a moment, and the game starts.
        expect(page.locator("#table")).to_have_attribute("data-status", "playing", timeout=20_000)
        expect(page.locator(".opponents .seat .badge-bot")).to_have_count(2)
        expect(page.locator("#hand-form .card")).not_to_have_count(0)
        user = User.objects.get(username="xiaohong")
        table = Table.objects.get(seats__user=user)

        # A spectator on a phone sees the table but no hand.
        watcher = make_player("kanke")
        phone = self.new_context(viewport={"width": 390, "height": 844}).new_page()
        self.log_in(phone, "kanke")
        phone.goto(self.url(f"/tables/{table.pk}/"))
        expect(phone.locator("#table")).to_have_attribute("data-spectator", "true")
        expect(phone.locator(".spectating")).to_have_text("你正在观战。")
        expect(phone.locator("#hand-form")).to_have_count(0)
        expect(phone.locator(".opponents .seat")).to_have_count(2)
        expect(phone.locator(".me-area .seat")).to_contain_text("xiaohong")
        self.shot("spectator-phone", phone)
        assert watcher.pk

        # The player's own table fits a phone too: the hand wraps, nothing runs off the side.
        mobile = self.new_context(viewport={"width": 390, "height": 844}).new_page()
        self.log_in(mobile, "xiaohong")
        mobile.goto(self.url(f"/tables/{table.pk}/"))
        expect(mobile.locator("#table")).to_have_attribute("data-spectator", "false")
        cards = mobile.locator("#hand-form .card")
        expect(cards.first).to_be_visible()
        assert mobile.evaluate("() => document.documentElement.scrollWidth") <= 390
        for box in cards.evaluate_all(
            "cards => cards.map(card => card.getBoundingClientRect().toJSON())"
        ):
            assert box["left"] >= 0 and box["right"] <= 390, box
        self.shot("player-phone", mobile)
        mobile.context.close()

        done = {"shot": False, "auto_pass": False}
        seat = Seat.objects.get(table=table, user=user).position

        def mid_game(mover: Page, turn: int) -> bool:
            # The table at the player's turn, with cards to beat: the README's picture.
            table_now = mover.locator("#table")
            if (
                not done["shot"]
                and mover.locator("[data-board]").count()
                and table_now.get_attribute("data-can-beat") == "true"
            ):
                done["shot"] = True
                self.shot("playing")
            if done["auto_pass"]:
                return False
            if table_now.get_attribute("data-can-beat") != "false":
                return False
            # Nothing beats the table: with the switch on, the page passes by itself.
            done["auto_pass"] = True
            version = table_state(mover)["version"]
            mover.locator("#auto-pass").check()
            wait_for_version_change(mover, version)
            mover.locator("#auto-pass").uncheck()
            last = GameEvent.objects.filter(game__table=table, seat=seat).latest("pk")
            assert (last.source, last.action) == (GameEvent.Source.PLAYER, {"pass": True})
            return True

        play_to_the_end([page], before_turn=mid_game)
        assert done["auto_pass"], "no turn came where nothing beat the table"
        expect(page.locator(".settlement")).to_be_visible()
        # The time left to press 再来一局 before the seat goes to someone else.
        ready_by = re.compile(r"^\d+ 秒内未准备的玩家将离座。$")
        expect(page.locator(".ready-by")).to_have_text(ready_by)
        self.shot("settlement")

        game = Game.objects.get(table=table)
        assert game.status == Game.Status.FINISHED and game.settled_at is not None
        mine = GamePlayer.objects.get(game=game, user=user)
        assert mine.coins != 0  # bots play for the house: every game moves coins
        # Each seat's row: cards left × multiplier × 2 if spring × base = what it pays.
        multiplier = game.result["multiplier"]
        for player in GamePlayer.objects.filter(game=game):
            cells = page.locator(f'.settlement tr[data-seat="{player.seat}"] td')
            expect(cells).to_have_text(
                [
                    str(player.cards_left),
                    f"×{multiplier}",
                    "×2 春天" if player.spring else "–",
                    signed_coins(player.nominal),
                    signed_coins(player.coins),
                ]
            )
            if player.seat != game.winner:
                spring = 2 if player.spring else 1
                assert player.nominal == -player.cards_left * multiplier * spring * game.base
        row = page.locator(f'.settlement tr[data-seat="{mine.seat}"]')
        expect(row.locator(".coin-change")).to_have_text(signed_coins(mine.coins))
        expect(page.locator(".seed")).to_have_text(game.seed)
        # The spectator saw the end too, and still no hand.
        expect(phone.locator(".settlement")).to_be_visible()
        expect(phone.locator("[data-card]").filter(has=phone.locator("input"))).to_have_count(0)

        # The wallet and the ledger show exactly that change.
        balance = Wallet.objects.get(user=user).balance
        assert balance == 10_000 + mine.coins
        entry = LedgerEntry.objects.get(wallet__user=user, game=game, reason=LedgerReason.GAME)
        assert entry.amount == mine.coins
        page.goto(self.url("/accounts/profile/"))
        expect(page.get_by_test_id("balance")).to_have_text(coins(balance))
        first_row = page.locator("#ledger tbody tr").first
        expect(first_row.locator(".amount")).to_have_text(signed_coins(mine.coins))
        expect(first_row).to_contain_text("牌局结算")
        self.shot("profile-after-game")


@override_settings(BOT_FILL_SECONDS=60)
class ThreePeople(browser.BrowserTestCase):
    def test_three_friends_play_one_game_and_a_reload_restores_the_view(self) -> None:
        self.shot_prefix = "d-friends"
        for name in ("dawei", "erbao", "sanmao"):
            make_player(name)
        # A friendly room with a small stake and no limits, so that whoever loses can play on.
        Room.objects.create(
            code="friends", name_zh="好友场", name_en="Friends", base=10, min_coins=0, position=9
        )
        host = self.page
        self.log_in(host, "dawei")
        link = open_private_table(self, host, "friends")
        self.shot("private-table")

        pages = [host]
        for name in ("erbao", "sanmao"):
            page = self.new_context().new_page()
            self.log_in(page, name)
            page.goto(link)
            expect(page.locator("h1")).to_contain_text("dawei 邀请你")
            page.get_by_role("button", name="入座").click()
            expect(page).to_have_url(re.compile(r".*/tables/\d+/$"))
            pages.append(page)
        for page in pages:
            expect(page.locator("#table")).to_have_attribute("data-status", "playing")
            expect(page.locator("#hand-form .card")).not_to_have_count(0)
        self.shot("everyone-seated")

        reloaded = {"done": False}

        def reload_one(turn: int) -> None:
            if turn != 4 or reloaded["done"]:
                return
            reloaded["done"] = True
            page = pages[1]
            before = table_state(page)["version"]
            text = table_text(page)
            hand = page.locator("#hand-form .card").evaluate_all(
                "cards => cards.map(c => c.dataset.card)"
            )
            page.reload()
            expect(page.locator("#connection")).to_have_attribute("data-state", "open")
            assert table_state(page)["version"] == before
            assert table_text(page) == text
            assert (
                page.locator("#hand-form .card").evaluate_all(
                    "cards => cards.map(c => c.dataset.card)"
                )
                == hand
            )
            self.shot("after-reload", page)

        turns = play_to_the_end(pages, on_turn=reload_one)
        assert reloaded["done"] and turns >= 4
        for page in pages:
            expect(page.locator(".settlement")).to_be_visible()
            expect(page.locator(".settlement tbody tr")).to_have_count(3)
        self.shot("settlement")
        game = Game.objects.get(table__seats__user__username="dawei")
        assert game.settled_at is not None
        changes = {p.user.username: p.coins for p in game.players.select_related("user")}
        assert sum(changes.values()) == 0
        for page, name in zip(pages, ("dawei", "erbao", "sanmao"), strict=True):
            seat = game.players.get(user__username=name).seat
            expect(page.locator(f'.settlement tr[data-seat="{seat}"] .coin-change')).to_have_text(
                signed_coins(changes[name])
            )

        # Play again: everyone ready, the winner deals the next game.
        for page in pages:
            play_again(page)
        for page in pages:
            expect(page.locator("#table")).to_have_attribute("data-status", "playing")
        second = Game.objects.get(table=game.table, number=2)
        assert second.dealer == game.winner


@override_settings(
    BOT_FILL_SECONDS=1, BOT_MOVE_DELAY_SECONDS=0.1, TABLE_RUNNER_INTERVAL_SECONDS=0.1
)
class TurnTimer(browser.BrowserTestCase):
    # A deal that a bot leads, so that the player's time first runs out while following.
    deals = 5

    def test_a_player_who_does_nothing_is_played_for_then_takes_the_seat_back(self) -> None:
        self.shot_prefix = "e-timer"
        make_player("fadai")
        room = Room.objects.create(
            code="quick", name_zh="快速场", name_en="Quick", base=10, min_coins=0, position=9
        )
        Room.objects.filter(pk=room.pk).update(turn_seconds=3)  # shorter than forms allow
        page = self.page
        self.log_in(page, "fadai")
        page.goto(self.url("/rooms/quick/"))
        page.get_by_role("button", name="开始游戏").click()
        expect(page.locator("#table")).to_have_attribute("data-status", "playing", timeout=20_000)
        # What the page showed of the player's own seat, whatever frames came and went between
        # two looks: the countdown's texts until a pass was shown.
        page.evaluate(
            """() => {
              window.seen = {countdown: [], passed: false};
              const look = () => {
                if (window.seen.passed) { return; }
                const text = document.querySelector(".me-area .countdown-text");
                if (text && text.textContent) { window.seen.countdown.push(text.textContent); }
                if (document.querySelector(".me-area .pass-mark")) { window.seen.passed = true; }
              };
              new MutationObserver(look).observe(document.body, {
                childList: true, subtree: true, characterData: true,
              });
            }"""
        )

        # On the player's turn a countdown runs from the server's deadline.
        expect(page.locator("#table")).to_have_attribute("data-my-turn", "true", timeout=20_000)
        countdown = page.locator(".me-area .countdown")
        expect(countdown).to_be_visible()
        self.shot("countdown")
        user = User.objects.get(username="fadai")
        game = Game.objects.get(table__seats__user=user)
        seat = GamePlayer.objects.get(game=game, user=user).seat
        game.refresh_from_db()
        assert game.to_move == seat
        assert countdown.get_attribute("data-deadline") == game.turn_deadline.isoformat()
        assert countdown.get_attribute("data-seconds") == "3"

        # Nobody clicks: the countdown runs out and the server passes for the player (a pass
        # that ends the round is followed at once by the new round, so the page may show only
        # the second one).
        page.wait_for_function("() => window.seen.passed", timeout=20_000)
        texts = page.evaluate("() => window.seen.countdown")
        left = [int(text.removesuffix("s")) for text in texts]
        assert left[0] == 3 and left[-1] <= 1, left
        # Down by the second, each turn from the room's 3 seconds.
        steps = zip(left, left[1:], strict=False)
        assert all(later <= earlier or later == 3 for earlier, later in steps), left
        first = list(GameEvent.objects.filter(game=game, seat=seat).order_by("number")[:2])
        assert [(event.source, event.action) for event in first] == [
            (GameEvent.Source.TIMEOUT, {"pass": True})
        ] * 2

        # Once more, and 托管 takes over: the bot plays for the player.
        banner = page.locator(".auto-play-banner")
        expect(banner).to_be_visible(timeout=40_000)
        expect(page.locator(".me-area .badge-auto")).to_have_text("托管")
        timeouts = list(
            GameEvent.objects.filter(game=game, seat=seat, source=GameEvent.Source.TIMEOUT)
            .order_by("number")
            .values_list("action", flat=True)
        )
        assert len(timeouts) == 2
        self.shot("auto-play")
        played_for = GameEvent.objects.filter(
            game=game, seat=seat, source=GameEvent.Source.AUTO_PLAY
        )
        deadline = time.monotonic() + 30
        while not played_for.exists():
            assert time.monotonic() < deadline, "the bot never played for the player"
            time.sleep(0.2)
        expect(banner).to_be_visible()  # it plays on until the player takes the seat back

        # One click takes the seat back, and the next turn is the player's own again.
        # (A click that lands just as the bot's move replaces the banner is made again, as a
        # person would.)
        for _ in range(3):
            with contextlib.suppress(PlaywrightError):
                page.locator('[data-action="resume"]').click(timeout=5_000)
            try:
                expect(banner).to_have_count(0, timeout=5_000)
                break
            except AssertionError:
                continue
        expect(banner).to_have_count(0)
        expect(page.locator(".me-area .badge-auto")).to_have_count(0)
        assert not Seat.objects.get(user=user).auto_play
        self.shot("seat-taken-back")
        expect(page.locator("#table")).to_have_attribute("data-my-turn", "true", timeout=20_000)
        expect(countdown).to_be_visible()
