"""Daily rewards: the check-in's streak and the daily tasks, read from games really played."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from django.conf import settings
from django.db import IntegrityError, transaction
from django.test import override_settings
from django.utils import timezone, translation

from accounts.models import LedgerEntry, LedgerReason, RewardClaim, RewardKind, User, Wallet
from accounts.rewards import (
    RewardAlreadyClaimed,
    RewardRefused,
    check_in_claim,
    daily_task_claim,
)
from accounts.selectors import check_in_coins, daily_task_progress, reward_day, rewards_status
from accounts.services import house_wallet
from games import services
from games.models import Game, GameEvent, GamePlayer, Table
from games.presentation import presentation_for
from games.rules.doudizhu.moves import Play as DoudizhuPlay
from tests.accounts.conftest import Clock
from tests.games import helpers

pytestmark = pytest.mark.django_db

COINS = (100, 150, 200, 250, 300, 350, 500)
TASKS = {
    "play_games": {"goal": 3, "coins": 300},
    "win_game": {"goal": 1, "coins": 300},
    "use_bomb": {"goal": 1, "coins": 200},
}


@pytest.fixture(autouse=True)
def _reward_amounts() -> object:
    """The amounts the tests count on, whatever the environment sets; refusals in English."""
    with override_settings(CHECK_IN_COINS=COINS, DAILY_TASKS=TASKS), translation.override("en"):
        yield


def balance(user: User) -> int:
    return Wallet.objects.get(user=user).balance


def ledger_count(user: User) -> int:
    return LedgerEntry.objects.filter(wallet__user=user).count()


def play_example(name: str, players: list[User | None], *, table: Table | None = None) -> Game:
    """One of the rules' worked examples of 干瞪眼, played through the services to its end."""
    example = helpers.EXAMPLES[name]
    table = table or Table.objects.create(room=helpers.make_room(code=f"t{Table.objects.count()}"))
    game = helpers.start_from_position(
        table=table,
        players=players,
        hands=example["hands"],
        stock="",
        dealer=example["dealer"],
    )
    helpers.act_all(game, example["actions"])
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


# The check-in --------------------------------------------------------------------------------


def test_the_streak_rises_day_by_day(player: User, clock: Clock) -> None:
    start = balance(player)
    paid = []
    for day in range(1, 4):
        clock.shanghai(2026, 3, day, 9, 30)
        claim = check_in_claim(user=player)
        paid.append(claim.ledger_entry.amount)
        assert claim.streak == day
        assert claim.ledger_entry.reason == LedgerReason.CHECK_IN
    assert paid == [100, 150, 200]
    assert balance(player) == start + 450
    status = rewards_status(user=player)
    assert status.check_in.checked_today and status.check_in.streak == 3
    assert status.check_in.today_coins == 200 and status.check_in.tomorrow_coins == 250
    assert [dot.checked for dot in status.check_in.dots] == [True] * 3 + [False] * 4
    assert [dot.is_today for dot in status.check_in.dots].index(True) == 2


def test_a_missed_day_starts_the_streak_again(player: User, clock: Clock) -> None:
    for day in (1, 2, 3):
        clock.shanghai(2026, 3, day, 12)
        check_in_claim(user=player)
    clock.shanghai(2026, 3, 5, 12)  # the 4th was missed
    before = rewards_status(user=player).check_in
    assert not before.checked_today and before.streak == 1 and before.today_coins == 100
    assert [dot.checked for dot in before.dots] == [False] * 7
    claim = check_in_claim(user=player)
    assert (claim.streak, claim.ledger_entry.amount) == (1, 100)


def test_the_coins_stop_rising_at_the_last_day(player: User, clock: Clock) -> None:
    amounts = []
    for day in range(1, 11):
        clock.shanghai(2026, 3, day, 8)
        amounts.append(check_in_claim(user=player).ledger_entry.amount)
    assert amounts == [*COINS, 500, 500, 500]
    status = rewards_status(user=player).check_in
    assert status.streak == 10 and status.tomorrow_coins == 500
    assert all(dot.checked for dot in status.dots) and status.dots[-1].is_today
    assert check_in_coins(1) == 100 and check_in_coins(7) == check_in_coins(70) == 500


def test_days_are_calendar_days_in_the_time_zone(player: User, clock: Clock) -> None:
    assert settings.TIME_ZONE == "Asia/Shanghai"
    # 23:59 and 00:01 in Shanghai are two days, though the same UTC day (15:59, 16:01).
    clock.set(datetime(2026, 3, 1, 15, 59, tzinfo=UTC))
    check_in_claim(user=player)
    clock.set(datetime(2026, 3, 1, 16, 1, tzinfo=UTC))
    assert reward_day(datetime(2026, 3, 1, 16, 1, tzinfo=UTC)).day == 2
    assert check_in_claim(user=player).streak == 2


def test_checking_in_twice_a_day_pays_once_and_changes_nothing(player: User, clock: Clock) -> None:
    clock.shanghai(2026, 3, 1, 8)
    check_in_claim(user=player)
    before = (balance(player), ledger_count(player), RewardClaim.objects.count())
    clock.shanghai(2026, 3, 1, 23, 59)
    with pytest.raises(RewardAlreadyClaimed, match="already checked in"):
        check_in_claim(user=player)
    assert (balance(player), ledger_count(player), RewardClaim.objects.count()) == before


def test_the_database_allows_one_reward_of_a_kind_a_day(player: User, clock: Clock) -> None:
    clock.shanghai(2026, 3, 1, 8)
    claim = check_in_claim(user=player)
    entry = LedgerEntry.objects.create(
        wallet=Wallet.objects.get(user=player),
        amount=1,
        balance_after=balance(player) + 1,
        reason=LedgerReason.CHECK_IN,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        RewardClaim.objects.create(
            user=player, day=claim.day, kind=RewardKind.CHECK_IN, streak=1, ledger_entry=entry
        )


def test_the_house_and_players_without_a_wallet_get_nothing(db: None) -> None:
    house = house_wallet()
    before = house.balance
    with pytest.raises(RewardRefused):
        check_in_claim(user=house.user)
    with pytest.raises(RewardRefused):
        daily_task_claim(user=house.user, kind="play_games")
    house.refresh_from_db()
    assert house.balance == before
    nobody = User.objects.create_user(username="nowallet")
    with pytest.raises(RewardRefused, match="no wallet"):
        check_in_claim(user=nobody)
    assert not RewardClaim.objects.exists()


# The daily tasks -----------------------------------------------------------------------------


def test_tasks_count_the_games_finished_today(
    make_player: Callable[..., User], clock: Clock
) -> None:
    me, other, third = (make_player(balance=100_000) for _ in range(3))
    clock.shanghai(2026, 3, 1, 20)
    play_example("no bomb, no spring", [other, me, third])  # seat 1 loses, no bomb
    assert daily_task_progress(user=me, day=reward_day(timezone.now())) == {
        "play_games": 1,
        "win_game": 0,
        "use_bomb": 0,
    }
    play_example("one soft bomb, A is spring", [other, me, None])  # seat 1 bombs and wins
    play_example("soft + hard bomb", [None, other, me])  # seat 2: a hard bomb and the win
    play_example("no bomb, no spring", [me, other, third])  # a fourth: still 3 of 3
    progress = daily_task_progress(user=me, day=reward_day(timezone.now()))
    assert progress == {"play_games": 3, "win_game": 1, "use_bomb": 1}
    # The opponent's soft bomb in the third game is theirs.
    assert daily_task_progress(user=other, day=reward_day(timezone.now()))["use_bomb"] == 1
    assert daily_task_progress(user=third, day=reward_day(timezone.now()))["use_bomb"] == 0

    # The next day starts from nothing.
    clock.shanghai(2026, 3, 2, 0, 5)
    assert daily_task_progress(user=me, day=reward_day(timezone.now())) == {
        "play_games": 0,
        "win_game": 0,
        "use_bomb": 0,
    }


def test_a_game_still_played_is_not_counted(make_player: Callable[..., User], clock: Clock) -> None:
    me, other = make_player(balance=100_000), make_player(balance=100_000)
    clock.shanghai(2026, 3, 1, 10)
    example = helpers.EXAMPLES["one soft bomb, A is spring"]
    table = Table.objects.create(room=helpers.make_room())
    game = helpers.start_from_position(
        table=table, players=[other, me, None], hands=example["hands"], stock="", dealer=1
    )
    helpers.act_all(game, example["actions"][:4])  # seat 1's bomb is played, the game goes on
    progress = daily_task_progress(user=me, day=reward_day(timezone.now()))
    assert progress == {"play_games": 0, "win_game": 0, "use_bomb": 1}


def test_claiming_a_task_pays_once_when_done(
    make_player: Callable[..., User], clock: Clock
) -> None:
    me, other = make_player(balance=100_000), make_player(balance=100_000)
    clock.shanghai(2026, 3, 1, 10)
    start, rows = balance(me), ledger_count(me)
    with pytest.raises(RewardRefused, match="not done yet: 0 of 1"):
        daily_task_claim(user=me, kind="win_game")
    assert (balance(me), ledger_count(me)) == (start, rows)

    game = play_example("one soft bomb, A is spring", [other, me, None])
    after_game = balance(me)
    claim = daily_task_claim(user=me, kind="win_game")
    assert claim.ledger_entry.reason == LedgerReason.DAILY_TASK
    assert claim.ledger_entry.amount == 300 and claim.streak is None
    bomb = daily_task_claim(user=me, kind="use_bomb")
    assert bomb.ledger_entry.amount == 200
    assert balance(me) == after_game + 500
    with pytest.raises(RewardAlreadyClaimed):
        daily_task_claim(user=me, kind="win_game")
    with pytest.raises(RewardRefused, match="1 of 3"):
        daily_task_claim(user=me, kind="play_games")
    assert balance(me) == after_game + 500

    status = {task.kind: task for task in rewards_status(user=me).tasks}
    assert status["win_game"].claimed and status["use_bomb"].claimed
    assert not status["play_games"].claimed and not status["play_games"].done
    assert (status["play_games"].progress, status["play_games"].percent) == (1, 33)
    assert GamePlayer.objects.get(game=game, user=me).nominal > 0  # type: ignore[operator]


def test_an_unknown_task_is_refused(player: User) -> None:
    with pytest.raises(RewardRefused, match="no such daily task"):
        daily_task_claim(user=player, kind="check_in")
    with pytest.raises(RewardRefused, match="no such daily task"):
        daily_task_claim(user=player, kind="fly")
    assert not RewardClaim.objects.exists()


def test_a_doudizhu_side_wins_together(make_player: Callable[..., User], clock: Clock) -> None:
    """A farmer wins with the other farmer who went out first: both have won their game."""
    clock.shanghai(2026, 3, 1, 10)
    players = [make_player(balance=100_000) for _ in range(3)]
    room = helpers.doudizhu_room()
    game = services.game_start(
        table=Table.objects.create(room=room), players=players, seed=20260301
    )
    helpers.play_doudizhu(game)
    assert game.status == Game.Status.FINISHED
    day = reward_day(timezone.now())
    places = {place.user_id: place for place in GamePlayer.objects.filter(game=game)}
    winners = [user for user in players if places[user.pk].nominal > 0]  # type: ignore[operator]
    # This deal's farmers win: the one who went out first is the game's winner, not the other.
    assert len(winners) == 2
    assert [places[user.pk].seat == game.winner for user in winners].count(False) == 1
    for user in players:
        progress = daily_task_progress(user=user, day=day)
        assert progress["play_games"] == 1
        assert progress["win_game"] == (user in winners)
        # The engine's own reading of each play the player made.
        seat = places[user.pk].seat
        bombs = [
            event
            for event in GameEvent.objects.filter(game=game, seat=seat)
            if "play" in event.action and DoudizhuPlay.parse(event.action["play"]).combo.is_bomb  # type: ignore[union-attr]
        ]
        assert progress["use_bomb"] == min(len(bombs), 1)


# Bombs, game by game ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "action", "bomb"),
    [
        ("gandengyan", {"play": "7s 7h 7d"}, True),  # soft bomb
        ("gandengyan", {"play": "8s 8h 8d 8c"}, True),  # hard bomb
        ("gandengyan", {"play": "7s 7h BJ", "as": "7 7 7"}, True),  # with a joker
        ("gandengyan", {"play": "BJ RJ"}, True),  # the rocket
        ("gandengyan", {"play": "7s BJ", "as": "7 7"}, False),
        ("gandengyan", {"play": "3s 4h 5d"}, False),
        ("gandengyan", {"pass": True}, False),
        ("doudizhu", {"play": "8s 8h 8d 8c"}, True),
        ("doudizhu", {"play": "BJ RJ"}, True),  # 王炸
        ("doudizhu", {"play": "7s 7h 7d"}, False),
        ("doudizhu", {"play": "3s 4h 5d 6c 7s"}, False),
        ("doudizhu", {"pass": True}, False),
        ("doudizhu", {"bid": "call"}, False),
        ("doudizhu", {"double": True}, False),
        ("doudizhu", {"nonsense": 1}, False),
    ],
)
def test_each_game_says_what_is_a_bomb(game: str, action: dict[str, object], bomb: bool) -> None:
    assert presentation_for(game).is_bomb(action) is bomb
