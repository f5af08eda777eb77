"""Settlement through the services: capped losses, zero-sum ledgers, exactly once, bots."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import IntegrityError, transaction

from accounts.models import LedgerEntry, LedgerReason, User, Wallet
from accounts.services import coins_move
from games import selectors, services
from games.models import Game, Table
from tests.games.helpers import (
    EXAMPLES,
    act_all,
    balance,
    game_ledger,
    make_player,
    set_balance,
    start_from_position,
)

pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parents[2]


def play_example(table: Table, players: list[User | None], name: str, *, last: bool = True) -> Game:
    example = EXAMPLES[name]
    game = start_from_position(
        table=table, players=players, hands=example["hands"], stock="", dealer=example["dealer"]
    )
    actions = example["actions"] if last else example["actions"][:-1]
    act_all(game, actions)
    game.refresh_from_db()
    return game


def ledger_sum(game: Game) -> int:
    return sum(entry.amount for entry in game_ledger(game))


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_worked_examples_of_the_rules(
    name: str, table: Table, trio: list[User], tmp_path: Path
) -> None:
    example = EXAMPLES[name]
    game = play_example(table, list(trio), name)

    assert game.status == Game.Status.FINISHED and game.settled_at is not None
    assert game.winner == example["winner"]
    for key in ("winner", "multiplier", "spring", "payments"):
        assert game.result[key] == example[key]
    assert game.result["coins"] == example["payments"]  # everyone could pay in full
    for player in game.players.order_by("seat"):
        assert player.nominal == example["payments"][player.seat]
        assert player.coins == example["payments"][player.seat]
        assert player.spring == example["spring"][player.seat]
    assert [balance(user) for user in trio] == [100_000 + p for p in example["payments"]]
    assert ledger_sum(game) == 0
    assert all(entry.reason == LedgerReason.GAME for entry in game_ledger(game))

    # The stored record replays to the same result with the engine's command line.
    path = tmp_path / "game.json"
    path.write_text(json.dumps(selectors.game_record(game=game)), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "games.rules", "replay", str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["result"] == {
        key: example[key] for key in ("winner", "multiplier", "spring", "payments")
    }


def test_a_loser_never_pays_more_than_they_have(table: Table) -> None:
    """Example 3: A owes 6,400 and has 1,000; B owes 12,800 and has 20,000."""
    a, b, winner = make_player("a", 1_000), make_player("b", 20_000), make_player("w", 500)
    game = play_example(table, [a, b, winner], "soft + hard bomb")

    assert balance(a) == 0
    assert balance(b) == 20_000 - 12_800
    assert balance(winner) == 500 + 1_000 + 12_800  # exactly what was paid, not the nominal
    assert game.result["payments"] == [-6400, -12800, 19200]
    assert game.result["coins"] == [-1000, -12800, 13800]
    assert [p.coins for p in game.players.order_by("seat")] == [-1000, -12800, 13800]
    assert ledger_sum(game) == 0


def test_a_loser_with_nothing_pays_nothing(table: Table) -> None:
    a, b, winner = make_player("a", 0), make_player("b", 0), make_player("w", 0)
    game = play_example(table, [a, b, winner], "no bomb, no spring")
    assert [balance(a), balance(b), balance(winner)] == [0, 0, 0]
    assert game.result["coins"] == [0, 0, 0]
    assert game_ledger(game) == []  # no zero rows
    assert game.settled_at is not None


def test_settling_again_moves_nothing(table: Table, trio: list[User]) -> None:
    game = play_example(table, list(trio), "one soft bomb, A is spring")
    balances = [balance(user) for user in trio]
    rows = LedgerEntry.objects.count()

    services.game_settle(game=game)
    services.game_settle(game=game)
    # A retry that still holds the game as it was before settling (a stale object).
    stale = Game.objects.get(pk=game.pk)
    stale.settled_at = None
    stale.result = None
    services.game_settle(game=stale)
    assert stale.settled_at == game.settled_at  # it learns the game was settled

    assert [balance(user) for user in trio] == balances
    assert LedgerEntry.objects.count() == rows
    assert ledger_sum(game) == 0


def test_a_second_settlement_row_is_refused_by_the_database(table: Table, trio: list[User]) -> None:
    game = play_example(table, list(trio), "no bomb, no spring")
    wallet = Wallet.objects.get(user=trio[0])
    before = wallet.balance
    with pytest.raises(IntegrityError), transaction.atomic():
        coins_move(wallet=wallet, amount=3200, reason=LedgerReason.GAME, game=game)
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerEntry.objects.create(
            wallet=wallet, amount=1, balance_after=before + 1, reason=LedgerReason.GAME, game=game
        )
    assert balance(trio[0]) == before
    assert len(game_ledger(game)) == 3


def test_an_unfinished_game_is_not_settled(table: Table, trio: list[User]) -> None:
    game = play_example(table, list(trio), "no bomb, no spring", last=False)
    with pytest.raises(ValueError, match="not finished"):
        services.game_settle(game=game)
    game.refresh_from_db()
    assert game.settled_at is None and game.result is None
    assert game_ledger(game) == []


def test_a_bot_loser_pays_nothing_and_the_winner_gets_what_humans_paid(table: Table) -> None:
    human_loser, winner = make_player("h", 100_000), make_player("w", 0)
    # Example 1: seat 0 wins, seat 1 (a bot) owes 1,200, seat 2 (a human) owes 2,000.
    game = play_example(table, [winner, None, human_loser], "no bomb, no spring")
    assert game.result["payments"] == [3200, -1200, -2000]
    assert game.result["coins"] == [2000, 0, -2000]
    assert balance(winner) == 2000
    assert balance(human_loser) == 98_000
    bot = game.players.get(seat=1)
    assert (bot.is_bot, bot.nominal, bot.coins) == (True, -1200, 0)
    assert ledger_sum(game) == 0


def test_when_a_bot_wins_nobody_pays(table: Table) -> None:
    a, b = make_player("a", 50_000), make_player("b", 50_000)
    game = play_example(table, [None, a, b], "no bomb, no spring")
    assert game.winner == 0
    assert game.result["payments"] == [3200, -1200, -2000]
    assert game.result["coins"] == [0, 0, 0]
    assert [balance(a), balance(b)] == [50_000, 50_000]
    assert game_ledger(game) == []
    assert [p.nominal for p in game.players.order_by("seat")] == [3200, -1200, -2000]


def test_each_wallet_balance_is_the_sum_of_its_ledger(table: Table, trio: list[User]) -> None:
    set_balance(trio[1], 700)
    play_example(table, list(trio), "soft + hard bomb")
    for wallet in Wallet.objects.filter(user__in=trio):
        assert wallet.balance == sum(e.amount for e in wallet.entries.all())
        assert wallet.balance >= 0
