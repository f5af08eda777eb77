"""The table's frames: kept parts render the same HTML as a render from scratch, and the frames
sent with a change are each player's own."""

from __future__ import annotations

import random

import pytest
from django.utils import translation

import games.frames.render
from accounts.models import User
from games import services
from games.frames import render_frame_for_user, render_player_frames
from games.lru import LruCache
from games.models import Game, Table
from games.selectors import game_state, table_rows

pytestmark = pytest.mark.django_db


def _seated(table: Table, trio: list[User]) -> Table:
    for position, user in enumerate(trio):
        table.seats.create(position=position, user=user)
    return Table.objects.select_related("room").get(pk=table.pk)


def _frames(table: Table) -> dict[str, str]:
    rows = table_rows(table=table)
    state = None if rows.game is None else game_state(game=rows.game)
    return render_player_frames(table=table, rows=rows, state=state)["frames"]


def _from_scratch(table: Table, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    with monkeypatch.context() as patch:
        patch.setattr(games.frames.render, "_seats_html", LruCache(capacity=0))  # keeps nothing
        return _frames(table)


def test_frames_with_kept_seats_are_the_frames_rendered_from_scratch(
    table: Table, trio: list[User], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _seated(table, trio)
    game = services.game_start(table=table, players=trio, seed=21)
    rng = random.Random(21)
    moves = 0
    while game.status == Game.Status.PLAYING:
        # Most seats as earlier moves and the other viewers left them.
        assert _frames(table) == _from_scratch(table, monkeypatch)
        state = game_state(game=game)
        move = rng.choice(state.legal_moves())
        services.game_act(game=game, seat=state.to_move, action=dict(move.to_json()))
        game.refresh_from_db()
        moves += 1
    assert moves > 10
    assert _frames(table) == _from_scratch(table, monkeypatch)  # the settlement


def test_the_frames_of_a_change_are_keyed_by_player_and_each_is_that_players_own(
    table: Table, trio: list[User]
) -> None:
    table = _seated(table, trio)
    services.game_start(table=table, players=trio, seed=22)
    frames = _frames(table)
    assert set(frames) == {str(user.pk) for user in trio}
    for user in trio:
        with translation.override("zh-hans"):
            own, _version = render_frame_for_user(user=user, table_id=table.pk)
        assert frames[str(user.pk)] == own
