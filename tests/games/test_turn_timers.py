"""Turn deadlines: the server passes or leads for a player whose time ran out, two timeouts in a
row put the seat in 托管 (the bot plays for them) until they take it back, and a deadline fires
once, after a restart too, however many runners look at it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection, connections, transaction
from django.utils import timezone

from accounts.models import User
from games import runner, services
from games.models import Game, GameEvent, Room, Seat, Table
from tests.games.helpers import make_player, make_room, start_from_position

HANDS = ["3s 4s 5s 9h 4d BJ", "6h 7h Kd 5c", "8c 9c Qc 6c"]
STOCK = "Ah As Ac Ad 2s 2h 7s 7c 8h 8d"


def seated_game(room: Room, users: list[User]) -> tuple[Table, Game]:
    table = Table.objects.create(room=room, status=Table.Status.PLAYING)
    for position, user in enumerate(users):
        table.seats.create(position=position, user=user)
    game = start_from_position(table=table, players=users, hands=HANDS, stock=STOCK, dealer=0)
    game.turn_deadline = services.turn_deadline(game=game, seat=0, now=timezone.now())
    game.save(update_fields=["turn_deadline"])
    return table, game


def events(game: Game) -> list[tuple[int, dict[str, object], str]]:
    return list(game.events.order_by("number").values_list("seat", "action", "source"))


def seat_of(user: User) -> Seat:
    return Seat.objects.get(user=user)


@pytest.fixture
def timed_room(db: None) -> Room:
    return make_room(code="timed")


def test_a_turn_deadline_is_the_rooms_time_for_a_player(timed_room: Room, trio: list[User]) -> None:
    Room.objects.filter(pk=timed_room.pk).update(turn_seconds=15)
    table, game = seated_game(timed_room, trio)
    before = timezone.now()
    services.table_game_act(
        user=trio[0], table=table, action={"play": "3s"}, version=_version(table)
    )
    game.refresh_from_db()
    assert game.to_move == 1
    assert game.turn_deadline is not None
    assert before + timedelta(seconds=15) <= game.turn_deadline
    assert game.turn_deadline <= timezone.now() + timedelta(seconds=15)


def _version(table: Table) -> str:
    from games.selectors import table_version

    return table_version(table=Table.objects.get(pk=table.pk))


def test_a_timeout_passes_for_a_follower_and_the_game_goes_on(
    timed_room: Room, trio: list[User]
) -> None:
    table, game = seated_game(timed_room, trio)
    services.table_game_act(
        user=trio[0], table=table, action={"play": "3s"}, version=_version(table)
    )
    game.refresh_from_db()
    deadline = game.turn_deadline
    assert deadline is not None
    assert runner.run_due_work(now=deadline - timedelta(seconds=1)) == 0
    assert runner.run_due_work(now=deadline) == 1
    assert events(game)[-1] == (1, {"pass": True}, GameEvent.Source.TIMEOUT)
    assert seat_of(trio[1]).timeouts == 1 and not seat_of(trio[1]).auto_play
    game.refresh_from_db()
    assert game.to_move == 2 and game.status == Game.Status.PLAYING
    # The next player moves in time: nothing more happens for them.
    services.table_game_act(
        user=trio[2], table=table, action={"pass": True}, version=_version(table)
    )
    assert len(events(game)) == 3 and events(game)[-1][2] == GameEvent.Source.PLAYER


def test_a_timeout_leads_the_smallest_play_for_a_leader(timed_room: Room, trio: list[User]) -> None:
    table, game = seated_game(timed_room, trio)
    assert game.turn_deadline is not None
    assert runner.run_due_work(now=game.turn_deadline) == 1
    assert events(game) == [(0, {"play": "3s"}, GameEvent.Source.TIMEOUT)]


def test_two_timeouts_in_a_row_put_the_seat_in_auto_play_and_one_click_takes_it_back(
    timed_room: Room, trio: list[User]
) -> None:
    table, game = seated_game(timed_room, trio)

    def time_out() -> GameEvent:
        game.refresh_from_db()
        assert game.turn_deadline is not None
        assert runner.run_due_work(now=game.turn_deadline) == 1
        return game.events.order_by("-number").first()  # type: ignore[return-value]

    # Seat 0 leads and times out; seats 1 and 2 pass in time; seat 0 times out again.
    assert time_out().source == GameEvent.Source.TIMEOUT
    for user in trio[1:]:
        services.table_game_act(
            user=user, table=table, action={"pass": True}, version=_version(table)
        )
    assert time_out().source == GameEvent.Source.TIMEOUT
    seat = seat_of(trio[0])
    assert seat.auto_play and seat.timeouts == 2
    for user in trio[1:]:
        services.table_game_act(
            user=user, table=table, action={"pass": True}, version=_version(table)
        )
    # In 托管 the seat's turn comes due after a bot's pause, and the bot plays it.
    game.refresh_from_db()
    assert game.to_move == 0 and game.turn_deadline is not None
    assert game.turn_deadline - timezone.now() <= timedelta(seconds=settings.BOT_MOVE_DELAY_SECONDS)
    assert time_out().source == GameEvent.Source.AUTO_PLAY

    # One click takes the seat back; on the player's turn the room's time starts again.
    for user in trio[1:]:
        services.table_game_act(
            user=user, table=table, action={"pass": True}, version=_version(table)
        )
    services.table_set_auto_play(user=trio[0], table=table, on=False)
    seat = seat_of(trio[0])
    assert not seat.auto_play and seat.timeouts == 0
    game.refresh_from_db()
    assert game.to_move == 0 and game.turn_deadline is not None
    assert game.turn_deadline - timezone.now() > timedelta(seconds=timed_room.turn_seconds - 5)


def test_a_players_own_move_forgets_the_timeouts(timed_room: Room, trio: list[User]) -> None:
    table, game = seated_game(timed_room, trio)
    assert game.turn_deadline is not None
    runner.run_due_work(now=game.turn_deadline)
    assert seat_of(trio[0]).timeouts == 1
    for user in trio[1:]:
        services.table_game_act(
            user=user, table=table, action={"pass": True}, version=_version(table)
        )
    services.table_game_act(
        user=trio[0], table=table, action={"play": "4d"}, version=_version(table)
    )
    assert seat_of(trio[0]).timeouts == 0


def test_switching_auto_play_on_and_off_never_gives_a_turn_more_time(
    timed_room: Room, trio: list[User]
) -> None:
    """Taking the seat back gives the turn the room's time from the turn's start, so a player
    cannot hold up the table by switching 托管 on and off; asking for what already holds
    changes nothing."""
    table, game = seated_game(timed_room, trio)
    started, first = game.turn_started_at, game.turn_deadline
    assert started is not None and first is not None
    services.table_set_auto_play(user=trio[0], table=table, on=False)  # not on: nothing
    game.refresh_from_db()
    assert game.turn_deadline == first
    for _ in range(3):
        services.table_set_auto_play(user=trio[0], table=table, on=True)
        game.refresh_from_db()
        assert game.turn_deadline is not None and game.turn_deadline <= first
        services.table_set_auto_play(user=trio[0], table=table, on=False)
        game.refresh_from_db()
        assert game.turn_deadline == started + timedelta(seconds=timed_room.turn_seconds)
    assert table.version == Table.objects.get(pk=table.pk).version


def test_a_deadline_due_during_a_restart_fires_once_after_it(
    timed_room: Room, trio: list[User]
) -> None:
    table, game = seated_game(timed_room, trio)
    # The server was down when the deadline passed: the first pass after it acts, once.
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(minutes=5))
    now = timezone.now()
    assert runner.run_due_work(now=now) == 1
    assert runner.run_due_work(now=now) == 0
    assert len(events(game)) == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_two_runner_processes_never_both_act_on_one_deadline() -> None:
    if not os.environ.get("REDIS_URL"):
        pytest.skip("needs REDIS_URL: run_tables refuses the in-memory channel layer")
    room = make_room(code="race")
    Room.objects.filter(pk=room.pk).update(turn_seconds=300)
    room.refresh_from_db()
    games = []
    for number in range(12):
        users = [make_player(f"p{number}-{seat}") for seat in range(3)]
        _table, game = seated_game(room, users)
        games.append(game)
    Game.objects.filter(pk__in=[g.pk for g in games]).update(
        turn_deadline=timezone.now() - timedelta(seconds=1)
    )
    database = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "gandengyan.settings",
        "DATABASE_URL": (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/"
            f"{database['NAME']}"
        ),
        "TABLE_RUNNER_IN_PROCESS": "false",
    }
    command = [sys.executable, "manage.py", "run_tables", "--interval", "0.02"]
    runners = [
        subprocess.Popen(
            command,
            cwd=settings.BASE_DIR,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for _ in range(2)
    ]
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if GameEvent.objects.filter(game__in=games).count() >= len(games):
                break
            time.sleep(0.1)
        time.sleep(1.0)  # time for a second action on any deadline, if one could happen
    finally:
        for process in runners:
            process.terminate()
        for process in runners:
            process.wait(timeout=10)
    for game in games:
        assert events(game) == [(0, {"play": "3s"}, GameEvent.Source.TIMEOUT)]
        leader = game.players.get(seat=0).user
        assert Seat.objects.get(user=leader).timeouts == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_switching_auto_play_as_the_deadline_fires_waits_instead_of_deadlocking() -> None:
    """The runner locks the game row, then the seat; a player's 托管 switch takes them in the
    same order, so when both come at once one waits for the other and neither fails."""
    room = make_room(code="lock-order")
    users = [make_player(f"lo-{seat}") for seat in range(3)]
    table, game = seated_game(room, users)
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def runner_like() -> None:
        try:
            with transaction.atomic():
                Game.objects.select_for_update().get(pk=game.pk)
                barrier.wait(timeout=10)
                time.sleep(0.5)  # the switch comes in now
                Seat.objects.select_for_update().get(table=table, user=users[0])
        except BaseException as exc:  # reported by the test
            errors.append(exc)
        finally:
            connections.close_all()

    def switch() -> None:
        try:
            barrier.wait(timeout=10)
            time.sleep(0.1)
            services.table_set_auto_play(user=users[0], table=table, on=True)
        except BaseException as exc:  # reported by the test
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=runner_like), threading.Thread(target=switch)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert seat_of(users[0]).auto_play
