"""House rules: a private table's host chooses them, every game at the table plays them (seats
included), the rules are said in plain words wherever a table or a room is shown, and a game's
record replays with the rules it was dealt with."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from accounts.models import User
from games import selectors, services
from games.models import Game, GamePlayer, Room, Seat, Table
from games.presentation import presentation_for
from games.presentation.gandengyan import HOUSE_RULES, rules_phrases
from games.rules import parse_ranks
from games.rules.gandengyan import ENGINE, ComboKind
from games.rules.gandengyan.combos import combo_from_ranks
from games.selectors.replays import game_replay_steps
from tests.games.helpers import balance, make_player, make_room, play_out, start_from_position

pytestmark = pytest.mark.django_db


def login(user: User, language: str = "en") -> Client:
    client = Client(headers={"accept-language": language})
    client.force_login(user)
    return client


#: The 干瞪眼 fields of the room page's private-table form as a browser posts the standard
#: game (the boxes that are on in it ticked, the others not posted, the limits empty).
STANDARD_FORM: dict[str, Any] = {
    "house_rules": "1",
    "players": "3",
    "pair_straights": "on",
    "lone_joker_last": "on",
    "draw": "all",
    "rocket_multiplier": "8",
    "max_straight": "",
    "max_pair_straight": "",
    "max_multiplier": "",
}


# The rules in plain words ------------------------------------------------------------------------


#: Each option at a value other than the standard's, and what it is called then (English).
PHRASES: dict[str, tuple[Any, str]] = {
    "players": (2, "2 players"),
    "twos_jump_pairs": (True, "A pair of twos beats any pair"),
    "twos_top_bombs": (True, "Bombs of twos top their kind"),
    "pair_straights": (False, "No pair straights"),
    "max_straight": (6, "Straights of at most 6 cards"),
    "max_pair_straight": (8, "Pair straights of at most 8 cards"),
    "draw": ("winner", "Only the round winner draws"),
    "lone_joker_last": (False, "A lone joker is never played"),
    "natural_over_wild": (True, "Natural bombs beat wild ones"),
    "rocket_multiplier": (4, "Rocket ×4"),
    "loser_twos_jokers_double": (True, "Twos and jokers left double"),
    "one_card_free": (True, "One card left pays nothing"),
    "dealer_one_play_spring": (True, "Dealer's lone lead is spring"),
    "bombs_any_higher": (True, "Any higher bomb beats a bomb"),
    "joker_not_two": (True, "A joker is never a 2"),
    "max_multiplier": (64, "Multiplier capped at ×64"),
}


def test_every_option_has_a_phrase() -> None:
    assert [rule.name for rule in HOUSE_RULES] == list(PHRASES)


@pytest.mark.parametrize("name", list(PHRASES))
def test_each_option_in_plain_words(name: str) -> None:
    value, phrase = PHRASES[name]
    with translation.override("en"):
        assert rules_phrases({name: value}) == [phrase]
        # At its standard value an option says nothing: the standard game's words are all.
        standard = getattr(ENGINE.default_options, name)
        assert standard != value
        assert rules_phrases({name: standard}) == ["Standard rules"]


def test_the_standard_game_and_several_options_in_plain_words() -> None:
    with translation.override("en"):
        assert rules_phrases({}) == rules_phrases(None) == ["Standard rules"]
        assert rules_phrases(
            {"max_multiplier": 32, "players": 5, "one_card_free": True, "max_straight": 1}
        ) == [
            "5 players",
            "Straights of at most 1 card",
            "One card left pays nothing",
            "Multiplier capped at ×32",
        ]


def test_the_rules_page_explains_every_option_in_a_section(english_client: Client) -> None:
    html = english_client.get("/rules/").content.decode()
    assert '<h2 id="house-rules">House rules of Gan Deng Yan</h2>' in html
    assert 'href="#house-rules"' in html  # in the contents
    for rule in HOUSE_RULES:
        section = re.search(
            rf'<section class="house-rule" id="rule-{rule.name}">\s*<h3>(.*?)</h3>\s*<p>(.+?)</p>',
            html,
            re.S,
        )
        assert section is not None, rule.name
        assert f"<code>{rule.name}</code>" in section[1]
        assert len(section[2]) > 40


# Where the rules are shown ----------------------------------------------------------------------


def test_the_lobby_and_the_room_page_say_each_rooms_rules(outsider: User) -> None:
    make_room(code="plain")
    make_room(code="house", rules={"one_card_free": True, "rocket_multiplier": 4})
    client = login(outsider)
    lobby = client.get("/").content.decode()

    def card(code: str) -> str:
        start = lobby.index(f'id="room-{code}"')
        return lobby[start : lobby.index("</li>", start)]

    assert 'class="rules-phrase">Standard rules</span>' in card("plain")
    house = card("house")
    assert 'class="rules-phrase">Rocket ×4</span>' in house
    assert 'class="rules-phrase">One card left pays nothing</span>' in house
    page = client.get("/rooms/house/").content.decode()
    assert re.search(
        r'<p class="rules-line" data-rules><span class="rules-line-label">Rules:</span> '
        r'<span class="rules-phrase">Rocket ×4</span>.*?<span class="rules-phrase">One card left',
        page,
    )
    # In Chinese by default, the standard game is 标准规则 once the catalogue has it.
    assert "data-rules" in login(outsider, "zh-hans").get("/rooms/plain/").content.decode()


def test_the_room_page_offers_the_rules_form_from_the_rooms_rules(outsider: User) -> None:
    room = make_room(code="house", rules={"players": 4, "one_card_free": True})
    html = login(outsider).get(f"/rooms/{room.code}/").content.decode()
    form = html[
        html.index('<form class="room-private"') : html.index(
            "</form>", html.index('<form class="room-private"')
        )
    ]
    assert 'type="hidden" name="house_rules" value="1"' in form
    assert 'name="players" value="4"' in form and 'min="2"' in form and 'max="6"' in form
    assert re.search(r'type="checkbox" name="one_card_free"[^>]* checked', form)
    assert re.search(r'type="checkbox" name="pair_straights"[^>]* checked', form)
    assert not re.search(r'type="checkbox" name="joker_not_two"[^>]* checked', form)
    assert re.search(r'type="radio" name="rocket_multiplier" value="8"[^>]* checked', form)
    assert '<option value="all" selected>' in form
    for rule in HOUSE_RULES:
        assert f'name="{rule.name}"' in form, rule.name
    assert (
        "<details" in form and '<details class="house-rules-form" data-house-rules open' not in form
    )


# The private table's form ------------------------------------------------------------------------


def test_a_private_table_plays_the_house_rules_its_host_chose(room: Room, trio: list[User]) -> None:
    host = trio[0]
    data = {
        **STANDARD_FORM,
        "players": "4",
        "one_card_free": "on",
        "loser_twos_jokers_double": "on",
        "rocket_multiplier": "4",
        "max_multiplier": "64",
        "draw": "winner",
    }
    response = login(host).post(f"/rooms/{room.code}/private/", data)
    table = Table.objects.get(created_by=host)
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/"
    rules = {
        "players": 4,
        "draw": "winner",
        "rocket_multiplier": 4,
        "loser_twos_jokers_double": True,
        "one_card_free": True,
        "max_multiplier": 64,
    }
    assert table.is_private and table.rules == rules == table.play_rules
    assert table.seats.count() == 4
    assert room.rules == {}  # the room's own stay
    # The invitation and the table say them; the stakes are the room's.
    invitation = login(trio[1]).get(f"/join/{table.invite_code}/").content.decode()
    assert 'class="rules-phrase">4 players</span>' in invitation
    assert 'class="rules-phrase">Only the round winner draws</span>' in invitation
    page = login(host).get(f"/tables/{table.pk}/").content.decode()
    assert re.search(
        r'<p class="table-rules-line"><span class="rules-line-label">Rules:</span> 4 players · '
        r"Only the round winner draws · Rocket ×4 · Twos and jokers left double · "
        r"One card left pays nothing · Multiplier capped at ×64</p>",
        page,
    )
    assert page.count("<li>4 players</li>") == 1

    # Bots fill the three free seats and the game is dealt with the table's rules.
    assert services.table_call_bots(user=host, table=table) == 3
    game = Game.objects.get(table=table)
    assert game.rules == rules and game.base == room.base
    assert sorted(len(hand.split()) for hand in game.hands) == [5, 5, 5, 6]
    assert len(game.stock.split()) == 54 - 21
    assert GamePlayer.objects.filter(game=game, is_bot=True).count() == 3


def test_a_private_table_with_the_standard_form_plays_the_standard_game(
    room: Room, trio: list[User]
) -> None:
    login(trio[0]).post(f"/rooms/{room.code}/private/", STANDARD_FORM)
    table = Table.objects.get(created_by=trio[0])
    assert table.rules == {} and table.seats.count() == 3


def test_without_the_form_a_private_table_plays_the_rooms_rules(trio: list[User]) -> None:
    room = make_room(code="house", rules={"players": 2})
    response = login(trio[0]).post(f"/rooms/{room.code}/private/")
    table = Table.objects.get(created_by=trio[0])
    assert response["Location"] == f"/tables/{table.pk}/"
    assert table.rules is None and table.play_rules == {"players": 2}
    assert table.seats.count() == 2


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"players": "7"}, "Ensure this value is less than or equal to 6."),
        ({"players": "1"}, "Ensure this value is greater than or equal to 2."),
        ({"players": "6.0"}, "Enter a whole number, in digits."),
        ({"players": "6e0"}, "Enter a whole number, in digits."),
        ({"max_multiplier": "0"}, "Ensure this value is greater than or equal to 1."),
        ({"max_multiplier": "1000001"}, "Ensure this value is less than or equal to 1000000."),
        ({"max_multiplier": "9" * 4001}, "Enter a whole number, in digits."),
        ({"max_straight": "55"}, "Ensure this value is less than or equal to 54."),
        ({"players": "two"}, "Enter a whole number, in digits."),
        ({"players": ""}, "This field is required."),
        ({"draw": "loser"}, "Select a valid choice. loser is not one of the available choices."),
        ({"rocket_multiplier": "2"}, "Select a valid choice. 2 is not one of the available"),
    ],
)
def test_rules_the_form_or_the_engine_refuses_change_nothing(
    room: Room, trio: list[User], changes: dict[str, str], error: str
) -> None:
    host = trio[0]
    # The host sits at a waiting table: a refused form does not take them off it.
    waiting, seat = services.table_play(user=host, room=room)
    response = login(host).post(f"/rooms/{room.code}/private/", {**STANDARD_FORM, **changes})
    assert response.status_code == 200
    html = response.content.decode()
    assert error in html
    assert '<details class="house-rules-form" data-house-rules open>' in html
    # The form shows what was sent, to correct it.
    for name, value in changes.items():
        if value and name in ("players", "max_multiplier") and len(value) < 100:
            assert f'name="{name}" value="{value}"' in html
    assert not Table.objects.filter(is_private=True).exists()
    assert Seat.objects.get(user=host).table_id == waiting.pk


def test_each_option_of_the_form_reaches_the_table(room: Room) -> None:
    """Every option's field, set away from the standard game, is what the table plays."""
    for rule in HOUSE_RULES:
        value, _phrase = PHRASES[rule.name]
        data = dict(STANDARD_FORM)
        if value is False:
            data.pop(rule.name)  # an unticked box is not sent
        else:
            data[rule.name] = "on" if value is True else str(value)
        host = make_player(f"host-{rule.name}"[:30])
        response = login(host).post(f"/rooms/{room.code}/private/", data)
        assert response.status_code == 302, rule.name
        table = Table.objects.get(created_by=host)
        assert table.rules == {rule.name: value}, rule.name
        assert table.seats.count() == (value if rule.name == "players" else 3)


def test_a_player_without_the_coins_gets_no_private_table(trio: list[User]) -> None:
    room = make_room(code="rich")
    room.min_coins = 500_000
    room.save()
    host = trio[0]
    response = login(host, "zh-hans").post(
        f"/rooms/{room.code}/private/", {**STANDARD_FORM, "players": "5"}, follow=True
    )
    assert response.redirect_chain == [(f"/rooms/{room.code}/", 302)]
    assert not Table.objects.exists()
    assert balance(host) == 100_000


def test_a_closed_room_opens_no_private_table(room: Room, trio: list[User]) -> None:
    room.is_open = False
    room.save()
    response = login(trio[0]).post(f"/rooms/{room.code}/private/", STANDARD_FORM)
    assert response.status_code == 302 and response["Location"] == f"/rooms/{room.code}/"
    assert not Table.objects.exists()


def test_the_service_refuses_rules_it_cannot_play(room: Room, trio: list[User]) -> None:
    with pytest.raises(services.TableRefused) as refused:
        services.table_create_private(user=trio[0], room=room, rules={"players": 8})
    assert refused.value.code == "bad_rules"
    with pytest.raises(services.TableRefused):
        services.table_create_private(user=trio[0], room=room, rules={"jokers": 3})
    assert not Table.objects.exists()


# Seats: 2 to 6 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_table_seats_and_deals_as_many_players_as_its_rules_say(room: Room, players: int) -> None:
    host = make_player("host")
    table = services.table_create_private(user=host, room=room, rules={"players": players})
    assert table.seats.count() == players
    friend = make_player("friend")
    services.table_join_by_invite(user=friend, code=table.invite_code or "")
    if players > 2:  # two players fill a table of two: its game starts at once
        assert services.table_call_bots(user=host, table=table) == players - 2
    table.refresh_from_db()
    seats = list(table.seats.order_by("position"))
    assert [seat.position for seat in seats] == list(range(players))
    assert sum(seat.is_bot for seat in seats) == players - 2
    game = Game.objects.get(table=table)
    sizes = sorted(len(hand.split()) for hand in game.hands)
    assert sizes == [5] * (players - 1) + [6]
    assert len(game.stock.split()) == 54 - 5 * players - 1
    assert selectors.game_state(game=game).players == players
    assert GamePlayer.objects.filter(game=game).count() == players
    # The game is played to its end with that many seats, and settles.
    play_out(game, seed=players)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and len(game.result["payments"]) == players
    assert sum(game.result["payments"]) == 0


def test_a_public_table_seats_as_many_as_its_rooms_rules_say(trio: list[User]) -> None:
    room = make_room(code="six", rules={"players": 6})
    table, _seat = services.table_play(user=trio[0], room=room)
    assert table.rules is None and table.seats.count() == 6


# A game keeps its rules -------------------------------------------------------------------------


HOUSE = {
    "players": 4,
    "one_card_free": True,
    "loser_twos_jokers_double": True,
    "rocket_multiplier": 4,
}


def test_a_house_rules_game_is_recorded_and_replays_with_its_rules(room: Room) -> None:
    players = [make_player("host"), None, None, None]
    table = services.table_create_private(user=players[0], room=room, rules=HOUSE)
    # Seed 1 (with play_out's seed 1) ends with a loser holding one card, who pays nothing.
    game = services.game_start(table=table, players=players, seed=1)
    play_out(game, seed=1)
    game.refresh_from_db()
    assert game.rules == HOUSE
    assert game.result["payments"] == [-3200, 0, -3200, 6400]
    assert GamePlayer.objects.get(game=game, seat=1).cards_left == 1
    record = selectors.game_record(game=game)
    assert record["rules"] == HOUSE
    replay = game_replay_steps(game=game)
    assert replay.ok, [check for check in replay.checks if not check.ok]
    assert replay.settlement is not None
    assert replay.settlement.items() <= game.result.items()
    # The same actions under the standard rules of four seats settle otherwise: the record's
    # rules are what made the loser with one card pay nothing.
    standard = ENGINE.replay_record({**record, "rules": {"players": 4}})
    assert standard.settlement is not None
    assert standard.settlement.payments[1] != 0
    # The game page and the replay say the rules it was played with.
    client = login(players[0])
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "One card left pays nothing" in page


def test_changing_the_rooms_rules_changes_no_game_being_played(trio: list[User]) -> None:
    room = make_room(code="house", rules={"one_card_free": True, "rocket_multiplier": 4})
    for user in trio:
        table, _seat = services.table_play(user=user, room=room)
    game = Game.objects.get(table=table)
    assert game.rules == {"one_card_free": True, "rocket_multiplier": 4}
    room.rules = {"max_multiplier": 2}
    room.save()
    # The table says the rules of the game while it is played.
    client = login(trio[0])
    line = re.compile(r'<p class="table-rules-line">.*?</p>')
    playing = line.search(client.get(f"/tables/{table.pk}/").content.decode())
    assert playing is not None
    assert "Rocket ×4 · One card left pays nothing" in playing[0]
    play_out(game, seed=3)
    game.refresh_from_db()
    assert game.rules == {"one_card_free": True, "rocket_multiplier": 4}
    assert selectors.game_state(game=game).rules.one_card_free
    assert game_replay_steps(game=game).ok
    # Then those of the next game; its settlement, those it was played with.
    table.refresh_from_db()
    assert table.play_rules == {"max_multiplier": 2}
    html = client.get(f"/tables/{table.pk}/").content.decode()
    after = line.search(html)
    assert after is not None and "Multiplier capped at ×2" in after[0]
    assert re.search(
        r"data-settlement-rules>This game&#39;s house rules: Rocket ×4 · One card left", html
    )


def test_a_table_without_pair_straights_refuses_one_and_hints_none(room: Room) -> None:
    host = make_player("host")
    table = services.table_create_private(
        user=host, room=room, rules={"pair_straights": False, "players": 2}
    )
    game = start_from_position(
        table=table, players=[host, None], hands=["3s 3h 4s 4h 9c", "Kd"], stock="", dealer=0
    )
    assert game.rules == {"pair_straights": False, "players": 2}
    with pytest.raises(services.GameActionRefused) as refused:
        services.game_act(game=game, seat=0, action={"play": "3s 3h 4s 4h"})
    assert refused.value.code == "not_a_combination"
    state = selectors.game_state(game=game)
    hints = presentation_for("gandengyan").hints(state, 0)
    assert hints and all(
        combo_from_ranks(parse_ranks(hint["as"])).kind is not ComboKind.PAIR_STRAIGHT
        for hint in hints
    )
    assert {"cards": "3s 3h", "as": "3 3"} in hints
