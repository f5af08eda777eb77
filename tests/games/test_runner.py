"""The table runner: bots sit down when the wait is over and move when their turn is due, once."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from accounts.models import User
from games import runner, services
from games.models import Game, GameEvent, Room, Seat, Table
from games.selectors import (
    games_with_a_turn_due,
    tables_to_fill_with_bots,
    tables_with_players_not_ready,
)
from tests.games.helpers import play_out


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


def test_players_not_ready_in_time_after_a_game_leave_their_seats_to_bots(
    room: Room, trio: list[User]
) -> None:
    table, first = _table_after_a_game(room, trio)
    services.table_play_again(user=trio[0], table=table)
    # The last player walked away in 托管: nothing of theirs stays with the seat.
    Seat.objects.filter(user=trio[2]).update(auto_play=True, timeouts=2)
    ready_by = first.finished_at + timedelta(seconds=settings.READY_SECONDS)
    early = ready_by - timedelta(milliseconds=1)
    assert list(tables_with_players_not_ready(now=early)) == []
    assert services.table_stand_up_not_ready(table=table, now=early) == 0
    assert Seat.objects.filter(table=table, user__isnull=False).count() == 3

    assert list(tables_with_players_not_ready(now=ready_by)) == [table]
    assert runner.run_due_work(now=ready_by) == 1
    table.refresh_from_db()
    assert table.status == Table.Status.WAITING and table.waiting_since == ready_by
    assert seat_rows(table) == [(0, "zhao", True), (1, None, False), (2, None, False)]
    assert list(tables_with_players_not_ready(now=ready_by)) == []
    # The player who was ready keeps the seat; bots take the others after the usual wait.
    later = ready_by + timedelta(seconds=settings.BOT_FILL_SECONDS)
    runner.run_due_work(now=later)
    second = Game.objects.get(table=table, number=2)
    assert [(p.user_id, p.is_bot) for p in second.players.order_by("seat")] == [
        (trio[0].pk, False),
        (None, True),
        (None, True),
    ]
    # A player who sits in the freed seat later does not inherit 托管.
    freed = Seat.objects.get(table=table, position=2)
    assert (freed.auto_play, freed.timeouts) == (False, 0)


def test_a_table_where_nobody_is_ready_in_time_closes(room: Room, trio: list[User]) -> None:
    table, first = _table_after_a_game(room, trio)
    due = first.finished_at + timedelta(seconds=settings.READY_SECONDS)
    assert services.table_stand_up_not_ready(table=table, now=due) == 3
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert not Seat.objects.filter(table=table, user__isnull=False).exists()
    # Each of them may sit down elsewhere at once.
    elsewhere, position = services.table_play(user=trio[0], room=room)
    assert elsewhere != table and position == 0


def test_players_who_are_all_ready_or_still_playing_keep_their_seats(
    room: Room, trio: list[User]
) -> None:
    for user in trio:
        table, _ = services.table_play(user=user, room=room)
    game = Game.objects.get(table=table)
    much_later = timezone.now() + timedelta(seconds=settings.READY_SECONDS * 10)
    # A game being played: nobody is "not ready".
    assert list(tables_with_players_not_ready(now=much_later)) == []
    assert services.table_stand_up_not_ready(table=table, now=much_later) == 0
    play_out(game)
    for user in trio[:2]:
        services.table_play_again(user=user, table=table)
    second = services.table_play_again(user=trio[2], table=table)
    assert second is not None
    assert services.table_stand_up_not_ready(table=table, now=much_later) == 0
    assert Seat.objects.filter(table=table, user__isnull=False).count() == 3


def _table_after_a_game(room: Room, trio: list[User]) -> tuple[Table, Game]:
    """``trio`` at one table of ``room``, its first game played to the end."""
    for user in trio:
        table, _ = services.table_play(user=user, room=room)
    game = Game.objects.get(table=table)
    play_out(game)
    game.refresh_from_db()
    assert game.finished_at is not None
    return table, game


def seat_rows(table: Table) -> list[tuple[int, str | None, bool]]:
    return [
        (seat.position, seat.user.username if seat.user else None, seat.ready)
        for seat in Seat.objects.filter(table=table).select_related("user").order_by("position")
    ]
