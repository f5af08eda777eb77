"""The sound each change makes at the table: named by the game's presentation from its newest
action, the same for every viewer, except the end of a game, which each player hears as a win or
a loss; and heard once, however many frames show the same change."""

from __future__ import annotations

import re

import pytest

from accounts.models import User
from games import services
from games.frames import render_frame_and_version
from games.models import Table
from games.presentation import presentation_for
from games.rules.doudizhu import GameState as DoudizhuState
from games.rules.gandengyan import GameState as GandengyanState
from games.selectors import game_state
from tests.games.helpers import make_room, play_out, start_from_position
from tests.games.rules.doudizhu.helpers import fresh, run, to_play

SOUND = re.compile(r'data-sound="([a-z]*)" data-sound-at="([0-9.]*)"')


def sounds(state: object, presentation: str, *steps: tuple[int, str]) -> list[str]:
    heard = []
    for seat, text in steps:
        state = state.apply_text(seat, text)  # type: ignore[attr-defined]
        heard.append(presentation_for(presentation).sound(state))
    return heard


def test_a_gandengyan_play_pass_bomb_and_rocket_each_sound_their_own() -> None:
    state = GandengyanState.from_position(["3s 5h 9c 9d", "4s 4h 4d 7c", "BJ RJ 8s"], "Ts Js", 0)
    assert presentation_for("gandengyan").sound(state) == "deal"
    assert sounds(state, "gandengyan", (0, "3s"), (1, "4s 4h 4d"), (2, "BJ RJ"), (0, "pass")) == [
        "play",
        "bomb",
        "rocket",
        "pass",
    ]


def test_a_doudizhu_deal_bid_play_pass_bomb_and_rocket_each_sound_their_own() -> None:
    ddz = presentation_for("doudizhu")
    state = fresh(0)
    assert ddz.sound(state) == "deal"
    assert ddz.sound(run(state, (0, "deal 8"))) == "deal"
    assert ddz.sound(run(state, (0, "deal 17"), (0, "call"))) == "bid"
    state = to_play(0)  # the landlord holds the bottom: Ac BJ RJ
    assert isinstance(state, DoudizhuState) and ddz.sound(state) == "bid"  # the last 不加倍
    steps = [(0, "3s"), (1, "pass"), (2, "pass"), (0, "2s 2h 2d 2c"), (1, "pass"), (2, "pass")]
    assert sounds(state, "doudizhu", *steps, (0, "BJ RJ")) == [
        "play",
        "pass",
        "pass",
        "bomb",
        "pass",
        "pass",
        "rocket",
    ]


@pytest.mark.django_db
def test_the_end_sounds_a_win_or_a_loss_to_each_player_once(trio: list[User]) -> None:
    table = Table.objects.create(room=make_room())
    for position, user in enumerate(trio):
        table.seats.create(position=position, user=user)
    game = services.game_start(table=table, players=trio, seed=11)

    def heard(seat: int | None) -> tuple[str, str]:
        frame, _version = render_frame_and_version(table=table, seat=seat)
        found = SOUND.search(frame)
        assert found is not None
        return found.group(1), found.group(2)

    assert heard(0) == ("deal", f"{game.pk}.0")
    play_out(game, seed=3)
    state = game_state(game=game)
    winner = state.winner
    at = f"{game.pk}.{state.log_length}"
    for seat in range(3):
        assert heard(seat) == ("win" if seat == winner else "lose", at)
    # A spectator hears the last action, not anybody's result.
    assert heard(None)[0] in ("play", "bomb", "rocket") and heard(None)[1] == at
    # Players pressing 再来一局 change the table but not the game: the same change, not heard again.
    services.table_play_again(user=trio[(winner + 1) % 3], table=table)
    assert heard(winner) == ("win", at)


@pytest.mark.django_db
def test_a_spring_is_announced_above_the_settlement(trio: list[User]) -> None:
    table = Table.objects.create(room=make_room())
    for position, user in enumerate(trio):
        table.seats.create(position=position, user=user)
    start_from_position(
        table=table, players=trio, hands=["3s 4h 5d 6c 7s", "9h Jd", "Th Qd"], stock="Ks", dealer=0
    )
    frame, version = render_frame_and_version(table=table, seat=1)
    assert "spring-banner" not in frame
    services.table_game_act(
        user=trio[0], table=table, action={"play": "3s 4h 5d 6c 7s"}, version=version
    )
    table.refresh_from_db()
    frame, _version = render_frame_and_version(table=table, seat=1)
    assert '<p class="spring-banner" data-spring="spring">春天!</p>' in frame
    assert SOUND.search(frame).group(1) == "lose"  # type: ignore[union-attr]
