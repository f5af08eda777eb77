"""The table page's quick phrases menu, the people panel (mute, report) and the phrases switch."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games import services
from games.models import PlayerMute, PlayerReport, Room, Table
from games.phrases import EMOTES, PHRASES

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


CSRF_TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')


def logged_in(user: User) -> Client:
    client = Client(headers={"accept-language": "en"})
    client.force_login(user)
    return client


@pytest.fixture
def two(trio: list[User], room: Room) -> Table:
    table: Table | None = None
    for user in trio[:2]:
        table, _seat = services.table_play(user=user, room=room)
    assert table is not None
    return table


def test_a_player_gets_the_menu_of_every_phrase_and_emote(two: Table, trio: list[User]) -> None:
    page = logged_in(trio[0]).get(reverse("games:table", args=[two.pk])).content.decode()
    assert 'id="chat-bubbles"' in page and 'id="chat-menu"' in page
    for phrase in PHRASES + EMOTES:
        assert f'data-say="{phrase.id}"' in page
    assert 'aria-label="Thumbs up"' in page


def test_a_spectator_gets_no_menu_but_the_switch_and_the_panel(two: Table, outsider: User) -> None:
    page = logged_in(outsider).get(reverse("games:table", args=[two.pk])).content.decode()
    assert 'id="chat-bubbles"' in page and 'id="phrases-toggle"' in page
    assert 'id="chat-menu"' not in page and "data-say=" not in page


def test_the_panel_lists_the_other_players_to_mute_and_report(two: Table, trio: list[User]) -> None:
    zhao, qian, _sun = trio
    client = logged_in(zhao)
    panel = client.get(reverse("games:table_people", args=[two.pk]), headers=HTMX)
    text = panel.content.decode()
    assert f'data-chat-person="{qian.pk}"' in text
    assert f'data-chat-person="{zhao.pk}"' not in text
    assert f'data-mute="{qian.pk}"' in text
    mute = reverse("games:player_mute", args=[two.pk])
    text = client.post(mute, {"player": qian.pk, "on": "1"}, headers=HTMX).content.decode()
    assert f'data-unmute="{qian.pk}"' in text and "data-chat-said" in text
    assert PlayerMute.objects.filter(user=zhao, muted=qian).exists()
    client.post(mute, {"player": qian.pk, "on": "0"}, headers=HTMX)
    assert not PlayerMute.objects.exists()
    # Without the script: back to the table.
    response = client.post(mute, {"player": qian.pk, "on": "1"})
    assert response.status_code == 302 and response["Location"] == f"/tables/{two.pk}/"


def test_the_mute_answers_alike_for_an_unknown_id_and_a_player_elsewhere(
    two: Table, trio: list[User], outsider: User
) -> None:
    client = logged_in(trio[0])
    mute = reverse("games:player_mute", args=[two.pk])
    answers = [
        client.post(mute, {"player": other, "on": on}, headers=HTMX)
        for on in ("1", "0")
        for other in (999_999, outsider.pk)
    ]
    assert {answer.status_code for answer in answers} == {400}
    # The same page but for the form's fresh CSRF tokens.
    bodies = [CSRF_TOKEN.sub("", answer.content.decode()) for answer in answers]
    assert bodies[0] == bodies[1] and bodies[2] == bodies[3]
    assert not PlayerMute.objects.exists()


@pytest.mark.parametrize("data", [{"player": "", "on": "1"}, {"on": "1"}, {"on": "x"}])
def test_a_bad_mute_is_refused_and_changes_nothing(
    two: Table, trio: list[User], data: dict[str, str]
) -> None:
    response = logged_in(trio[0]).post(
        reverse("games:player_mute", args=[two.pk]), data, headers=HTMX
    )
    assert response.status_code == 400 and "data-chat-error" in response.content.decode()
    assert not PlayerMute.objects.exists()


def test_a_report_is_sent_once(two: Table, trio: list[User]) -> None:
    client = logged_in(trio[0])
    report = reverse("games:player_report", args=[two.pk])
    data = {"player": trio[1].pk, "reason": "spam", "text": "刷屏"}
    response = client.post(report, data, headers=HTMX)
    assert response.status_code == 200 and "data-chat-said" in response.content.decode()
    response = client.post(report, data, headers=HTMX)
    assert response.status_code == 400 and "data-chat-error" in response.content.decode()
    assert PlayerReport.objects.get().text == "刷屏"


def test_the_panel_of_a_table_one_may_not_see_is_not_found(
    room: Room, trio: list[User], outsider: User
) -> None:
    private = services.table_create_private(user=trio[0], room=room)
    client = logged_in(outsider)
    assert client.get(reverse("games:table_people", args=[private.pk])).status_code == 404
    response = client.post(
        reverse("games:player_report", args=[private.pk]),
        {"player": trio[0].pk, "reason": "abuse"},
    )
    assert response.status_code == 404
    assert not PlayerReport.objects.exists()
    assert Client().get(reverse("games:table_people", args=[private.pk])).status_code == 302


def test_the_phrases_switch_is_remembered(trio: list[User]) -> None:
    client = logged_in(trio[0])
    url = reverse("accounts:phrases")
    response = client.post(url, {"on": "0"}, headers={"accept": "application/json"})
    assert response.json() == {"phrases_on": False}
    assert not User.objects.get(pk=trio[0].pk).phrases_on
    response = client.post(url, {"on": "1", "next": "/tables/3/"})
    assert response.status_code == 302 and response["Location"] == "/tables/3/"
    assert User.objects.get(pk=trio[0].pk).phrases_on
    assert client.post(url, {"on": "maybe"}).status_code == 400
    assert client.post(url, {"on": "0", "next": "https://evil.example/"})["Location"] == (
        reverse("accounts:profile")
    )
