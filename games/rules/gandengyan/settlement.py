"""Settlement: who pays what when a game of 干瞪眼 is over. A pure function of the final state.

Each loser pays ``base x cards left x multiplier x (2 if spring)``; the winner receives the sum, so
the payments always add up to zero. The multiplier is the product over every bomb played (soft x2,
hard x4, rocket x8); a loser who played no card at all is spring (春) and pays double. A deal that
ended with no winner (two lone jokers under ``lone_joker_last: false``) settles with ``winner``
None and nobody paying.

>>> from games.rules.gandengyan import GameState
>>> state = GameState.from_position(["3s", "4s 5s 6s", "7s 8s 9s Ts Js"], stock="", dealer=0)
>>> result = settle(state.apply_text(0, "3s"), base=400)   # both losers never played: spring
>>> result.payments, result.spring
((6400, -2400, -4000), (False, True, True))
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ..cards import Rank, cards_from_mask

if TYPE_CHECKING:
    from .game import GameState

__all__ = ["Settlement", "settle"]


@dataclasses.dataclass(frozen=True, slots=True)
class Settlement:
    """The nominal result of a finished game, per seat."""

    winner: int | None  # None: the deal ended with no winner, and nobody pays
    base: int
    multiplier: int
    cards_left: tuple[int, ...]
    spring: tuple[bool, ...]
    payments: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "multiplier": self.multiplier,
            "spring": list(self.spring),
            "payments": list(self.payments),
        }


def settle(state: GameState, *, base: int) -> Settlement:
    """Settle a finished game at stake ``base``. Raises ``ValueError`` while it is still going."""
    if not state.is_terminal:
        raise ValueError("the game is not over: there is nothing to settle yet")
    if type(base) is not int or base < 1:
        raise ValueError("the base stake is a positive whole number")
    rules = state.rules
    winner = state.winner
    multiplier = state.multiplier
    if rules.max_multiplier is not None:
        multiplier = min(multiplier, rules.max_multiplier)
    cards_left = tuple(hand.bit_count() for hand in state.hands)
    if winner is None:
        seats = len(state.hands)
        return Settlement(None, base, multiplier, cards_left, (False,) * seats, (0,) * seats)
    spring = tuple(seat != winner and _is_spring(state, seat) for seat in range(len(state.hands)))
    payments = [0] * len(state.hands)
    for seat, left in enumerate(cards_left):
        if seat == winner or (rules.one_card_free and left == 1):
            continue
        pay = base * left * multiplier * (2 if spring[seat] else 1)
        if rules.loser_twos_jokers_double:
            pay *= 2 ** sum(
                1 for card in cards_from_mask(state.hands[seat]) if card.rank >= Rank.TWO
            )
        payments[seat] = -pay
    payments[winner] = -sum(payments)
    return Settlement(
        winner=winner,
        base=base,
        multiplier=multiplier,
        cards_left=cards_left,
        spring=spring,
        payments=tuple(payments),
    )


def _is_spring(state: GameState, seat: int) -> bool:
    plays = state.plays_made[seat]
    if plays == 0:
        return True
    # House rule: a dealer whose only play was the game's first lead counts as spring too.
    return (
        state.rules.dealer_one_play_spring
        and seat == state.dealer
        and plays == 1
        and bool(state.history)
        and state.history[0][0] == seat
    )
