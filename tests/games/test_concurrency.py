"""Many threads settle many games and move coins on the same wallets at once (PostgreSQL).

Each thread has its own database connection. Afterwards every game is settled exactly once, no
balance is negative, each game's ledger rows sum to zero (the house's row, if any, holding the bot
seats' coins) and each wallet's balance is the sum of its ledger rows.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from typing import Any

import pytest
from django.db import connection, connections
from django.db.models import Q

from accounts.models import LedgerEntry, LedgerReason, User, Wallet
from accounts.services import InsufficientCoins, coins_move
from games import services
from games.models import Game, GameEvent, Room, Table
from tests.games.helpers import EXAMPLES, act_all, make_player, make_room, start_from_position

# Row locks and concurrent transactions: skipped unless the run is on PostgreSQL.
pytestmark = pytest.mark.postgres

# Positions one action from their end (the three worked examples of the rules): the last action
# is made by the threads, racing each other and the settlement retries.
POSITIONS: list[dict[str, Any]] = [
    {
        "hands": example["hands"],
        "dealer": example["dealer"],
        "actions": example["actions"][:-1],
        "last": example["actions"][-1],
    }
    for example in EXAMPLES.values()
]

THREADS = 8
GAMES = 30
PLAYERS = 6


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_concurrent_settlements_and_coin_moves() -> None:
    assert connection.vendor == "postgresql"
    rng = random.Random(2024)
    room: Room = make_room(code="concurrency")
    # Few coins, so that many losses are capped and balances reach zero.
    users = [
        make_player(f"p{i}", coins=rng.choice([0, 1_000, 5_000, 20_000])) for i in range(PLAYERS)
    ]
    games: list[tuple[Game, dict[str, Any]]] = []
    for index in range(GAMES):
        position = POSITIONS[index % len(POSITIONS)]
        players: list[User | None] = list(rng.sample(users, 3))
        if index % 10 == 9:
            players[rng.randrange(3)] = None  # now and then a bot
        game = start_from_position(
            table=Table.objects.create(room=room),
            players=players,
            hands=position["hands"],
            stock="",
            dealer=position["dealer"],
        )
        act_all(game, position["actions"])
        games.append((game, position))

    barrier = threading.Barrier(THREADS)
    errors: list[BaseException] = []
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()

    def worker(number: int) -> None:
        local = random.Random(number)
        wallets = list(Wallet.objects.filter(user__in=users))
        try:
            barrier.wait(timeout=30)
            work = list(games) * 2
            local.shuffle(work)
            for game, position in work:
                step = local.random()
                try:
                    if step < 0.4:
                        last = position["last"]
                        action = {k: v for k, v in last.items() if k != "seat"}
                        services.game_act(game=game, seat=last["seat"], action=action)
                        outcome = "finished"
                    elif step < 0.7:
                        services.game_settle(game=game)
                        outcome = "settle_called"
                    else:
                        wallet = local.choice(wallets)
                        amount = local.choice([-3_000, -500, 200, 1_000])
                        coins_move(wallet=wallet, amount=amount, reason=LedgerReason.RELIEF)
                        outcome = "coins_moved"
                except services.GameActionRefused as exc:
                    assert exc.code == "game_over"
                    outcome = "act_refused"
                except InsufficientCoins:
                    outcome = "insufficient"
                except ValueError as exc:
                    assert "not finished" in str(exc)
                    outcome = "settle_too_early"
                with lock:
                    outcomes[outcome] += 1
        except BaseException as exc:  # reported to the main thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    assert not errors, errors
    assert outcomes["finished"] >= 1 and outcomes["coins_moved"] >= 1

    # Games that no thread happened to finish are finished now, by a settle-and-act round.
    for game, position in games:
        game.refresh_from_db()
        if game.status == Game.Status.PLAYING:
            act_all(game, [position["last"]])
        services.game_settle(game=game)

    for game, position in games:
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED
        assert game.settled_at is not None
        assert GameEvent.objects.filter(game=game).count() == len(position["actions"]) + 1
        rows = list(LedgerEntry.objects.filter(game=game, reason=LedgerReason.GAME))
        assert sum(row.amount for row in rows) == 0
        assert len({row.wallet_id for row in rows}) == len(rows)  # once per wallet
        coins = {p.user_id: p.coins for p in game.players.all() if p.user_id is not None}
        bots = sum(p.coins for p in game.players.all() if p.user_id is None)
        for row in rows:
            assert row.amount == (bots if row.wallet.is_house else coins[row.wallet.user_id])
        assert sum(game.result["coins"]) == 0
    for wallet in Wallet.objects.filter(Q(user__in=users) | Q(is_house=True)):
        assert wallet.balance >= 0
        assert wallet.balance == sum(entry.amount for entry in wallet.entries.all())
        assert all(entry.balance_after >= 0 for entry in wallet.entries.all())
