"""The bots' level at a table: the room's (staff set it in the admin), or the one a private
table's host chose; it decides which policy plays the bots' turns, while 托管 keeps the game's
own bot."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import selectors, services, thinking
from games.bots import GreedyPolicy, SearchPolicy, SensiblePolicy, choose_for
from games.bots.levels import LEVELS, policy_for
from games.decisions import bot_level_in_time
from games.engines import engine_for
from games.models import BotLevel, Game, GameEvent, Room, Table
from games.rules import Phase
from games.rules.gandengyan import GameState
from games.rules.gandengyan.moves import move_from_json
from tests.games.helpers import make_player, make_room, start_from_position

pytestmark = pytest.mark.django_db

# Seat 1 (a bot) leads: the greedy bot sheds its lowest card, the sensible bot its queen.
HANDS = ["6h Ts 3c 7c", "Th 9d 2c 8d Qs", "5d Js 4d 5c"]


def bot_lead(table: Table, user: User) -> tuple[GameState, dict[str, Any], int]:
    """The position above dealt at ``table`` (``user`` at seat 0, bots at 1 and 2), and the
    bot's first move as the server made it, with the game's id."""
    game = start_from_position(
        table=table, players=[user, None, None], hands=HANDS, stock="", dealer=1
    )
    state = GameState.from_position(HANDS, stock="", dealer=1)
    assert state.to_move == 1
    event = services.bot_take_turn(game=game)
    assert event is not None and event.seat == 1
    assert event.source == GameEvent.Source.BOT
    return state, event.action, game.pk


def test_the_levels_name_a_policy_of_every_game() -> None:
    for game in ("gandengyan", "doudizhu", "shanghai"):
        assert policy_for(game, "easy").name == "greedy"
    assert policy_for("gandengyan", "normal").name == "sensible"
    hard = policy_for("gandengyan", "hard", seed=7, budget_ms=90)
    assert isinstance(hard, SearchPolicy) and hard.seed == 7 and hard.budget_ms == 90
    assert tuple(BotLevel.values) == LEVELS
    with pytest.raises(ValueError, match="no bot level"):
        policy_for("gandengyan", "expert")


@pytest.mark.parametrize(
    ("level", "policy"), [("easy", GreedyPolicy()), ("normal", SensiblePolicy())]
)
def test_a_rooms_level_chooses_its_bots_play(level: str, policy: Any) -> None:
    room = make_room(code=f"lvl-{level}")
    room.bot_level = level
    room.save()
    user = make_player("zhao")
    state, action, _pk = bot_lead(Table.objects.create(room=room), user)
    assert move_from_json(action) == choose_for(state, policy)


def test_the_hard_level_searches_seeded_by_the_game() -> None:
    room = make_room(code="lvl-hard")
    room.bot_level, room.bot_budget_ms = "hard", 200
    room.save()
    user = make_player("zhao")
    state, action, pk = bot_lead(Table.objects.create(room=room), user)
    # A game this short is searched to its playout cap well within the budget, so the choice is
    # the one of the same search without a clock.
    expected = choose_for(state, SearchPolicy(seed=pk, budget_ms=None))
    assert move_from_json(action) == expected


def test_a_private_tables_level_overrides_its_rooms() -> None:
    room = make_room(code="lvl-private")
    room.bot_level = "normal"
    room.save()
    user = make_player("zhao")
    table = services.table_create_private(user=user, room=room, bot_level="easy")
    assert Table.objects.get(pk=table.pk).play_bot_level == "easy"
    state, action, _pk = bot_lead(table, user)
    assert move_from_json(action) == choose_for(state, GreedyPolicy())


def test_an_unknown_level_is_refused_and_opens_nothing() -> None:
    room = make_room(code="lvl-bad")
    user = make_player("zhao")
    with pytest.raises(services.TableRefused) as refused:
        services.table_create_private(user=user, room=room, bot_level="expert")
    assert refused.value.code == "bad_bot_level"
    assert not Table.objects.filter(room=room).exists()


def test_the_higher_rooms_have_hard_bots_by_default() -> None:
    levels = dict(Room.objects.values_list("code", "bot_level"))
    for code in ("senior", "master", "ddz-senior", "ddz-master", "sh-senior", "sh-master"):
        assert levels[code] == "hard", code
    for code in ("novice", "junior", "ddz-novice", "sh-intermediate"):
        assert levels[code] == "normal", code
    assert make_room(code="fresh").bot_level == "normal"


def test_the_host_chooses_the_bots_on_the_room_page(client: Client) -> None:
    user = make_player("zhao", coins=500_000)
    client.force_login(user)
    room = Room.objects.get(code="ddz-master")
    page = client.get(reverse("games:room", args=[room.code]), HTTP_ACCEPT_LANGUAGE="zh-hans")
    html = page.content.decode()
    assert 'name="bot_level"' in html and re.search(r'value="hard"[^>]*checked', html)
    assert "困难" in html
    response = client.post(
        reverse("games:room_private", args=[room.code]),
        {"house_rules": "1", "bot_level": "easy"},
    )
    assert response.status_code == 302
    table = Table.objects.get(room=room, created_by=user)
    assert table.bot_level == "easy" and table.is_private
    friend = make_player("qian", coins=500_000)
    client.force_login(friend)
    invitation = client.get(
        reverse("games:table_join", args=[table.invite_code]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert 'data-bot-level="easy">简单<' in invitation


def test_a_bad_level_from_the_room_page_shows_the_form_again(client: Client) -> None:
    user = make_player("zhao", coins=500_000)
    client.force_login(user)
    room = Room.objects.get(code="ddz-master")
    response = client.post(
        reverse("games:room_private", args=[room.code]),
        {"house_rules": "1", "bot_level": "godlike"},
    )
    assert response.status_code == 200
    assert 'class="house-rules-form" data-house-rules open' in response.content.decode()
    assert not Table.objects.filter(room=room).exists()


def test_the_lobby_names_each_rooms_bots(client: Client) -> None:
    html = client.get(reverse("games:home"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert 'data-bot-level="hard">困难<' in html and 'data-bot-level="normal">普通<' in html


def test_staff_set_a_rooms_bots_in_the_admin(client: Client) -> None:
    staff = User.objects.create_superuser(username="boss", password="pw-123456")
    client.force_login(staff)
    room = Room.objects.get(code="novice")
    url = reverse("admin:games_room_change", args=[room.pk])
    form = client.get(url).context["adminform"].form
    data = {
        name: value
        for name, value in form.initial.items()
        if value is not None and not isinstance(value, (dict, list))
    }
    data.update({"bot_level": "hard", "bot_budget_ms": "150", "rules": "{}"})
    response = client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    room.refresh_from_db()
    assert (room.bot_level, room.bot_budget_ms) == ("hard", 150)
    data["bot_budget_ms"] = "900"
    response = client.post(url, data)
    assert response.status_code == 200
    assert "bot_budget_ms" in response.context["adminform"].form.errors
    room.refresh_from_db()
    assert room.bot_budget_ms == 150


@pytest.mark.parametrize("game", ["gandengyan", "doudizhu", "shanghai"])
def test_hard_bots_play_whole_games_in_a_thinking_process(game: str) -> None:
    """A table of one player (who passes or plays the smallest, through the services) and hard
    bots of each game, the bots' searches made in a thinking process, to the settlement."""
    room = make_room(code=f"hard-{game}", base=1)
    Room.objects.filter(pk=room.pk).update(game=game, bot_level="hard", bot_budget_ms=20)
    room.refresh_from_db()
    user = make_player("zhao")
    table, _seat = services.table_play(user=user, room=room)
    assert table.waiting_since is not None
    later = table.waiting_since + timedelta(seconds=settings.BOT_FILL_SECONDS)
    services.table_fill_with_bots(table=table, now=later)
    game_row = Game.objects.get(table=table, status=Game.Status.PLAYING)
    engine = engine_for(game)
    with override_settings(THINKING_PROCESSES=1):
        for _turn in range(400):
            game_row.refresh_from_db()
            if game_row.status != Game.Status.PLAYING:
                break
            state = selectors.game_state(game=game_row)
            seat = state.to_move
            if game_row.players.get(seat=seat).is_bot or state.phase is Phase.DEAL:
                when = (game_row.turn_deadline or timezone.now()) + timedelta(seconds=0.01)
                assert services.game_turn_due(game=game_row, now=when) is not None
            else:
                action = engine.timeout_action(state, seat)
                services.game_act(game=game_row, seat=seat, action=engine.action_to_json(action))
    thinking.shutdown()
    game_row.refresh_from_db()
    assert game_row.status == Game.Status.FINISHED
    sources = set(GameEvent.objects.filter(game=game_row).values_list("source", flat=True))
    assert GameEvent.Source.BOT in sources


def test_a_late_hard_bot_thinks_less_then_plays_as_the_normal_one() -> None:
    assert bot_level_in_time("hard", 150, late=-1.0) == ("hard", 150.0)
    assert bot_level_in_time("hard", 150, late=0.5) == ("hard", 150.0)
    assert bot_level_in_time("hard", 150, late=1.0) == ("hard", 20.0)
    assert bot_level_in_time("hard", 10, late=1.0) == ("hard", 10.0)
    assert bot_level_in_time("hard", 150, late=2.5) == ("normal", 150.0)
    assert bot_level_in_time("easy", 150, late=9.0) == ("easy", 150.0)
    assert bot_level_in_time("normal", 150, late=9.0) == ("normal", 150.0)


def test_a_hard_bot_whose_turn_is_long_overdue_plays_the_sensible_move() -> None:
    room = make_room(code="lvl-late")
    room.bot_level = "hard"
    room.save()
    user = make_player("zhao")
    table = Table.objects.create(room=room)
    game = start_from_position(
        table=table, players=[user, None, None], hands=HANDS, stock="", dealer=1
    )
    game.turn_deadline = timezone.now()
    game.save(update_fields=["turn_deadline"])
    event = services.game_turn_due(game=game, now=game.turn_deadline + timedelta(seconds=5))
    assert event is not None and event.source == GameEvent.Source.BOT
    state = GameState.from_position(HANDS, stock="", dealer=1)
    assert move_from_json(event.action) == choose_for(state, SensiblePolicy())
