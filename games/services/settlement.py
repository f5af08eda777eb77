"""Settling a finished game: its coins moved through the ledger, exactly once."""

from __future__ import annotations

import dataclasses
from typing import Any, cast

from django.db import transaction
from django.utils import timezone

from accounts.models import LedgerReason, Wallet
from accounts.services import coins_move_many, house_wallet

from ..engines import engine_for
from ..models import Game, GamePlayer
from ..selectors import game_state


@dataclasses.dataclass(frozen=True)
class Settled:
    """What a settlement left: the game's players by seat (with their users) and the balance
    of each wallet it locked, by user; empty when the game had been settled before."""

    players: dict[int, GamePlayer]
    balances: dict[int, int]


@transaction.atomic
def game_settle(*, game: Game, state: Any | None = None) -> Settled:
    """Move the coins of a finished game, exactly once.

    The engine's ``settle`` gives each seat's nominal payment. Each seat plays for a wallet: a
    person for their own, a bot for the house's (系统庄家, ``accounts.services.house_wallet``),
    which so pays what bots lose and receives what bots win. The ledger rows of a game always
    sum to zero:

    - the engine's ``pay`` says what moves, given what each seat can pay: what its wallet
      has, less what the seats before it owe from the same wallet (bot seats all pay from the
      house's), so together they never pay more than it holds and no balance goes below zero;
    - the winners receive exactly what the losers actually paid;
    - each wallet gets one ``game`` ledger row holding its net amount (none when the net is 0),
      the payments written before the receipts. A bot that loses to a bot pays the house what
      the house receives: no coin moves, but the two seats' ``coins`` show the payment.

    Each player's row gets ``cards_left``, ``spring``, ``nominal`` (the engine's payment,
    negative for a loser) and ``coins`` (what the seat paid or received, bots included), and
    ``game.result`` the engine's result with ``cards_left`` and ``coins`` added. The game row is
    locked and ``settled_at`` checked first, so a retry or a concurrent call does nothing; the
    ledger's unique constraint (one game row per wallet and game) is the last line of defence.
    ``state``: the game's final position, when the caller decided the last move under the same
    lock (read from the stored events otherwise). Raises ``ValueError`` for a game that has not
    finished.
    """
    locked = Game.objects.select_for_update().get(pk=game.pk)
    if locked.settled_at is not None:
        game.result, game.settled_at = locked.result, locked.settled_at
        return Settled(players={}, balances={})
    if locked.status != Game.Status.FINISHED:
        raise ValueError(f"game {locked.pk} has not finished: there is nothing to settle")
    if state is None:
        state = game_state(game=locked)
    engine = engine_for(locked.game)
    settlement = engine.settle(state, base=locked.base)
    # Shedding games say how many cards each seat kept and who never played (春天), by seat;
    # others not (斗地主's spring is the game's, in its result).
    seats = len(settlement.payments)
    cards_left = _by_seat(getattr(settlement, "cards_left", None), seats, 0)
    spring = _by_seat(getattr(settlement, "spring", None), seats, False)
    players = list(
        locked.players.select_for_update(of=("self",)).select_related("user").order_by("seat")
    )
    house_id = None
    if any(player.user_id is None for player in players):
        house_id = house_wallet().user_id
    # By seat, the user whose wallet the seat plays for: the player's own, the house's for a bot
    # (house_id is set whenever a bot plays).
    owners = cast(
        "list[int]", [house_id if player.user_id is None else player.user_id for player in players]
    )
    # Every wallet of the game, locked in one order (by key) before any coin moves.
    wallets = {
        wallet.user_id: wallet
        for wallet in Wallet.objects.select_for_update()
        .filter(user_id__in=set(owners))
        .order_by("pk")
    }

    # What each seat can pay: what its wallet still has once the seats before it that play for
    # the same wallet (the bots, for the house's) have paid what they owe.
    left = {user_id: wallet.balance for user_id, wallet in wallets.items()}
    can_pay = []
    for seat, owner in enumerate(owners):
        owed = -settlement.payments[seat]
        if owed > 0:
            can_pay.append(min(owed, left[owner]))
            left[owner] -= can_pay[-1]
        else:
            can_pay.append(left[owner])
    coins = list(engine.pay(settlement, can_pay))
    net = dict.fromkeys(wallets, 0)
    for player in players:
        net[owners[player.seat]] += coins[player.seat]
    # The payments' rows before the receipts', as the coins flow.
    coins_move_many(
        moves=[
            (wallets[user_id], net[user_id])
            for user_id in sorted(net, key=lambda user_id: (net[user_id] > 0, wallets[user_id].pk))
            if net[user_id] != 0
        ],
        reason=LedgerReason.GAME,
        game=locked,
    )

    for player in players:
        player.cards_left = cards_left[player.seat]
        player.spring = spring[player.seat]
        player.nominal = settlement.payments[player.seat]
        player.coins = coins[player.seat]
        player.save(update_fields=["cards_left", "spring", "nominal", "coins"])
    locked.result = {
        **settlement.to_json(),
        "cards_left": list(cards_left),
        "coins": coins,
    }
    locked.settled_at = timezone.now()
    locked.save(update_fields=["result", "settled_at"])
    game.result, game.settled_at = locked.result, locked.settled_at
    return Settled(
        players={player.seat: player for player in players},
        balances={user_id: wallet.balance for user_id, wallet in wallets.items()},
    )


def _by_seat(value: object, seats: int, default: Any) -> tuple[Any, ...]:
    """``value`` when it is a value for each of ``seats`` seats, else ``default`` for each."""
    if isinstance(value, tuple | list) and len(value) == seats:
        return tuple(value)
    return (default,) * seats
