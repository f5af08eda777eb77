"""The lobby and entering a room: what a visitor and a player see, and who may go in."""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Callable

import pytest
from django.test import Client

from accounts.models import LedgerEntry, LedgerReason, User, Wallet
from accounts.services import coins_move, wallet_create
from games.models import Room, Seat, Table

pytestmark = pytest.mark.django_db

ROOMS_ZH = [
    ("novice", "新手场", "400", "1,000 – 50,000"),
    ("junior", "初级场", "1,000", "3,000 – 250,000"),
    ("intermediate", "中级场", "3,000", "8,000 – 600,000"),
    ("senior", "高级场", "9,000", "20,000 – 10,000,000"),
    ("master", "大师场", "30,000", "90,000 – 100,000,000"),
    ("supreme", "至尊场", "80,000", "540,000 起"),
]
ROOMS_EN = [
    ("novice", "Novice", "400", "1,000 – 50,000"),
    ("junior", "Junior", "1,000", "3,000 – 250,000"),
    ("intermediate", "Intermediate", "3,000", "8,000 – 600,000"),
    ("senior", "Senior", "9,000", "20,000 – 10,000,000"),
    ("master", "Master", "30,000", "90,000 – 100,000,000"),
    ("supreme", "Supreme", "80,000", "540,000 and up"),
]

PlayerFactory = Callable[..., User]


@pytest.fixture
def player() -> PlayerFactory:
    """Make a player with a wallet holding ``balance`` coins (the welcome grant, adjusted)."""

    def make(username: str = "xiaoming", balance: int = 10_000) -> User:
        user = User.objects.create_user(username=username, password="hongtao-7-dui")
        wallet = wallet_create(user=user)
        if balance != wallet.balance:
            coins_move(
                wallet=wallet,
                amount=balance - wallet.balance,
                reason=LedgerReason.STAFF_ADJUSTMENT,
                note="test balance",
            )
        return user

    return make


def text_of(fragment: str) -> str:
    """The visible text of an HTML fragment, whitespace collapsed."""
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def room_card_text(html: str, code: str) -> str:
    match = re.search(rf'<li class="room-card[^"]*" id="room-{code}">(.*?)</li>', html, re.S)
    assert match, f"no card for room {code}"
    return text_of(match.group(1))


def messages_text(html: str) -> str:
    match = re.search(r'<div class="container messages"[^>]*>(.*?)</div>', html, re.S)
    return text_of(match.group(1)) if match else ""


def state_snapshot(user: User) -> tuple[int, int, int, int]:
    return (
        Wallet.objects.get(user=user).balance,
        LedgerEntry.objects.count(),
        Table.objects.count(),
        Seat.objects.count(),
    )


# The lobby ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept_language", "rooms", "words"),
    [
        ("zh-hans", ROOMS_ZH, ("底注", "入场金币", "在座玩家", "开放中", "开始游戏")),
        ("en", ROOMS_EN, ("Base", "Coins to enter", "Players seated", "Open", "Play")),
    ],
)
def test_lobby_lists_the_six_rooms_with_base_and_range(
    accept_language: str, rooms: list[tuple[str, str, str, str]], words: tuple[str, ...]
) -> None:
    html = Client(headers={"accept-language": accept_language}).get("/").content.decode()
    codes = re.findall(r'<li class="room-card[^"]*" id="room-([a-z]+)">', html)
    assert codes == [code for code, *_ in rooms]
    for code, name, base, entry in rooms:
        card = room_card_text(html, code)
        assert name in card
        base_label, range_label, seated_label, open_label, enter_label = words
        assert f"{base_label} {base}" in card
        assert f"{range_label} {entry}" in card
        assert f"{seated_label} 0" in card
        assert open_label in card
        assert enter_label in card
        assert f'action="/rooms/{code}/play/"' in html


def test_lobby_switches_to_english_and_back(client: Client) -> None:
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    html = client.get("/").content.decode()
    assert "Novice" in room_card_text(html, "novice")
    assert "540,000 and up" in room_card_text(html, "supreme")

    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    html = client.get("/").content.decode()
    assert "新手场" in room_card_text(html, "novice")
    assert "540,000 起" in room_card_text(html, "supreme")


def test_lobby_counts_players_seated_at_open_tables_only(player: PlayerFactory) -> None:
    novice = Room.objects.get(code="novice")
    waiting = Table.objects.create(room=novice)
    Seat.objects.create(table=waiting, position=0, user=player("a"))
    Seat.objects.create(table=waiting, position=1, user=player("b"))
    Seat.objects.create(table=waiting, position=2, is_bot=True)
    closed = Table.objects.create(room=novice, status=Table.Status.CLOSED)
    Seat.objects.create(table=closed, position=0, user=player("c"))

    html = Client().get("/").content.decode()
    assert "在座玩家 2" in room_card_text(html, "novice")
    assert "在座玩家 0" in room_card_text(html, "junior")


def test_a_closed_room_is_marked_and_offers_no_entry() -> None:
    Room.objects.filter(code="master").update(is_open=False)
    html = Client().get("/").content.decode()
    card = room_card_text(html, "master")
    assert "已关闭" in card
    assert "本场次暂未开放。" in card
    assert 'action="/rooms/master/"' not in html


def test_a_visitor_is_invited_to_sign_up(client: Client) -> None:
    html = client.get("/").content.decode()
    assert "注册即送 10,000 金币。" in text_of(html)
    assert 'href="/accounts/signup/"' in html
    assert 'href="/accounts/login/"' in html
    assert "你的金币" not in html
    assert 'href="/accounts/profile/"' not in html
    assert 'href="/admin/"' not in html


def test_a_player_sees_their_name_and_balance(client: Client, player: PlayerFactory) -> None:
    client.force_login(player("laowang", balance=123_456))
    html = client.get("/").content.decode()
    assert "欢迎回来，laowang。" in html
    assert "你的金币 123,456" in text_of(html)
    assert 'href="/accounts/profile/"' in html
    assert 'href="/admin/"' not in html
    assert 'href="/accounts/signup/"' not in html
    # 123,456 coins admit 初级场, 中级场, 高级场 and 大师场.
    fits = re.findall(r'<li class="room-card is-fit" id="room-([a-z]+)">', html)
    assert fits == ["junior", "intermediate", "senior", "master"]


def test_the_balance_in_english(english_client: Client, player: PlayerFactory) -> None:
    english_client.force_login(player(balance=10_000))
    html = english_client.get("/").content.decode()
    assert "Your coins 10,000" in text_of(html)
    assert ">Profile</a>" in html


def test_an_account_without_a_wallet_has_no_coins(client: Client) -> None:
    client.force_login(User.objects.create_user(username="nowallet", password="x-123456"))
    assert "你的金币 0" in text_of(client.get("/").content.decode())


def test_staff_get_a_link_to_the_admin(client: Client) -> None:
    client.force_login(User.objects.create_user(username="boss", password="x", is_staff=True))
    html = client.get("/").content.decode()
    assert 'href="/admin/"' in html
    assert ">管理后台</a>" in html


# Entering a room ----------------------------------------------------------------------------------


def test_the_room_page_shows_the_room(client: Client) -> None:
    response = client.get("/rooms/senior/")
    assert response.status_code == 200
    html = response.content.decode()
    page = text_of(html)
    assert "<title>高级场 · 干瞪眼 Online</title>" in html
    assert "底注 9,000" in page
    assert "入场金币 20,000 – 10,000,000" in page
    assert "登录后即可进入场次。" in page
    assert 'href="/accounts/login/?next=/rooms/senior/"' in html


def test_an_unknown_room_is_404(client: Client) -> None:
    assert client.get("/rooms/nowhere/").status_code == 404
    assert client.post("/rooms/nowhere/play/").status_code == 404


def test_play_seats_a_player_within_the_range_at_a_table(
    client: Client, player: PlayerFactory
) -> None:
    user = player(balance=10_000)
    client.force_login(user)
    wallet, ledger, _tables, _seats = state_snapshot(user)

    response = client.post("/rooms/novice/play/")
    seat = Seat.objects.select_related("table__room").get(user=user)
    assert response.status_code == 302
    assert response["Location"] == f"/tables/{seat.table.pk}/"
    assert seat.table.room.code == "novice"
    # Sitting down moves no coins.
    assert state_snapshot(user)[:2] == (wallet, ledger)
    # Play again from the lobby: back to the same seat.
    assert client.post("/rooms/novice/play/")["Location"] == f"/tables/{seat.table.pk}/"
    assert Seat.objects.filter(user=user).count() == 1


@pytest.mark.parametrize("balance", [1_000, 50_000])
def test_the_range_includes_both_ends(client: Client, player: PlayerFactory, balance: int) -> None:
    user = player(balance=balance)
    client.force_login(user)
    client.post("/rooms/novice/play/")
    assert Seat.objects.filter(user=user, table__room__code="novice").exists()


def test_too_few_coins_names_the_minimum_and_a_room_that_fits(
    client: Client, player: PlayerFactory
) -> None:
    user = player(balance=10_000)
    client.force_login(user)
    before = state_snapshot(user)

    response = client.post("/rooms/senior/play/", follow=True)
    assert response.redirect_chain == [("/rooms/senior/", 302)]
    html = response.content.decode()
    assert (
        "高级场至少需要 20,000 金币才能进入，你现在有 10,000 金币。"
        '可以试试<a href="/rooms/intermediate/">中级场</a>。'
    ) in html
    assert state_snapshot(user) == before


def test_below_the_lowest_room_points_to_relief_coins(
    client: Client, player: PlayerFactory
) -> None:
    user = player(balance=500)
    client.force_login(user)
    before = state_snapshot(user)

    html = client.post("/rooms/novice/play/", follow=True).content.decode()
    assert (
        "新手场至少需要 1,000 金币才能进入，你现在有 500 金币。"
        '可以在<a href="/accounts/profile/">个人中心</a>领取救济金。'
    ) in html
    assert state_snapshot(user) == before


def test_too_many_coins_names_the_maximum_and_a_room_that_fits(
    client: Client, player: PlayerFactory
) -> None:
    user = player(balance=700_000)
    client.force_login(user)
    before = state_snapshot(user)

    html = client.post("/rooms/novice/play/", follow=True).content.decode()
    assert (
        "新手场最多只能带 50,000 金币进入，你现在有 700,000 金币。"
        '可以试试<a href="/rooms/senior/">高级场</a>。'
    ) in html
    assert state_snapshot(user) == before


def test_refusal_and_play_in_english(english_client: Client, player: PlayerFactory) -> None:
    user = player(balance=700_000)
    english_client.force_login(user)
    html = english_client.post("/rooms/novice/play/", follow=True).content.decode()
    assert (
        "Novice admits at most 50,000 coins; you have 700,000. "
        'Try <a href="/rooms/senior/">Senior</a>.'
    ) in html

    html = english_client.post("/rooms/supreme/play/", follow=True).content.decode()
    assert "Supreme" in html and 'id="table"' in html
    assert "Waiting for players; bots take the free seats" in html


def test_below_every_room_in_english(english_client: Client, player: PlayerFactory) -> None:
    english_client.force_login(player(balance=0))
    html = english_client.post("/rooms/junior/play/", follow=True).content.decode()
    assert (
        "Junior needs at least 3,000 coins to enter; you have 0. "
        'You can claim relief coins on <a href="/accounts/profile/">your profile</a>.'
    ) in html


def test_a_closed_room_refuses_to_seat(client: Client, player: PlayerFactory) -> None:
    Room.objects.filter(code="novice").update(is_open=False)
    user = player(balance=10_000)
    client.force_login(user)
    before = state_snapshot(user)

    html = client.post("/rooms/novice/play/", follow=True).content.decode()
    assert "新手场暂未开放，请选择其他场次。" in messages_text(html)
    assert state_snapshot(user) == before


def test_a_visitor_who_presses_play_is_sent_to_log_in(client: Client) -> None:
    response = client.post("/rooms/novice/play/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/rooms/novice/"
    assert not Seat.objects.exists()


def test_playing_rooms_show_in_the_lobby_with_a_way_back(
    client: Client, player: PlayerFactory
) -> None:
    user = player(balance=10_000)
    client.force_login(user)
    client.post("/rooms/novice/play/")
    html = client.get("/").content.decode()
    table = Seat.objects.get(user=user).table
    assert f'href="/tables/{table.pk}/"' in html
    assert "回到你在新手场的牌桌" in html
