"""What each process keeps of a table's current game (games.positions): used only when the game
row names it, a reader applies only the events stored since, and nothing the database does not
confirm is ever used."""

from __future__ import annotations

import uuid

import pytest
from django.db import transaction

from accounts.models import User
from games import positions, selectors, services
from games.lru import LruCache
from games.models import Game, GameEvent, Seat, Table
from games.positions import KnownGame
from games.rules.gandengyan import GameState
from tests.games.helpers import play_out
from tests.games.live import state_at

pytestmark = pytest.mark.django_db


class RolledBack(Exception):
    pass


def _same(left: GameState, right: GameState) -> bool:
    return left.view_for(None) == right.view_for(None) and all(
        left.hand(seat) == right.hand(seat) for seat in range(left.players)
    )


def test_a_kept_position_and_a_replay_from_the_deal_agree_after_every_move(
    table: Table, trio: list[User]
) -> None:
    game = services.game_start(table=table, players=trio, seed=11)
    events = play_out(game, seed=11)
    assert len(events) > 10
    game.refresh_from_db()
    for count in (0, 1, 5, len(events) // 2, len(events)):
        positions.clear()
        # A position known at `count` events, then a read that must catch up with the rest.
        known = state_at(game, count)
        last = None
        if count:
            row = GameEvent.objects.get(game=game, number=count)
            last = (row.pk, row.seat, row.action)
        kept = Game.objects.get(pk=game.pk)
        kept.position_id = uuid.uuid4()  # as the row was when the position was kept
        positions.remember(KnownGame(game=kept, state=known, last_event=last))
        assert _same(selectors.game_state(game=game), state_at(game, len(events)))


def test_a_reader_with_a_known_position_reads_only_the_events_after_it(
    table: Table, trio: list[User], django_assert_num_queries
) -> None:
    game = services.game_start(table=table, players=trio, seed=12)
    play_out(game, seed=12, stop_before_end=True)
    game.refresh_from_db()
    game.position_id = uuid.uuid4()  # a row the process has not seen: a move made elsewhere
    with django_assert_num_queries(1):
        state = selectors.game_state(game=game)
    assert _same(state, state_at(game, game.events.count()))


def test_a_row_that_names_the_known_position_needs_no_read_of_the_events(
    table: Table, trio: list[User], django_assert_num_queries
) -> None:
    game = services.game_start(table=table, players=trio, seed=14)
    play_out(game, seed=14, stop_before_end=True)
    game.refresh_from_db()  # the row as the last move left it
    with django_assert_num_queries(0):
        state = selectors.game_state(game=game)
    assert _same(state, state_at(game, game.events.count()))

    # A row naming a position this process never kept: the events are read and checked.
    game.position_id = uuid.uuid4()
    with django_assert_num_queries(1):
        assert _same(selectors.game_state(game=game), state)


def test_what_a_reader_keeps_is_its_own_copy_of_the_row(table: Table, trio: list[User]) -> None:
    """A caller that goes on changing its game (here: reading it again after a move made
    elsewhere) does not change what the process keeps."""
    game = services.game_start(table=table, players=trio, seed=15)
    positions.clear()
    before = selectors.game_state(game=game)
    move = before.legal_moves()[0]
    other = Game.objects.get(pk=game.pk)
    kept = positions.known(table.pk)
    services.game_act(game=other, seat=before.to_move, action=dict(move.to_json()))
    positions.remember(kept)  # as in a process that did not make that move
    game.refresh_from_db()
    assert selectors.game_state_kept(game=game) is None
    assert selectors.game_state(game=game).log_length == 1


def test_a_position_from_a_rolled_back_move_is_not_used(table: Table, trio: list[User]) -> None:
    game = services.game_start(table=table, players=trio, seed=13)
    before = selectors.game_state(game=game)
    move = before.legal_moves()[0]
    with pytest.raises(RolledBack), transaction.atomic():
        services.game_act(game=game, seat=before.to_move, action=dict(move.to_json()))
        # The writer kept the position after its move, which the rollback undoes.
        assert positions.known(table.pk).state.log_length == 1
        raise RolledBack
    assert not game.events.exists()
    assert selectors.game_state(game=Game.objects.get(pk=game.pk)).log_length == 0

    # Another move stored in place of the undone one, under the same number: the kept
    # position's event is not found unchanged, so the game is replayed from the deal.
    other = next(m for m in before.legal_moves() if m != move)
    with transaction.atomic():
        services.game_act(game=game, seat=before.to_move, action=dict(move.to_json()))
        transaction.set_rollback(True)
    services.game_act(game=game, seat=before.to_move, action=dict(other.to_json()))
    assert _same(selectors.game_state(game=game), state_at(game, 1))
    assert game.events.get().action["play"] == dict(other.to_json())["play"]


def test_a_change_of_a_seat_during_a_game_gives_the_row_a_new_position_id(
    table: Table, trio: list[User]
) -> None:
    """So what a process keeps of the table (the seats among it) is read again, and the
    position is still found from the kept one."""
    for position, user in enumerate(trio):
        table.seats.create(position=position, user=user)
    game = services.game_start(table=table, players=trio, seed=16)
    seat = Seat.objects.get(table=table, user=trio[0])
    ids = [Game.objects.get(pk=game.pk).position_id]
    services.table_set_auto_play(user=trio[0], table=table, on=True)
    ids.append(Game.objects.get(pk=game.pk).position_id)
    services.table_leave(user=trio[1], table=table)
    ids.append(Game.objects.get(pk=game.pk).position_id)
    services.table_leave_cancel(user=trio[1], table=table)
    ids.append(Game.objects.get(pk=game.pk).position_id)
    assert len(set(ids)) == 4
    row = Game.objects.get(pk=game.pk)
    assert selectors.game_state_kept(game=row) is None
    assert selectors.game_state(game=row).log_length == 0
    seat.refresh_from_db()
    assert seat.auto_play


def test_the_cache_forgets_the_least_recently_used_tables() -> None:
    cache: LruCache[str] = LruCache(capacity=2)
    for key in ("a", "b"):
        cache.put(key, key)
    assert cache.get("a") is not None  # "a" is now the most recently used
    cache.put("c", "c")
    assert cache.get("b") is None
    assert cache.get("a") is not None and cache.get("c") is not None
    assert len(cache) == 2
    # An entry replaced only while it is still the one the replacer read.
    assert cache.replace("a", "a", "a2") and cache.get("a") == "a2"
    assert not cache.replace("a", "a", "a3") and cache.get("a") == "a2"
