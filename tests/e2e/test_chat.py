"""Quick phrases at a table in real browsers: a player sends one from the menu, the other sees
its bubble by the sender's seat (through the frames that replace the table meanwhile) and hears
it in the live region, then mutes the sender and no longer sees the next; on a phone too."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games.models import PlayerMute, Room, TableMessage
from tests.e2e import browser
from tests.e2e.test_tables import make_player, open_private_table

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}


def say(page: Page, phrase: str) -> None:
    """Open the menu and choose ``phrase`` (its id) with the keyboard's Enter."""
    page.locator("#chat-toggle").click()
    expect(page.locator("#chat-menu")).to_be_visible()
    button = page.locator(f'#chat-menu [data-say="{phrase}"]')
    button.focus()
    button.press("Enter")
    expect(page.locator("#chat-menu")).to_be_hidden()


def bubble(page: Page, phrase: str) -> str:
    """The selector of a bubble of ``phrase``."""
    return f'#chat-bubbles .chat-bubble[data-phrase="{phrase}"]'


class QuickPhrases(browser.BrowserTestCase):
    def test_a_phrase_is_seen_by_the_other_player_until_they_mute_the_sender(self) -> None:
        self.shot_prefix = "chat"
        for name in ("dawei", "erbao"):
            make_player(name)
        Room.objects.create(
            code="friends", name_zh="好友场", name_en="Friends", base=10, min_coins=0, position=9
        )
        host = self.page
        self.log_in(host, "dawei")
        link = open_private_table(self, host, "friends")
        phone = self.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
        self.log_in(phone, "erbao")
        phone.goto(link)
        phone.get_by_role("button", name="入座").click()
        expect(phone).to_have_url(re.compile(r".*/tables/\d+/$"))
        for page in (host, phone):
            expect(page.locator("#connection")).to_have_attribute("data-state", "open")
            expect(page.locator("#table .seat:not(.is-empty)")).to_have_count(2)

        # The host says hello; both see the bubble by the host's seat, and the phone hears it.
        say(host, "hello")
        for page in (host, phone):
            expect(page.locator(bubble(page, "hello"))).to_have_count(1)
        host_seat = phone.locator(bubble(phone, "hello")).get_attribute("data-chat-seat")
        seat_box = phone.locator(f'#table .seat[data-seat="{host_seat}"]').bounding_box()
        bubble_box = phone.locator(bubble(phone, "hello")).bounding_box()
        assert seat_box is not None and bubble_box is not None
        assert bubble_box["y"] < seat_box["y"] + seat_box["height"]
        assert abs(
            (bubble_box["x"] + bubble_box["width"] / 2) - (seat_box["x"] + seat_box["width"] / 2)
        ) < max(seat_box["width"], bubble_box["width"])
        expect(phone.locator("#announcer")).to_contain_text("dawei")
        style = phone.locator(bubble(phone, "hello")).evaluate(
            "b => [getComputedStyle(b).backgroundColor, getComputedStyle(b).animationName]"
        )
        assert style == ["rgb(255, 255, 255)", "chat-bubble"]
        self.shot("host-says-hello", host)
        self.shot("phone-sees-hello", phone)

        # A new frame replaces the table (bots take the free seat, a game starts): the bubble
        # stays, outside the frame, and the phrase did not change the table's version.
        version = phone.locator("#table").get_attribute("data-version")
        host.locator('[data-action="bots"]').click()
        phone.wait_for_function(
            "v => document.getElementById('table').dataset.version !== v", arg=version
        )
        expect(phone.locator(bubble(phone, "hello"))).to_have_count(1)
        self.shot("bubble-through-a-new-frame", phone)
        # A few seconds later it is gone.
        expect(phone.locator(bubble(phone, "hello"))).to_have_count(0, timeout=8000)

        # An emote from the phone, with the keyboard only.
        phone.locator("#chat-toggle").focus()
        phone.keyboard.press("Enter")
        expect(phone.locator("#chat-menu")).to_be_visible()
        self.shot("phone-menu-open", phone)
        for _step in range(8):  # past the eight phrases to the first emote
            phone.keyboard.press("ArrowDown")
        expect(phone.locator('#chat-menu [data-say="thumbs_up"]')).to_be_focused()
        phone.keyboard.press("Enter")
        expect(host.locator(bubble(host, "thumbs_up"))).to_have_count(1)
        expect(phone.locator("#chat-toggle")).to_be_focused()

        # The phone mutes the host in the players' panel.
        phone.locator("#chat-people-open").click()
        expect(phone.locator("#chat-people")).to_be_visible()
        expect(phone.locator("[data-chat-person]")).to_have_count(1)  # the bots are not there
        self.shot("phone-players-panel", phone)
        phone.locator("[data-mute]").click()
        expect(phone.locator("[data-unmute]")).to_have_count(1)
        assert PlayerMute.objects.filter(user__username="erbao", muted__username="dawei").exists()
        phone.locator("[data-chat-people-close]").click()
        expect(phone.locator("#chat-people")).to_be_hidden()

        # The host's next phrase: the host sees it (without motion, as they asked), the phone
        # does not.
        host.emulate_media(reduced_motion="reduce")
        host.wait_for_timeout(3200)  # one phrase every three seconds
        say(host, "hurry")
        expect(host.locator(bubble(host, "hurry"))).to_have_count(1)
        animation = host.locator(bubble(host, "hurry")).evaluate(
            "b => getComputedStyle(b).animationName"
        )
        assert animation == "none"
        self.shot("host-sees-own-phrase", host)
        phone.wait_for_timeout(1500)
        expect(phone.locator(bubble(phone, "hurry"))).to_have_count(0)
        assert TableMessage.objects.filter(phrase="hurry").count() == 1
        self.shot("host-not-heard-after-mute", phone)
