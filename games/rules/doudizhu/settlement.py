"""Settlement (§7): who pays what when a game of 斗地主 is over. A pure function of the state.

The game multiplier is ``2^(抢地主) × 明牌 (the largest declared, 1 when none) × 2^(bombs and
rockets played) × 2 for 春天 or 反春``. Each farmer–landlord pair settles ``base × multiplier ×
the farmer's 加倍 (2 or 1) × the landlord's``: the farmer pays the landlord when the landlord
wins, the landlord pays the farmer when the farmers win. The payments sum to zero.

``pay_coins`` turns the nominal payments into coins that exist: nobody goes below zero.

>>> from games.rules.doudizhu import GameState
>>> state = GameState.play_position(["3s", "4s", "5s"], landlord=0)
>>> result = settle(state.apply_text(0, "3s"), base=100)   # the farmers never played: 春天
>>> result.payments, result.spring, result.multiplier
((400, -200, -200), 'spring', 2)
>>> pay_coins(result, coins=(0, 150, 1000))
(350, -150, -200)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import GameState

__all__ = ["Settlement", "pay_coins", "settle"]


@dataclasses.dataclass(frozen=True, slots=True)
class Settlement:
    """The nominal result of a finished game."""

    winner: int  # the seat that went out
    base: int
    landlord: int
    landlord_won: bool
    multiplier: int
    multipliers: dict[str, int]  # its parts: rob, show, bombs, spring
    spring: str | None  # "spring" (春天), "anti_spring" (反春) or None
    doubles: tuple[bool, ...]
    payments: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "landlord": self.landlord,
            "landlord_won": self.landlord_won,
            "multiplier": self.multiplier,
            "multipliers": dict(self.multipliers),
            "spring": self.spring,
            "doubles": list(self.doubles),
            "payments": list(self.payments),
        }


def settle(state: GameState, *, base: int) -> Settlement:
    """Settle a finished game at stake ``base``; ``ValueError`` while it is still going."""
    if state.winner is None or state.landlord is None:
        raise ValueError("the game is not over: there is nothing to settle yet")
    if type(base) is not int or base < 1:
        raise ValueError("the base stake is a positive whole number")
    landlord = state.landlord
    landlord_won = state.winner == landlord
    multiplier = state.multiplier
    doubles = tuple(bool(d) for d in state.doubles)
    landlord_factor = 2 if doubles[landlord] else 1
    payments = [0, 0, 0]
    for farmer in range(3):
        if farmer == landlord:
            continue
        amount = base * multiplier * (2 if doubles[farmer] else 1) * landlord_factor
        payments[farmer] = -amount if landlord_won else amount
    payments[landlord] = -sum(payments)
    return Settlement(
        winner=state.winner,
        base=base,
        landlord=landlord,
        landlord_won=landlord_won,
        multiplier=multiplier,
        multipliers={
            "rob": 1 << state.robs,
            "show": state.show_multiplier,
            "bombs": 1 << state.bombs,
            "spring": 2 if state.spring is not None else 1,
        },
        spring=state.spring,
        doubles=doubles,
        payments=tuple(payments),
    )


def pay_coins(settlement: Settlement, coins: Sequence[int]) -> tuple[int, ...]:
    """The payments as the ledger moves them, given each seat's coins before: a loser pays at
    most what it has and the winners receive what was paid. A losing landlord short of both
    farmers' due splits what it has in proportion to what each is owed, rounded down, the coin
    left over to the farmer first in seat order after the landlord (§7)."""
    landlord = settlement.landlord
    owed = settlement.payments
    farmers = [(landlord + 1) % 3, (landlord + 2) % 3]
    paid = [0, 0, 0]
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
    shares[farmers[0]] += available - sum(shares.values())
    for farmer in farmers:
        paid[farmer] = shares[farmer]
    paid[landlord] = -available
    return tuple(paid)
