"""Bots at a table: they move through ``game_act`` like people, from their own seat's view only,
and a game of one player and two bots runs to its settlement."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings

from accounts.models import User
from games import frames, selectors, services
from games.models import Game, GameEvent, Table
from games.rules.gandengyan import ENGINE, Move
from games.rules.gandengyan.moves import move_from_json
from tests.games.helpers import game_ledger

pytestmark = pytest.mark.django_db

CARD_TOKEN = re.compile(r"\b(?:[2-9TJQKA][shdc]|BJ|RJ)\b")


def table_with_bots(room: Any, user: User) -> tuple[Table, Game]:
    """``user`` at seat 0 and two bots, the game started."""
    table, _ = services.table_play(user=user, room=room)
    assert table.waiting_since is not None
    later = table.waiting_since + timedelta(seconds=settings.BOT_FILL_SECONDS)
    assert services.table_fill_with_bots(table=table, now=later) == 2
    return table, Game.objects.get(table=table, status=Game.Status.PLAYING)


def human_turn(game: Game, rng: random.Random) -> GameEvent:
    state = selectors.game_state(game=game)
    assert state.to_move == 0
    move = rng.choice(state.legal_moves())
    return services.game_act(game=game, seat=0, action=dict(move.to_json()))


def test_a_bot_moves_only_on_its_turn_and_through_game_act(room: Any, trio: list[User]) -> None:
    table, game = table_with_bots(room, trio[0])
    rng = random.Random(11)
    checked_bot_moves = 0
    while game.status == Game.Status.PLAYING and checked_bot_moves < 12:
        before = selectors.game_state(game=game)
        count = GameEvent.objects.filter(game=game).count()
        if before.to_move == 0:
            assert services.bot_take_turn(game=game) is None
            assert GameEvent.objects.filter(game=game).count() == count
            human_turn(game, rng)
            continue
        event = services.bot_take_turn(game=game)
        assert event is not None
        stored = GameEvent.objects.get(pk=event.pk)
        assert stored.number == count + 1 and stored.seat == before.to_move
        move = before.resolve(stored.seat, move_from_json(stored.action))
        assert move in before.legal_moves()
        # The stored events replay in the engine.
        assert selectors.game_state(game=game).log_length == count + 1
        checked_bot_moves += 1
    assert checked_bot_moves > 0


def test_one_player_and_two_bots_play_a_game_to_its_settlement(room: Any, trio: list[User]) -> None:
    zhao = trio[0]
    table, game = table_with_bots(room, zhao)
    rng = random.Random(5)
    for _ in range(500):
        services.bot_take_turns(game=game)
        if game.status != Game.Status.PLAYING:
            break
        human_turn(game, rng)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.settled_at is not None
    assert game.winner is not None and game.result is not None
    assert sum(entry.amount for entry in game_ledger(game)) == 0
    state = selectors.game_state(game=game)
    assert state.is_terminal and state.winner == game.winner

    assert services.bot_take_turn(game=game) is None
    assert services.bot_take_turns(game=game) == []
    table.refresh_from_db()
    assert table.status == Table.Status.WAITING
    view = frames.table_view(table=table, seat=0)
    assert view["game"]["over"] and view["game"]["seed"] == game.seed
    assert [row["coins"] for row in view["game"]["settlement"]["seats"]] == game.result["coins"]

    # Bots are always ready: the player's "play again" starts the next game, the winner dealing.
    second = services.table_play_again(user=zhao, table=table)
    assert second is not None and second.number == 2 and second.dealer == game.winner
    assert [p.is_bot for p in second.players.order_by("seat")] == [False, True, True]


def test_bot_turns_stop_at_a_person_and_at_the_limit(room: Any, trio: list[User]) -> None:
    _, game = table_with_bots(room, trio[0])
    rng = random.Random(2)
    while selectors.game_state(game=game).to_move == 0:
        human_turn(game, rng)
    events = services.bot_take_turns(game=game, limit=1)
    assert len(events) == 1
    events += services.bot_take_turns(game=game)
    state = selectors.game_state(game=game)
    game.refresh_from_db()
    assert state.is_terminal or state.to_move == 0
    assert [event.number for event in events] == list(
        range(events[0].number, events[0].number + len(events))
    )


class SpyPolicy:
    """Records what the bot is shown, and plays its first legal move."""

    name = "spy"
    shown: list[tuple[dict[str, Any], tuple[Move, ...]]] = []

    def choose(self, state_view: dict[str, Any], legal: Sequence[Move]) -> Move:
        SpyPolicy.shown.append((state_view, tuple(legal)))
        return legal[0]


# The spy notes what it is shown in this process (a thinking process would be shown the same:
# tests/games/test_thinking.py).
@override_settings(THINKING_PROCESSES=0)
def test_a_bot_is_shown_only_its_own_seat_view(
    room: Any, trio: list[User], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every level's bot (the engine's bot_policy) is shown the same.
    monkeypatch.setattr(ENGINE, "bot_policy", lambda *args, **kwargs: SpyPolicy())
    SpyPolicy.shown = []
    _, game = table_with_bots(room, trio[0])
    rng = random.Random(4)
    for _ in range(20):
        state = selectors.game_state(game=game)
        if state.is_terminal:
            break
        if state.to_move == 0:
            human_turn(game, rng)
            continue
        seat = state.to_move
        count = len(SpyPolicy.shown)
        assert services.bot_take_turn(game=game) is not None
        assert len(SpyPolicy.shown) == count + 1
        view, legal = SpyPolicy.shown[-1]
        assert view == state.view_for(seat)
        assert list(legal) == state.legal_moves()
        hidden = {str(card) for card in state.stock_cards()}
        for other in range(state.players):
            if other != seat:
                hidden |= {str(card) for card in state.hand(other)}
        assert not set(CARD_TOKEN.findall(json.dumps(view))) & hidden
    assert SpyPolicy.shown
