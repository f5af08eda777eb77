"""Settlement (§12): who pays what when a game of 上海斗地主 is over. A pure function of the state.

A 小地主 game is worth 6 points to the landlord and 2 to each farmer, a 大地主 game 9 and 3: the
landlord wins ``+6`` (``+9``) and each farmer pays ``2`` (``3``), or the landlord loses as much
and each farmer receives as much. Points become coins as ``points × base``; the payments sum to
zero.

``pay_coins`` turns the nominal payments into coins that exist: nobody goes below zero.

>>> from games.rules.shanghai import GameState
>>> state = GameState.play_position(["3s", "4s", "5s", "6s"], landlord=0)
>>> result = settle(state.apply_text(0, "3s"), base=100)
>>> result.payments, result.points
((600, -200, -200, -200), 6)
>>> pay_coins(result, coins=(0, 150, 1000, 1000))
(550, -150, -200, -200)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import GameState

__all__ = ["POINTS", "Settlement", "pay_coins", "settle"]

#: A farmer's points by bid; the landlord's are three times as many.
POINTS = {"small": 2, "big": 3}


@dataclasses.dataclass(frozen=True, slots=True)
class Settlement:
    """The nominal result of a finished game."""

    winner: int  # the seat that went out
    base: int
    landlord: int
    landlord_won: bool
    bid: str  # "small" (小地主) or "big" (大地主)
    points: int  # the landlord's points, won or lost: 6 or 9
    bombs: tuple[int, ...]  # bombs played, by seat
    payments: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "landlord": self.landlord,
            "landlord_won": self.landlord_won,
            "bid": self.bid,
            "points": self.points,
            "bombs": list(self.bombs),
            "payments": list(self.payments),
        }


def settle(state: GameState, *, base: int) -> Settlement:
    """Settle a finished game at stake ``base``; ``ValueError`` while it is still going."""
    if state.winner is None or state.landlord is None or state.bid is None:
        raise ValueError("the game is not over: there is nothing to settle yet")
    if type(base) is not int or base < 1:
        raise ValueError("the base stake is a positive whole number")
    landlord = state.landlord
    landlord_won = state.winner == landlord
    farmer = POINTS[state.bid] * base
    payments = [-farmer if landlord_won else farmer] * 4
    payments[landlord] = 0
    payments[landlord] = -sum(payments)
    return Settlement(
        winner=state.winner,
        base=base,
        landlord=landlord,
        landlord_won=landlord_won,
        bid=state.bid,
        points=3 * POINTS[state.bid],
        bombs=state.bombs_played,
        payments=tuple(payments),
    )


def pay_coins(settlement: Settlement, coins: Sequence[int]) -> tuple[int, ...]:
    """The payments as the ledger moves them, given each seat's coins before: a loser pays at
    most what it has and the winners receive what was paid. A losing landlord short of the three
    farmers' due splits what it has in proportion to what each is owed (equal shares), rounded
    down; the coins left over go one each to the farmers in seat order after the landlord."""
    landlord = settlement.landlord
    owed = settlement.payments
    seats = len(owed)
    farmers = [(landlord + k) % seats for k in range(1, seats)]
    paid = [0] * seats
    if settlement.landlord_won:
        for farmer in farmers:
            paid[farmer] = -min(-owed[farmer], coins[farmer])
        paid[landlord] = -sum(paid)
        return tuple(paid)
    total = sum(owed[f] for f in farmers)
    available = min(total, coins[landlord])
    if available == total:
        return tuple(owed)
    shares = {f: available * owed[f] // total for f in farmers}
    left = available - sum(shares.values())
    for farmer in farmers[:left]:
        shares[farmer] += 1
    for farmer in farmers:
        paid[farmer] = shares[farmer]
    paid[landlord] = -available
    return tuple(paid)
