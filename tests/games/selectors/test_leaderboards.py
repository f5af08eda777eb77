"""The leaderboards: games played to the end through the services, people only, this week's
coins and the win rates, each board's order and the viewer's own rank."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings

from accounts.models import User
from accounts.services import house_wallet
from games import services
from games.models import Game, Room, Table
from games.selectors import Board, LeaderboardRow, leaderboard, player_game_stats, week_start
from tests.games.helpers import (
    EXAMPLES,
    act_all,
    doudizhu_room,
    make_player,
    play_doudizhu,
    start_from_position,
)

pytestmark = pytest.mark.django_db

SHANGHAI = ZoneInfo("Asia/Shanghai")
# A Wednesday: its week began on Monday 2026-03-02 at 00:00 in Shanghai.
WEDNESDAY = datetime(2026, 3, 4, 12, 0, tzinfo=SHANGHAI)
MONDAY = datetime(2026, 3, 2, 0, 0, tzinfo=SHANGHAI)

# The rules' first worked example at base 400: seat 0 wins 3,200, seat 1 pays 1,200, seat 2
# pays 2,000.
EXAMPLE = "no bomb, no spring"
WIN, SMALL_LOSS, BIG_LOSS = EXAMPLES[EXAMPLE]["payments"]


def won_game(room: Room, players: list[User | None], *, settled_at: datetime = WEDNESDAY) -> Game:
    """A game of 干瞪眼 played to the end: ``players[0]`` wins, ``players[1]`` loses the least,
    ``players[2]`` the most; its settlement is then dated ``settled_at``."""
    example = EXAMPLES[EXAMPLE]
    table = Table.objects.create(room=room)
    game = start_from_position(
        table=table, players=players, hands=example["hands"], stock="", dealer=example["dealer"]
    )
    act_all(game, example["actions"])
    game.refresh_from_db()
    assert game.settled_at is not None
    Game.objects.filter(pk=game.pk).update(settled_at=settled_at)
    return game


def names(rows: list[LeaderboardRow]) -> list[str]:
    return [row.username for row in rows]


def test_week_starts_on_monday_midnight_in_shanghai() -> None:
    assert week_start(WEDNESDAY) == MONDAY
    assert week_start(MONDAY) == MONDAY
    sunday_night = MONDAY - timedelta(seconds=1)
    assert week_start(sunday_night) == MONDAY - timedelta(days=7)
    # Monday 00:30 in Shanghai is still Sunday in UTC: the week is Shanghai's.
    assert week_start(datetime(2026, 3, 1, 16, 30, tzinfo=ZoneInfo("UTC"))) == MONDAY


def test_coins_board_counts_the_games_settled_this_week(room: Room, trio: list[User]) -> None:
    zhao, qian, sun = trio
    won_game(room, [zhao, qian, sun], settled_at=MONDAY)
    won_game(room, [zhao, qian, sun], settled_at=WEDNESDAY)
    # Last week's, one second before Monday: not counted.
    won_game(room, [sun, qian, zhao], settled_at=MONDAY - timedelta(seconds=1))

    board = leaderboard(game="gandengyan", board=Board.COINS, viewer=AnonymousUser(), now=WEDNESDAY)

    assert [(row.username, row.net, row.games) for row in board.rows] == [
        ("zhao", 2 * WIN, 2),
        ("qian", 2 * SMALL_LOSS, 2),
        ("sun", 2 * BIG_LOSS, 2),
    ]
    assert [row.rank for row in board.rows] == [1, 2, 3]
    assert board.since == MONDAY

    # Next Monday the board starts again from nothing.
    next_week = leaderboard(
        game="gandengyan",
        board=Board.COINS,
        viewer=AnonymousUser(),
        now=MONDAY + timedelta(days=7),
    )
    assert next_week.rows == []


def test_bots_the_house_and_inactive_players_are_left_out(room: Room, trio: list[User]) -> None:
    zhao, qian, sun = trio
    won_game(room, [None, zhao, None])  # two bots, playing for the house
    won_game(room, [qian, sun, zhao])
    User.objects.filter(pk=sun.pk).update(is_active=False)

    board = leaderboard(game="gandengyan", board=Board.COINS, viewer=AnonymousUser(), now=WEDNESDAY)

    assert names(board.rows) == ["qian", "zhao"]
    assert house_wallet().user.username not in names(board.rows)
    assert board.rows[1].net == SMALL_LOSS + BIG_LOSS and board.rows[1].games == 2


def test_each_game_has_its_own_boards(room: Room, trio: list[User]) -> None:
    zhao, qian, sun = trio
    won_game(room, [zhao, qian, sun])
    ddz = Table.objects.create(room=doudizhu_room())
    game = services.game_start(table=ddz, players=[make_player("zhou"), qian, sun], seed=7)
    play_doudizhu(game)
    Game.objects.filter(pk=game.pk).update(settled_at=WEDNESDAY)

    gandengyan = leaderboard(
        game="gandengyan", board=Board.COINS, viewer=AnonymousUser(), now=WEDNESDAY
    )
    doudizhu = leaderboard(
        game="doudizhu", board=Board.COINS, viewer=AnonymousUser(), now=WEDNESDAY
    )

    assert sorted(names(gandengyan.rows)) == ["qian", "sun", "zhao"]
    assert sorted(names(doudizhu.rows)) == ["qian", "sun", "zhou"]
    assert all(row.games == 1 for row in doudizhu.rows)
    # 斗地主's payments sum to zero, and the winners (the landlord, or both farmers) won.
    assert sum(row.net for row in doudizhu.rows) == 0
    assert {row.wins for row in doudizhu.rows} == {0, 1}
    with pytest.raises(LookupError):
        leaderboard(game="chess", board=Board.COINS, viewer=AnonymousUser())


@override_settings(LEADERBOARD_MIN_GAMES=3)
def test_win_rate_needs_the_minimum_of_games_and_breaks_ties(room: Room) -> None:
    a, b, c, d = (make_player(name) for name in ("anna", "bo", "chen", "dai"))
    won_game(room, [a, b, c])
    won_game(room, [a, c, b])
    won_game(room, [b, a, d])
    won_game(room, [b, d, a], settled_at=MONDAY - timedelta(days=30))  # any week counts
    won_game(room, [d, b, None])
    won_game(room, [d, None, None])

    board = leaderboard(game="gandengyan", board=Board.WIN_RATE, viewer=AnonymousUser())

    # anna and dai both won 2 of 4: the tie goes by name; bo won 2 of 5; chen played only 2.
    assert [(row.username, row.wins, row.games) for row in board.rows] == [
        ("anna", 2, 4),
        ("dai", 2, 4),
        ("bo", 2, 5),
    ]
    assert board.min_games == 3


@override_settings(LEADERBOARD_MIN_GAMES=2)
def test_win_rate_ties_go_to_more_games_then_to_the_name(room: Room) -> None:
    a, b, c = (make_player(name) for name in ("ann", "bea", "cai"))
    x, y, z = (make_player(name) for name in ("x1", "x2", "x3"))
    # ann wins 1 of 2; bea 2 of 4; cai 1 of 2: all 50%.
    won_game(room, [a, x, y])
    won_game(room, [x, a, z])
    won_game(room, [b, x, y])
    won_game(room, [b, y, z])
    won_game(room, [x, b, z])
    won_game(room, [y, b, x])
    won_game(room, [c, z, y])
    won_game(room, [z, c, x])

    board = leaderboard(game="gandengyan", board=Board.WIN_RATE, viewer=AnonymousUser())
    half = [row.username for row in board.rows if row.wins * 2 == row.games]

    assert half == ["bea", "ann", "cai"]


def test_nickname_is_the_name_shown_and_sorted(room: Room, trio: list[User]) -> None:
    zhao, qian, sun = trio
    User.objects.filter(pk=sun.pk).update(nickname="雀神")
    won_game(room, [zhao, qian, sun])

    board = leaderboard(game="gandengyan", board=Board.COINS, viewer=AnonymousUser(), now=WEDNESDAY)

    assert [row.display_name for row in board.rows] == ["zhao", "qian", "雀神"]


def test_own_rank_is_given_outside_the_top(room: Room) -> None:
    players = [make_player(f"p{number:02}") for number in range(7)]
    me = players[-1]
    # p00 wins 6,400 in two games; p01, p02 and p03 3,200 in one (by name among them); p04
    # loses 3,600, I (p06) 6,000 and p05 6,400.
    won_game(room, [players[0], players[4], me])
    won_game(room, [players[0], players[5], me])
    won_game(room, [players[1], players[4], players[5]])
    won_game(room, [players[2], players[5], me])
    won_game(room, [players[3], players[4], players[5]])

    board = leaderboard(game="gandengyan", board=Board.COINS, viewer=me, now=WEDNESDAY, size=3)

    assert names(board.rows) == ["p00", "p01", "p02"]
    assert board.own is not None and not board.own_in_rows
    assert board.own.username == "p06"
    assert board.own.net == 3 * BIG_LOSS and board.own.games == 3
    assert board.own.rank == 6
    full = leaderboard(game="gandengyan", board=Board.COINS, viewer=me, now=WEDNESDAY)
    assert names(full.rows) == ["p00", "p01", "p02", "p03", "p04", "p06", "p05"]
    assert full.own == full.rows[5] == board.own and full.own_in_rows

    # A player with no game this week has no rank; nor has a visitor.
    idle = make_player("idle")
    assert leaderboard(game="gandengyan", board=Board.COINS, viewer=idle, now=WEDNESDAY).own is None
    visitor = leaderboard(
        game="gandengyan", board=Board.COINS, viewer=AnonymousUser(), now=WEDNESDAY
    )
    assert visitor.own is None and len(visitor.rows) == 7


@override_settings(LEADERBOARD_MIN_GAMES=2)
def test_own_win_rate_rank_counts_the_players_ahead_in_the_boards_order(room: Room) -> None:
    a, b, me, x, y = (make_player(name) for name in ("a", "b", "me", "x", "y"))
    # a: 2/2; b: 1/2; me: 1/2 (ties b on rate and games, after it by name); x, y: 0 wins.
    won_game(room, [a, x, y])
    won_game(room, [a, x, y])
    won_game(room, [b, x, me])
    won_game(room, [me, b, y])

    full = leaderboard(game="gandengyan", board=Board.WIN_RATE, viewer=me)
    top = leaderboard(game="gandengyan", board=Board.WIN_RATE, viewer=me, size=1)

    assert names(full.rows) == ["a", "b", "me", "x", "y"]
    assert top.own is not None and top.own.rank == 3 and not top.own_in_rows
    assert top.own.win_rate == 0.5


def test_one_query_per_board_for_a_visitor(room: Room, trio: list[User]) -> None:
    won_game(room, list(trio))
    with CaptureQueriesContext(connection) as queries:
        leaderboard(game="gandengyan", board=Board.COINS, viewer=AnonymousUser(), now=WEDNESDAY)
        leaderboard(game="gandengyan", board=Board.WIN_RATE, viewer=AnonymousUser())
    assert len(queries) == 2


def test_player_stats_by_game(room: Room, trio: list[User]) -> None:
    zhao, qian, sun = trio
    won_game(room, [zhao, qian, sun])
    won_game(room, [qian, zhao, sun])
    won_game(room, [zhao, qian, sun])

    stats = {stat.game: stat for stat in player_game_stats(user=zhao)}

    assert list(stats) == ["gandengyan", "doudizhu", "shanghai"]
    assert (stats["gandengyan"].games, stats["gandengyan"].wins) == (3, 2)
    assert stats["gandengyan"].win_percent == "66.7%"
    assert (stats["doudizhu"].games, stats["doudizhu"].wins) == (0, 0)
    assert (stats["shanghai"].games, stats["shanghai"].wins) == (0, 0)
