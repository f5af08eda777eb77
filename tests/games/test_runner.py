"""The table runner: bots sit down when the wait is over and move when their turn is due, once."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from accounts.models import User
from games import runner, services
from games.models import Game, GameEvent, Room, Table
from games.selectors import games_with_a_turn_due, tables_to_fill_with_bots


def test_bots_sit_down_at_public_tables_only_when_the_wait_is_over(
    room: Room, trio: list[User]
) -> None:
    public, _ = services.table_play(user=trio[0], room=room)
    private = services.table_create_private(user=trio[1], room=room)
    assert public.waiting_since is not None
    soon = public.waiting_since + timedelta(seconds=settings.BOT_FILL_SECONDS - 1)
    assert runner.run_due_work(now=soon) == 0
    later = timezone.now() + timedelta(seconds=settings.BOT_FILL_SECONDS + 1)
    assert list(tables_to_fill_with_bots(now=later)) == [public]
    runner.run_due_work(now=later)
    private.refresh_from_db()
    # The bots sat down and the game started (the pass may have made its first moves too; a
    # deal can even end with the dealer's first play, so the game's status is not checked).
    assert public.seats.filter(is_bot=True).count() == 2
    assert Game.objects.filter(table=public).count() == 1
    assert private.status == Table.Status.WAITING  # friends are still to come
    assert not private.seats.filter(is_bot=True).exists()


def test_a_player_at_a_private_table_calls_the_bots_in(room: Room, trio: list[User]) -> None:
    private = services.table_create_private(user=trio[0], room=room)
    services.table_join_by_invite(user=trio[1], code=private.invite_code or "")
    assert services.table_call_bots(user=trio[1], table=private) == 1
    private.refresh_from_db()
    assert private.status == Table.Status.PLAYING
    game = Game.objects.get(table=private)
    assert [p.is_bot for p in game.players.order_by("seat")] == [False, False, True]


def test_a_bot_moves_once_its_delay_is_over_and_only_once(room: Room, trio: list[User]) -> None:
    table = Table.objects.create(room=room)
    game = services.game_start(table=table, players=[None, None, None], seed=11)
    assert game.turn_started_at is not None and game.to_move == game.dealer
    assert game.turn_deadline == game.turn_started_at + timedelta(
        seconds=settings.BOT_MOVE_DELAY_SECONDS
    )
    early = game.turn_deadline - timedelta(milliseconds=1)
    assert list(games_with_a_turn_due(now=early)) == []
    assert runner.run_due_work(now=early) == 0
    assert not GameEvent.objects.filter(game=game).exists()

    due = game.turn_deadline
    assert list(games_with_a_turn_due(now=due)) == [game]
    assert runner.run_due_work(now=due) == 1
    event = GameEvent.objects.get(game=game)
    assert event.seat == game.dealer and event.source == GameEvent.Source.BOT
    # A second runner passing at the same moment finds the next bot's turn not due yet.
    assert runner.run_due_work(now=due) == 0
    assert GameEvent.objects.filter(game=game).count() == 1
    game.refresh_from_db()
    assert game.to_move == (event.seat + 1) % 3


def test_a_game_of_bots_runs_to_its_end_through_the_runner(room: Room) -> None:
    table = Table.objects.create(room=room)
    game = services.game_start(table=table, players=[None, None, None], seed=3)
    now = timezone.now()
    moves = 0
    while moves < 400:
        now += timedelta(seconds=settings.BOT_MOVE_DELAY_SECONDS + 0.01)
        done = runner.run_due_work(now=now)
        if not done:
            break
        moves += done
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.settled_at is not None
    assert game.to_move is None and game.turn_started_at is None
    assert moves == game.events.count() > 3


def test_people_get_the_rooms_time_before_the_server_acts(room: Room, trio: list[User]) -> None:
    table = Table.objects.create(room=room)
    game = services.game_start(table=table, players=trio, seed=5)
    assert game.turn_started_at is not None and game.turn_deadline is not None
    assert game.turn_deadline - game.turn_started_at == timedelta(seconds=room.turn_seconds)
    almost = game.turn_deadline - timedelta(seconds=1)
    assert list(games_with_a_turn_due(now=almost)) == []
    assert runner.run_due_work(now=almost) == 0
    assert not game.events.exists()
