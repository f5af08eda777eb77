"""The table's pages: the table itself (players and spectators), invitations and leaving."""

from __future__ import annotations

import re

from django.test import Client

from accounts.models import User
from games import services
from games.models import Room, Seat, Table
from tests.games.helpers import make_player


def login(user: User, language: str = "zh-hans") -> Client:
    client = Client(headers={"accept-language": language})
    client.force_login(user)
    return client


def test_a_seated_player_sees_the_table_with_its_socket(room: Room, trio: list[User]) -> None:
    table, _ = services.table_play(user=trio[0], room=room)
    html = login(trio[0]).get(f"/tables/{table.pk}/").content.decode()
    assert f'ws-connect="/ws/tables/{table.pk}/"' in html
    assert 'id="table"' in html and 'data-spectator="false"' in html
    assert "等待玩家入座" in html
    assert "htmx" in html and "ext/hx-ws" in html  # the project's own htmx and its extension


def test_anyone_signed_in_may_watch_a_public_table_but_sees_no_hand(
    room: Room, trio: list[User], outsider: User
) -> None:
    for user in trio:
        table, _ = services.table_play(user=user, room=room)
    html = login(outsider).get(f"/tables/{table.pk}/").content.decode()
    assert 'data-spectator="true"' in html
    assert "你正在观战" in html
    assert 'id="hand-form"' not in html and 'name="cards"' not in html
    # The hands of the game are nowhere in the page.
    game = table.games.get()
    for hand in game.hands:
        for card in hand.split():
            assert f'data-card="{card}"' not in html


def test_a_private_table_is_hidden_from_strangers_and_visitors(
    room: Room, trio: list[User], outsider: User
) -> None:
    private = services.table_create_private(user=trio[0], room=room)
    assert login(outsider).get(f"/tables/{private.pk}/").status_code == 404
    assert Client().get(f"/tables/{private.pk}/")["Location"].startswith("/accounts/login/")
    assert login(outsider).get("/tables/999999/").status_code == 404


def test_an_invitation_shows_the_table_and_seats_whoever_accepts(
    room: Room, trio: list[User]
) -> None:
    private = services.table_create_private(user=trio[0], room=room)
    host = login(trio[0]).get(f"/tables/{private.pk}/").content.decode()
    link = re.search(r'value="(/join/[^"]+/)" data-invite-link', host)
    assert link is not None
    guest = login(trio[1])
    page = guest.get(link.group(1)).content.decode()
    assert "zhao 邀请你到测试场的私人牌桌" in page
    assert not Seat.objects.filter(user=trio[1]).exists()  # looking is not sitting
    response = guest.post(link.group(1))
    assert response["Location"] == f"/tables/{private.pk}/"
    assert Seat.objects.get(user=trio[1]).table == private
    # Back on the link later: straight to the table.
    assert guest.get(link.group(1))["Location"] == f"/tables/{private.pk}/"


def test_a_wrong_or_closed_invitation_says_so(room: Room, trio: list[User]) -> None:
    response = login(trio[1]).get("/join/not-a-code/")
    assert response.status_code == 404
    assert "这个邀请已经失效" in response.content.decode()
    private = services.table_create_private(user=trio[0], room=room)
    services.table_leave(user=trio[0], table=private)
    response = login(trio[1]).get(f"/join/{private.invite_code}/")
    assert response.status_code == 404


def test_leaving_a_waiting_table_at_once_and_a_game_when_it_ends(
    room: Room, trio: list[User]
) -> None:
    table, _ = services.table_play(user=trio[0], room=room)
    client = login(trio[0])
    assert client.post(f"/tables/{table.pk}/leave/")["Location"] == "/"
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    for user in trio:
        playing, _ = services.table_play(user=user, room=room)
    response = login(trio[0]).post(f"/tables/{playing.pk}/leave/", follow=True)
    assert response.redirect_chain == [(f"/tables/{playing.pk}/", 302)]
    assert "本局结束后你将离开牌桌" in response.content.decode()
    seat = Seat.objects.get(user=trio[0], table=playing)
    assert seat.leaves_after_game  # still seated: the game goes on with them


def test_a_private_table_from_the_room_page(room: Room, trio: list[User]) -> None:
    response = login(trio[0]).post(f"/rooms/{room.code}/private/")
    table = Table.objects.get(created_by=trio[0])
    assert table.is_private and response["Location"] == f"/tables/{table.pk}/"


def test_the_table_in_english(room: Room, trio: list[User]) -> None:
    table, _ = services.table_play(user=trio[0], room=room)
    html = login(trio[0], "en").get(f"/tables/{table.pk}/").content.decode()
    assert "Waiting for players; bots take the free seats" in html
    assert "Leave the table" in html


def test_the_room_page_lists_its_public_tables_to_watch(
    room: Room, trio: list[User], outsider: User
) -> None:
    for user in trio:
        playing, _ = services.table_play(user=user, room=room)
    waiting, _ = services.table_play(user=outsider, room=room)
    private = services.table_create_private(user=make_player("zhou"), room=room)
    html = login(outsider).get(f"/rooms/{room.code}/").content.decode()
    rows = re.findall(r'<li class="table-row" data-table="(\d+)">', html)
    assert rows == [str(playing.pk), str(waiting.pk)]  # playing first; no private table
    assert str(private.pk) not in rows
    assert "zhao、qian、sun" in html and "观战" in html and "2 个空座" in html
    assert f'href="/tables/{playing.pk}/"' in html
