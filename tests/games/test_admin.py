"""The admin of the games app: who gets in, read-only games, the replay, the dispute queue."""

from __future__ import annotations

import dataclasses

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from accounts.models import LedgerEntry, LedgerReason, User
from games import services
from games.models import Dispute, Game, Room, Seat, Table
from games.presentation.gandengyan import HOUSE_RULES
from games.rules.doudizhu import DoudizhuRules
from games.rules.gandengyan import ENGINE, GandengyanRules
from tests.games.helpers import balance, doudizhu_room, play_out, start_from_position

pytestmark = pytest.mark.django_db

HANDS = ["3s 6s 9c", "4h 8h Th Qh", "5d 7d 9d Jd Kd 2d"]


@pytest.fixture
def finished(table: Table, trio: list[User]) -> Game:
    game = start_from_position(table=table, players=trio, hands=HANDS, stock="", dealer=0)
    play_out(game, seed=77)
    game.refresh_from_db()
    return game


@pytest.fixture
def seeded(room: Room, trio: list[User]) -> Game:
    """A whole game dealt from a seed, played to the end."""
    game = services.game_start(table=Table.objects.create(room=room), players=trio, seed=77)
    play_out(game, seed=77)
    game.refresh_from_db()
    return game


@pytest.fixture
def dispute(finished: Game, trio: list[User]) -> Dispute:
    return services.dispute_open(user=trio[0], game=finished, reason="The deal looked odd.")


@pytest.fixture
def admin_client(client: Client, staff: User) -> Client:
    client.force_login(staff)
    return client


def admin_urls(room: Room, table: Table, game: Game, dispute: Dispute) -> list[str]:
    return [
        "/admin/games/",
        "/admin/games/room/",
        "/admin/games/room/add/",
        f"/admin/games/room/{room.pk}/change/",
        f"/admin/games/room/{room.pk}/delete/",
        "/admin/games/table/",
        "/admin/games/table/add/",
        f"/admin/games/table/{table.pk}/change/",
        "/admin/games/game/",
        "/admin/games/game/add/",
        f"/admin/games/game/{game.pk}/change/",
        f"/admin/games/game/{game.pk}/replay/",
        f"/admin/games/game/{game.pk}/history/",
        "/admin/games/dispute/",
        f"/admin/games/dispute/{dispute.pk}/change/",
        f"/admin/games/dispute/{dispute.pk}/resolve/",
        f"/admin/games/dispute/{dispute.pk}/reject/",
    ]


@pytest.mark.parametrize("who", ["anonymous", "player"])
def test_only_staff_reach_the_games_admin(
    client: Client,
    who: str,
    room: Room,
    table: Table,
    finished: Game,
    dispute: Dispute,
    trio: list[User],
) -> None:
    if who == "player":
        client.force_login(trio[0])
    for url in admin_urls(room, table, finished, dispute):
        for method in (client.get, client.post):
            response = method(url)
            assert response.status_code == 302, url
            assert response["Location"].startswith("/admin/login/"), url
    assert Dispute.objects.get().status == Dispute.Status.OPEN
    assert Room.objects.filter(pk=room.pk).exists()


def test_staff_see_every_page(
    admin_client: Client, room: Room, table: Table, finished: Game, dispute: Dispute
) -> None:
    for url in admin_urls(room, table, finished, dispute):
        if url in ("/admin/games/game/add/", "/admin/games/table/add/"):
            continue  # games and tables come from the services, never by hand
        response = admin_client.get(url)
        assert response.status_code == 200, url


def test_games_are_read_only(admin_client: Client, finished: Game) -> None:
    assert admin_client.get("/admin/games/game/add/").status_code == 403
    response = admin_client.post(f"/admin/games/game/{finished.pk}/change/", {"base": 1})
    assert response.status_code == 403
    assert admin_client.post(f"/admin/games/game/{finished.pk}/delete/").status_code == 403
    finished.refresh_from_db()
    assert finished.base == 400
    text = admin_client.get(f"/admin/games/game/{finished.pk}/change/").content.decode()
    assert f"/admin/games/game/{finished.pk}/replay/" in text
    assert 'name="_save"' not in text


def test_a_finished_games_page_shows_its_deal(
    english_client: Client, staff: User, seeded: Game
) -> None:
    english_client.force_login(staff)
    text = english_client.get(f"/admin/games/game/{seeded.pk}/change/").content.decode()
    assert seeded.seed in text
    for seat, hand in enumerate(seeded.hands):
        assert f"<div>Seat {seat}: {hand}</div>" in text
    assert f"<div>Stock, top first: {seeded.stock}</div>" in text


def test_the_game_list_filters(admin_client: Client, finished: Game) -> None:
    response = admin_client.get("/admin/games/game/?status__exact=finished")
    assert response.status_code == 200
    assert response.context["cl"].result_count == 1
    response = admin_client.get("/admin/games/game/?status__exact=playing")
    assert response.context["cl"].result_count == 0
    response = admin_client.get("/admin/games/game/?q=zhao")
    assert response.context["cl"].result_count == 1


def test_the_replay_page(english_client: Client, staff: User, seeded: Game) -> None:
    finished = seeded
    english_client.force_login(staff)
    response = english_client.get(f"/admin/games/game/{finished.pk}/replay/")
    assert response.status_code == 200
    replay = response.context["replay"]
    assert replay.ok
    text = response.content.decode()
    assert 'id="verdict">everything agrees' in text
    assert text.count('class="hand') == 3 * len(replay.steps)
    assert [check.code for check in replay.checks] == [
        "record",
        "commitment",
        "actions",
        "result",
        "ledger",
    ]
    assert finished.seed in text
    for hand in finished.hands:
        assert hand in text


def test_the_replay_of_a_game_in_progress_shows_no_cards(
    admin_client: Client, room: Room, trio: list[User]
) -> None:
    table = Table.objects.create(room=room)
    game = services.game_start(table=table, players=trio, seed=5)
    response = admin_client.get(f"/admin/games/game/{game.pk}/replay/")
    assert response.status_code == 200
    text = response.content.decode()
    assert response.context["replay"] is None
    assert game.seed not in text and game.stock not in text
    text = admin_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert game.seed not in text and game.stock not in text
    for hand in game.hands:
        assert hand not in text


def test_staff_without_permissions_are_refused(
    client: Client, finished: Game, dispute: Dispute
) -> None:
    clerk = User.objects.create_user(username="clerk", password="pw-123456", is_staff=True)
    client.force_login(clerk)
    assert client.get("/admin/games/game/").status_code == 403
    assert client.get(f"/admin/games/game/{finished.pk}/replay/").status_code == 403
    assert client.get(f"/admin/games/dispute/{dispute.pk}/resolve/").status_code == 403
    # Seeing disputes is not enough to close them.
    clerk.user_permissions.add(
        Permission.objects.get(codename="view_dispute"),
        Permission.objects.get(codename="view_game"),
    )
    clerk = User.objects.get(pk=clerk.pk)
    client.force_login(clerk)
    assert client.get("/admin/games/dispute/").status_code == 200
    assert client.get(f"/admin/games/game/{finished.pk}/replay/").status_code == 200
    response = client.post(
        f"/admin/games/dispute/{dispute.pk}/resolve/", {"note": "ok", "compensation": 100}
    )
    assert response.status_code == 403
    assert Dispute.objects.get().status == Dispute.Status.OPEN


#: The 干瞪眼 rules fields of a room's form as they post the standard game: the boxes of the
#: options that are on in it ticked, the others left out, the limits empty.
GANDENGYAN_STANDARD: dict[str, object] = {
    "players": 3,
    "pair_straights": "on",
    "lone_joker_last": "on",
    "draw": "all",
    "rocket_multiplier": 8,
    "max_straight": "",
    "max_pair_straight": "",
    "max_multiplier": "",
}


def room_form(**changes: object) -> dict[str, object]:
    """A valid change form of a room, with ``changes`` (None: the field left out)."""
    data: dict[str, object] = {
        "name_zh": "测试场",
        "name_en": "Test room",
        "base": 400,
        "min_coins": 0,
        "max_coins": "",
        "rules": "{}",  # a 斗地主 room's; a 干瞪眼 room's are its own fields
        **GANDENGYAN_STANDARD,
        "turn_seconds": 20,
        "bot_level": "normal",
        "bot_budget_ms": 120,
        "is_open": "on",
        "position": 3,
    }
    data.update(changes)
    return {name: value for name, value in data.items() if value is not None}


def test_a_gandengyan_rooms_rules_are_a_field_each(english_client: Client, staff: User) -> None:
    english_client.force_login(staff)
    room = Room.objects.create(
        code="house",
        name_zh="家规场",
        name_en="House",
        base=400,
        min_coins=0,
        rules={"players": 4, "one_card_free": True, "rocket_multiplier": 4, "max_multiplier": 64},
    )
    url = f"/admin/games/room/{room.pk}/change/"
    response = english_client.get(url)
    form = response.context["adminform"].form
    text = response.content.decode()
    # No JSON left: a box for each yes-or-no option, numbers and choices for the rest.
    assert "rules" not in form.fields and 'name="rules"' not in text
    names = [rule.name for rule in HOUSE_RULES]
    assert [name for name in form.fields if name in names] == names
    assert len(names) == len([field for field in dataclasses.fields(GandengyanRules) if field.init])
    for name in names:
        assert f'name="{name}"' in text, name
    assert 'type="number" name="players" value="4"' in text
    assert 'type="checkbox" name="one_card_free"' in text
    assert form.initial["one_card_free"] is True and form.initial["twos_jump_pairs"] is False
    # The options on in the standard game start ticked.
    assert form.initial["pair_straights"] is True and form.initial["lone_joker_last"] is True
    assert form.initial["rocket_multiplier"] == 4 and form.initial["max_multiplier"] == 64
    assert form.initial["draw"] == "all" and form.initial["max_straight"] is None


@pytest.mark.parametrize(
    ("changes", "rules"),
    [
        ({}, {}),
        ({"players": 2}, {"players": 2}),
        ({"players": 6}, {"players": 6}),
        ({"draw": "winner"}, {"draw": "winner"}),
        ({"rocket_multiplier": 4}, {"rocket_multiplier": 4}),
        ({"max_multiplier": 64}, {"max_multiplier": 64}),
        ({"one_card_free": "on"}, {"one_card_free": True}),
        ({"loser_twos_jokers_double": "on"}, {"loser_twos_jokers_double": True}),
        ({"dealer_one_play_spring": "on"}, {"dealer_one_play_spring": True}),
        (
            {"players": 5, "one_card_free": "on", "rocket_multiplier": 4, "max_multiplier": 32},
            {"players": 5, "one_card_free": True, "rocket_multiplier": 4, "max_multiplier": 32},
        ),
    ],
)
def test_a_gandengyan_rooms_rules_are_set_with_its_fields(
    admin_client: Client, room: Room, changes: dict[str, object], rules: dict[str, object]
) -> None:
    room.rules = {"draw": "winner", "max_multiplier": 16}
    room.save()
    url = f"/admin/games/room/{room.pk}/change/"
    # The standard game's fields, with the changes: what was set before and is left out goes.
    response = admin_client.post(url, room_form(base=500, **changes))
    assert response.status_code == 302
    room.refresh_from_db()
    assert room.base == 500
    assert room.rules == rules  # only what differs from the standard game


@pytest.mark.parametrize("name", [rule.name for rule in HOUSE_RULES])
def test_each_gandengyan_option_is_saved_from_its_field(
    admin_client: Client, room: Room, name: str
) -> None:
    value, posted = _NON_STANDARD[name]
    changes = {name: posted} if posted is not None else {name: None}
    url = f"/admin/games/room/{room.pk}/change/"
    response = admin_client.post(url, room_form(base=999, **changes))
    assert response.status_code == 302
    room.refresh_from_db()
    assert room.rules == {name: value} and room.base == 999
    assert ENGINE.options_to_json(ENGINE.options_from_json(room.rules)) == room.rules


#: An option's value other than the standard's, and how its field posts it (None: left out,
#: an unticked box).
_NON_STANDARD: dict[str, tuple[object, object]] = {
    "players": (4, 4),
    "twos_jump_pairs": (True, "on"),
    "twos_top_bombs": (True, "on"),
    "pair_straights": (False, None),
    "max_straight": (6, 6),
    "max_pair_straight": (8, 8),
    "draw": ("winner", "winner"),
    "lone_joker_last": (False, None),
    "natural_over_wild": (True, "on"),
    "rocket_multiplier": (4, 4),
    "loser_twos_jokers_double": (True, "on"),
    "one_card_free": (True, "on"),
    "dealer_one_play_spring": (True, "on"),
    "bombs_any_higher": (True, "on"),
    "joker_not_two": (True, "on"),
    "max_multiplier": (64, 64),
}


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"players": "many"}, "players"),
        ({"players": ""}, "players"),
        ({"draw": "loser"}, "draw"),
        ({"rocket_multiplier": 16}, "rocket_multiplier"),
        ({"max_straight": "6.5"}, "max_straight"),
        ({"players": 7}, "players"),
        ({"players": 1}, "players"),
        ({"players": "6.0"}, "players"),
        ({"max_multiplier": 0}, "max_multiplier"),
        ({"max_multiplier": "9" * 4001}, "max_multiplier"),
        ({"max_multiplier": 1_000_001}, "max_multiplier"),
        ({"max_straight": -3}, "max_straight"),
    ],
)
def test_gandengyan_rules_fields_refuse_what_is_not_a_value(
    admin_client: Client, room: Room, changes: dict[str, object], field: str
) -> None:
    url = f"/admin/games/room/{room.pk}/change/"
    response = admin_client.post(url, room_form(base=999, **changes))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors[field]
    room.refresh_from_db()
    assert room.rules == {} and room.base == 400


def test_room_coins_range_is_checked(admin_client: Client, room: Room) -> None:
    response = admin_client.post(
        f"/admin/games/room/{room.pk}/change/",
        room_form(min_coins=5000, max_coins=1000, is_open=None),
    )
    assert response.status_code == 200
    room.refresh_from_db()
    assert room.min_coins == 0


def test_a_rooms_seconds_per_turn_are_set_in_the_admin(admin_client: Client, room: Room) -> None:
    data = room_form(turn_seconds=None)
    url = f"/admin/games/room/{room.pk}/change/"
    assert 'name="turn_seconds"' in admin_client.get(url).content.decode()
    for bad in (4, 301, "", "ten"):
        response = admin_client.post(url, {**data, "turn_seconds": bad})
        assert response.status_code == 200, bad
        assert response.context["adminform"].form.errors["turn_seconds"], bad
    room.refresh_from_db()
    assert room.turn_seconds == 20

    response = admin_client.post(url, {**data, "turn_seconds": 30})
    assert response.status_code == 302
    room.refresh_from_db()
    assert room.turn_seconds == 30


def test_tables_with_their_seats(admin_client: Client, room: Room, trio: list[User]) -> None:
    table = Table.objects.create(room=room)
    Seat.objects.create(table=table, position=0, user=trio[0])
    Seat.objects.create(table=table, position=1, is_bot=True)
    text = admin_client.get(f"/admin/games/table/{table.pk}/change/").content.decode()
    assert trio[0].username in text
    # Seats change only through the table services: nothing to edit or add by hand.
    assert 'name="seats-0-user"' not in text and 'name="seats-1-is_bot"' not in text
    assert admin_client.get("/admin/games/table/add/").status_code == 403


def test_the_dispute_queue_puts_open_disputes_first(
    admin_client: Client, finished: Game, trio: list[User], staff: User
) -> None:
    closed = services.dispute_open(user=trio[1], game=finished, reason="first")
    services.dispute_reject(dispute=closed, staff=staff, note="no")
    later = services.dispute_open(user=trio[2], game=finished, reason="second")
    earlier_open = services.dispute_open(user=trio[1], game=finished, reason="third")
    response = admin_client.get("/admin/games/dispute/")
    assert response.status_code == 200
    shown = list(response.context["cl"].result_list)
    assert shown == [later, earlier_open, closed]
    text = response.content.decode()
    assert f"/admin/games/game/{finished.pk}/replay/" in text
    assert f"/admin/games/dispute/{later.pk}/resolve/" in text
    assert f"/admin/games/dispute/{closed.pk}/resolve/" not in text
    response = admin_client.get("/admin/games/dispute/?status__exact=rejected")
    assert list(response.context["cl"].result_list) == [closed]


def test_disputes_are_not_edited_by_hand(admin_client: Client, dispute: Dispute) -> None:
    response = admin_client.post(
        f"/admin/games/dispute/{dispute.pk}/change/", {"status": "resolved", "compensation": 99}
    )
    assert response.status_code == 403
    assert admin_client.get("/admin/games/dispute/add/").status_code == 403
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.OPEN and dispute.compensation == 0
    text = admin_client.get(f"/admin/games/dispute/{dispute.pk}/change/").content.decode()
    assert f"/admin/games/dispute/{dispute.pk}/resolve/" in text
    assert f"/admin/games/dispute/{dispute.pk}/reject/" in text


def test_resolve_through_the_form_page(
    admin_client: Client, dispute: Dispute, trio: list[User], staff: User
) -> None:
    url = f"/admin/games/dispute/{dispute.pk}/resolve/"
    response = admin_client.get(url)
    assert response.status_code == 200
    assert "The deal looked odd." in response.content.decode()
    # Errors are shown and change nothing.
    response = admin_client.post(url, {"note": "", "compensation": -5})
    assert response.status_code == 200
    assert set(response.context["form"].errors) == {"note", "compensation"}
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.OPEN

    before = balance(trio[0])
    response = admin_client.post(url, {"note": "Checked; here is something.", "compensation": 800})
    assert response.status_code == 302
    assert response["Location"] == "/admin/games/dispute/"
    dispute.refresh_from_db()
    assert (dispute.status, dispute.staff, dispute.compensation) == ("resolved", staff, 800)
    assert balance(trio[0]) == before + 800
    row = LedgerEntry.objects.get(reason=LedgerReason.COMPENSATION)
    assert (row.staff, row.game) == (staff, dispute.game)

    # A closed dispute cannot be closed again: the service refuses and says so.
    response = admin_client.post(url, {"note": "again", "compensation": 800})
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert balance(trio[0]) == before + 800


def test_reject_through_the_form_page(admin_client: Client, dispute: Dispute, staff: User) -> None:
    url = f"/admin/games/dispute/{dispute.pk}/reject/"
    assert "compensation" not in admin_client.get(url).content.decode()
    rows = LedgerEntry.objects.count()
    response = admin_client.post(url, {"note": "The replay agrees with the result."})
    assert response.status_code == 302
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.REJECTED
    assert LedgerEntry.objects.count() == rows


def test_a_game_from_a_position_shows_in_the_admin(admin_client: Client, finished: Game) -> None:
    response = admin_client.get(f"/admin/games/game/{finished.pk}/replay/")
    assert response.status_code == 200
    assert response.context["replay"].ok


def test_the_replay_is_stepped_through_by_its_address(admin_client: Client, seeded: Game) -> None:
    url = f"/admin/games/game/{seeded.pk}/replay/"
    steps = len(admin_client.get(url).context["replay"].steps)
    for asked, shown, before, after in [
        (None, 0, None, 1),
        ("3", 3, 2, 4),
        (str(steps - 1), steps - 1, steps - 2, None),
        ("9999", steps - 1, steps - 2, None),
        ("-4", 0, None, 1),
        ("three", 0, None, 1),
    ]:
        response = admin_client.get(url, {} if asked is None else {"step": asked})
        assert response.status_code == 200
        context = response.context
        assert (context["step"].number, context["step_before"], context["step_after"]) == (
            shown,
            before,
            after,
        ), asked


def doudizhu_room_form(**changes: object) -> dict[str, object]:
    return room_form(**{"double_threshold": "", **changes})


def test_a_doudizhu_rooms_doubling_threshold_has_a_field_of_its_own(
    english_client: Client, staff: User
) -> None:
    english_client.force_login(staff)
    room = doudizhu_room(threshold=500)
    url = f"/admin/games/room/{room.pk}/change/"
    text = english_client.get(url).content.decode()
    assert '<label for="id_double_threshold">Doubling threshold (coins):</label>' in text
    assert 'name="double_threshold" value="500"' in text
    assert "only when both they and the landlord have more coins than this" in text
    # The option is no longer in the rules' JSON, which holds the others.
    form = english_client.get(url).context["adminform"].form
    assert form.initial["rules"] == {} and form.initial["double_threshold"] == 500
    fields = list(form.fields)
    assert fields.index("double_threshold") == fields.index("rules") + 1

    response = english_client.post(url, doudizhu_room_form(double_threshold="2000"))
    assert response.status_code == 302
    room.refresh_from_db()
    assert room.rules == {"double_threshold": 2000}
    assert DoudizhuRules.from_dict(room.rules).double_threshold == 2000

    response = english_client.post(url, doudizhu_room_form(double_threshold="0"))
    assert response.status_code == 302
    room.refresh_from_db()
    assert room.rules == {"double_threshold": 0}

    # Empty: the standard game, where anyone may double.
    response = english_client.post(url, doudizhu_room_form())
    assert response.status_code == 302
    room.refresh_from_db()
    assert room.rules == {}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("-1", "Ensure this value is greater than or equal to 0."),
        ("1.5", "Enter a whole number, in digits."),
        ("500.0", "Enter a whole number, in digits."),
        ("many", "Enter a whole number, in digits."),
        ("9" * 4001, "Enter a whole number, in digits."),
        ("1000000000001", "Ensure this value is less than or equal to 1000000000000."),
    ],
)
def test_a_bad_doubling_threshold_is_refused_and_changes_nothing(
    english_client: Client, staff: User, value: str, message: str
) -> None:
    english_client.force_login(staff)
    room = doudizhu_room(threshold=500)
    url = f"/admin/games/room/{room.pk}/change/"
    response = english_client.post(url, doudizhu_room_form(double_threshold=value, base=999))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["double_threshold"] == [message]
    assert message in response.content.decode()
    room.refresh_from_db()
    assert room.rules == {"double_threshold": 500} and room.base == 50


def test_the_doubling_threshold_is_not_set_twice(english_client: Client, staff: User) -> None:
    english_client.force_login(staff)
    room = doudizhu_room(threshold=500)
    url = f"/admin/games/room/{room.pk}/change/"
    data = doudizhu_room_form(double_threshold="800", rules='{"double_threshold": 900}')
    response = english_client.post(url, data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["rules"]
    assert errors == ["Set double_threshold with its own field on this page, not in the rules."]
    response = english_client.post(url, doudizhu_room_form(rules='{"jokers": 3}'))
    assert response.status_code == 200
    assert "unknown rules option" in response.context["adminform"].form.errors["rules"][0]
    room.refresh_from_db()
    assert room.rules == {"double_threshold": 500}


def test_a_gandengyan_room_has_no_doubling_threshold(admin_client: Client, room: Room) -> None:
    url = f"/admin/games/room/{room.pk}/change/"
    assert 'name="double_threshold"' not in admin_client.get(url).content.decode()
    assert (
        'name="double_threshold"' not in admin_client.get("/admin/games/room/add/").content.decode()
    )
    response = admin_client.post(url, room_form(double_threshold="100"))
    assert response.status_code == 302
    room.refresh_from_db()
    assert room.rules == {}
    # Nor does any JSON of the rules bring it in: 干瞪眼's options are all fields of their own.
    response = admin_client.post(url, room_form(rules='{"double_threshold": 100}'))
    assert response.status_code == 302
    room.refresh_from_db()
    assert room.rules == {}
