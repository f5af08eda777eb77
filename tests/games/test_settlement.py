"""Settlement through the services: capped losses, zero-sum ledgers, exactly once, and bots
playing for the house."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import IntegrityError, transaction
from django.db.models import Sum

from accounts.models import HOUSE_USERNAME, LedgerEntry, LedgerReason, User, Wallet
from accounts.selectors import house_wallet_get
from accounts.services import coins_move
from games import selectors, services
from games.models import Game, GamePlayer, Table
from games.rules.gandengyan import ENGINE
from tests.games.helpers import (
    EXAMPLES,
    act_all,
    balance,
    game_ledger,
    make_player,
    make_room,
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


def house() -> Wallet:
    wallet = house_wallet_get()
    assert wallet is not None
    return wallet


def set_house_balance(coins: int) -> None:
    """Give the house ``coins``, through the ledger like any adjustment."""
    wallet = house()
    if coins != wallet.balance:
        coins_move(
            wallet=wallet,
            amount=coins - wallet.balance,
            reason=LedgerReason.STAFF_ADJUSTMENT,
            note="test set-up",
        )


def rows_by_owner(game: Game) -> dict[str, int]:
    """The game's ledger rows by wallet owner (the house's user is ``house``)."""
    rows = {row.wallet.user.username: row.amount for row in game_ledger(game)}
    assert len(rows) == len(game_ledger(game))  # one row per wallet
    return rows


def all_coins() -> int:
    return Wallet.objects.aggregate(total=Sum("balance"))["total"]


def test_a_bot_loser_pays_the_house(table: Table) -> None:
    human_loser, winner = make_player("h", 100_000), make_player("w", 0)
    before = house().balance
    # Example 1: seat 0 wins, seat 1 (a bot) owes 1,200, seat 2 (a human) owes 2,000.
    game = play_example(table, [winner, None, human_loser], "no bomb, no spring")
    assert game.result["payments"] == [3200, -1200, -2000]
    assert game.result["coins"] == [3200, -1200, -2000]
    assert balance(winner) == 3200
    assert balance(human_loser) == 98_000
    assert house().balance == before - 1200
    bot = game.players.get(seat=1)
    assert (bot.is_bot, bot.nominal, bot.coins) == (True, -1200, -1200)
    assert rows_by_owner(game) == {"w": 3200, "h": -2000, HOUSE_USERNAME: -1200}
    assert ledger_sum(game) == 0


def test_a_human_who_loses_to_two_bots_pays_the_house(table: Table) -> None:
    human = make_player("h", 100_000)
    before = house().balance
    # Example 1 again: the bot at seat 0 wins from the player at seat 1 and the bot at seat 2.
    game = play_example(table, [None, human, None], "no bomb, no spring")
    assert game.winner == 0
    assert game.result["coins"] == [3200, -1200, -2000]
    assert [p.coins for p in game.players.order_by("seat")] == [3200, -1200, -2000]
    assert balance(human) == 100_000 - 1200
    assert house().balance == before + 1200  # the bot-to-bot 2,000 stays in the house
    assert rows_by_owner(game) == {"h": -1200, HOUSE_USERNAME: 1200}
    assert ledger_sum(game) == 0
    # The house plays through bots only: it never has a seat.
    assert not GamePlayer.objects.filter(user__wallet__is_house=True).exists()


def test_a_bot_beats_a_bot_and_a_capped_human(table: Table) -> None:
    """Example 3: the bot at seat 2 wins; the bot at seat 0 owes 6,400, the player at seat 1
    owes 12,800 and has 5,000."""
    human = make_player("h", 5_000)
    before = house().balance
    game = play_example(table, [None, human, None], "soft + hard bomb")
    assert game.result["payments"] == [-6400, -12800, 19200]
    assert game.result["coins"] == [-6400, -5000, 11400]
    assert balance(human) == 0
    assert house().balance == before + 5000
    assert rows_by_owner(game) == {"h": -5000, HOUSE_USERNAME: 5000}


def test_a_human_who_beats_two_bots_is_paid_by_the_house(table: Table) -> None:
    human = make_player("h", 0)
    before = house().balance
    game = play_example(table, [human, None, None], "no bomb, no spring")
    assert game.result["coins"] == [3200, -1200, -2000]
    assert balance(human) == 3200
    assert house().balance == before - 3200
    [house_row] = [row for row in game_ledger(game) if row.wallet.is_house]
    assert (house_row.amount, house_row.balance_after) == (-3200, before - 3200)
    assert rows_by_owner(game) == {"h": 3200, HOUSE_USERNAME: -3200}


def test_when_a_bot_wins_the_house_receives(table: Table) -> None:
    a, b = make_player("a", 50_000), make_player("b", 1_000)
    before = house().balance
    game = play_example(table, [None, a, b], "no bomb, no spring")
    assert game.winner == 0
    assert game.result["payments"] == [3200, -1200, -2000]
    assert game.result["coins"] == [2200, -1200, -1000]
    assert [balance(a), balance(b)] == [48_800, 0]
    assert house().balance == before + 2200
    assert rows_by_owner(game) == {"a": -1200, "b": -1000, HOUSE_USERNAME: 2200}
    assert [p.nominal for p in game.players.order_by("seat")] == [3200, -1200, -2000]


@pytest.mark.parametrize(
    ("house_coins", "coins"),
    [
        (5_000, [-4000, 5000, -1000]),  # the second bot pays what the first left
        (3_000, [-3000, 3000, 0]),
        (0, [0, 0, 0]),
    ],
)
def test_the_house_pays_only_what_it_has(table: Table, house_coins: int, coins: list[int]) -> None:
    """Example 2: the player at seat 1 wins 8,800 from two bots owing 4,000 and 4,800."""
    human = make_player("h", 0)
    set_house_balance(house_coins)
    game = play_example(table, [None, human, None], "one soft bomb, A is spring")
    assert game.result["payments"] == [-4000, 8800, -4800]
    assert game.result["coins"] == coins
    assert balance(human) == coins[1]
    assert house().balance == 0
    expected = {"h": coins[1], HOUSE_USERNAME: -coins[1]} if coins[1] else {}
    assert rows_by_owner(game) == expected


@pytest.mark.parametrize("name", list(EXAMPLES))
@pytest.mark.parametrize(
    "seating",
    ["PPP", "PBB", "BPB", "BBP", "PPB", "BPP", "PBP"],
)
def test_a_settlement_keeps_the_sum_of_all_wallets(table: Table, name: str, seating: str) -> None:
    """Whoever sits where (P: a player, B: a bot) and whatever anyone can pay, no coin is made
    or lost; each wallet gets one row with its net, payments before receipts."""
    set_house_balance(5_000)
    players: list[User | None] = [
        make_player(f"p{seat}", [1_000, 20_000, 0][seat]) if kind == "P" else None
        for seat, kind in enumerate(seating)
    ]
    total = all_coins()
    game = play_example(table, players, name)

    assert all_coins() == total
    assert ledger_sum(game) == 0 and sum(game.result["coins"]) == 0
    rows = sorted(game_ledger(game), key=lambda row: row.pk)
    amounts = [row.amount for row in rows]
    assert amounts == sorted(amounts, key=lambda amount: amount > 0)  # payments first
    coins = {p.seat: p.coins for p in game.players.all()}
    bots = sum(coins[seat] for seat, kind in enumerate(seating) if kind == "B")
    expected = {
        f"p{seat}": coins[seat] for seat, kind in enumerate(seating) if kind == "P" and coins[seat]
    }
    if bots:
        expected[HOUSE_USERNAME] = bots
    assert rows_by_owner(game) == expected
    assert [coins[seat] for seat in range(3)] == game.result["coins"]
    for wallet in Wallet.objects.all():
        assert wallet.balance == sum(e.amount for e in wallet.entries.all()) >= 0
    replay = selectors.game_replay_steps(game=game)
    assert {check.code: check.ok for check in replay.checks}["ledger"]


def test_settling_a_game_with_bots_again_moves_nothing(table: Table) -> None:
    human = make_player("h", 100_000)
    game = play_example(table, [None, human, None], "soft + hard bomb")
    balances = (balance(human), house().balance)
    rows = LedgerEntry.objects.count()

    services.game_settle(game=game)
    stale = Game.objects.get(pk=game.pk)
    stale.settled_at = None
    services.game_settle(game=stale)

    assert (balance(human), house().balance) == balances
    assert LedgerEntry.objects.count() == rows
    assert rows_by_owner(game) == {"h": -12800, HOUSE_USERNAME: 12800}


def test_the_ledger_check_counts_the_bot_seats_against_the_house(table: Table) -> None:
    human = make_player("h", 0)
    game = play_example(table, [human, None, None], "no bomb, no spring")
    checks = {check.code: check for check in selectors.game_replay_steps(game=game).checks}
    assert checks["ledger"].ok

    game.players.filter(seat=2).update(coins=-1200)  # the house's row says -3,200
    checks = {check.code: check for check in selectors.game_replay_steps(game=game).checks}
    assert not checks["ledger"].ok


def test_each_wallet_balance_is_the_sum_of_its_ledger(table: Table, trio: list[User]) -> None:
    set_balance(trio[1], 700)
    play_example(table, list(trio), "soft + hard bomb")
    for wallet in Wallet.objects.all():  # the players' and the house's
        assert wallet.balance == sum(e.amount for e in wallet.entries.all())
        assert wallet.balance >= 0


def test_a_deal_with_no_winner_finishes_and_moves_no_coin(db: None) -> None:
    """Under ``lone_joker_last: false`` two seats left with a lone joker each can never play:
    the game ends with no winner, is settled at once, and nobody pays."""
    room = make_room(code="lone", rules={"players": 2, "lone_joker_last": False})
    table = Table.objects.create(room=room)
    one, two = make_player("lone-one"), make_player("lone-two")
    game = start_from_position(
        table=table, players=[one, two], hands=["3s BJ", "RJ"], stock="", dealer=0
    )
    act_all(game, [{"seat": 0, "play": "3s"}])
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.winner is None
    assert game.settled_at is not None
    assert game.result["winner"] is None and game.result["payments"] == [0, 0]
    assert game_ledger(game) == []
    assert balance(one) == balance(two) == 100_000
    record = selectors.game_record(game=game)
    assert record["rules"] == {"players": 2, "lone_joker_last": False}
    replay = ENGINE.replay_record(record)
    assert replay.ok and replay.settlement is not None and replay.settlement.winner is None
