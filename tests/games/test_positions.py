"""The position each process keeps per game: a reader applies only the events stored since, and a
position the database does not confirm is never used."""

from __future__ import annotations

import uuid

import pytest
from django.db import transaction

from accounts.models import User
from games import selectors, services
from games.lru import LruCache
from games.models import Game, GameEvent, Seat, Table
from games.positions import KnownPosition, positions
from games.rules import GameState
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
    for count in (0, 1, 5, len(events) // 2, len(events)):
        positions.clear()
        # A position known at `count` events, then a read that must catch up with the rest.
        selectors.game_state(game=game)  # fills the cache at the end
        known = state_at(game, count)
        last = None
        if count:
            row = GameEvent.objects.get(game=game, number=count)
            last = (row.pk, row.seat, row.action)
        positions.put(
            selectors.states._position_key(game), KnownPosition(state=known, last_event=last)
        )
        assert _same(selectors.game_state(game=game), state_at(game, len(events)))


def test_a_reader_with_a_known_position_reads_only_the_events_after_it(
    table: Table, trio: list[User], django_assert_num_queries
) -> None:
    game = services.game_start(table=table, players=trio, seed=12)
    play_out(game, seed=12, stop_before_end=True)
    selectors.game_state(game=game)
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


def test_a_position_from_a_rolled_back_move_is_not_used(table: Table, trio: list[User]) -> None:
    game = services.game_start(table=table, players=trio, seed=13)
    before = selectors.game_state(game=game)
    move = before.legal_moves()[0]
    with pytest.raises(RolledBack), transaction.atomic():
        services.game_act(game=game, seat=before.to_move, action=dict(move.to_json()))
        # The writer kept the position after its move, which the rollback undoes.
        assert positions.get(selectors.states._position_key(game)).state.log_length == 1
        raise RolledBack
    assert not game.events.exists()
    assert selectors.game_state(game=game).log_length == 0

    # Another move stored in place of the undone one, under the same number: the kept
    # position's event is not found unchanged, so the game is replayed from the deal.
    other = next(m for m in before.legal_moves() if m != move)
    with transaction.atomic():
        services.game_act(game=game, seat=before.to_move, action=dict(move.to_json()))
        transaction.set_rollback(True)
    services.game_act(game=game, seat=before.to_move, action=dict(other.to_json()))
    assert _same(selectors.game_state(game=game), state_at(game, 1))
    assert game.events.get().action["play"] == dict(other.to_json())["play"]


def test_the_cache_forgets_the_least_recently_used_games() -> None:
    cache: LruCache[KnownPosition] = LruCache(capacity=2)
    state = GameState.from_position(["3s", "4s", "5s"], "", 0)
    for key in ("a", "b"):
        cache.put(key, KnownPosition(state=state, last_event=None))
    assert cache.get("a") is not None  # "a" is now the most recently used
    cache.put("c", KnownPosition(state=state, last_event=None))
    assert cache.get("b") is None
    assert cache.get("a") is not None and cache.get("c") is not None
    assert len(cache) == 2


def test_a_change_of_a_seat_during_a_game_gives_the_row_a_new_position_id(
    table: Table, trio: list[User]
) -> None:
    """So what a process keeps of the table (the seats among it) is not taken for the table as
    it is now, and the position is still found from the kept one."""
    for position, user in enumerate(trio):
        table.seats.create(position=position, user=user)
    game = services.game_start(table=table, players=trio, seed=16)
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
    assert Seat.objects.get(table=table, user=trio[0]).auto_play
