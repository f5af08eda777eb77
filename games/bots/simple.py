"""Two plain bots: one that picks at random and one that always plays its lowest combination.

They are the yardsticks the sensible bot is measured against, and fillers for quick games.

>>> from games.rules.gandengyan import GameState
>>> state = GameState.from_position(["3s 4h 5d 9c", "6s 7s", "Qs Kd"], stock="", dealer=0)
>>> view, legal = state.view_for(0), state.legal_moves()
>>> str(GreedyPolicy().choose(view, legal))
'3s'
>>> RandomPolicy(7).choose(view, legal) in legal
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games.rules.gandengyan.moves import PASS, Move

__all__ = ["GreedyPolicy", "RandomPolicy"]


def _check(legal: Sequence[Move]) -> None:
    if not legal:
        raise ValueError("there are no legal moves to choose from")


class RandomPolicy:
    """Uniform over the legal moves, passing included.

    Deterministic given its generator: ``RandomPolicy(seed)`` or ``RandomPolicy(random.Random(s))``
    (a generator passed in is used, and advanced, as it is). Without either it uses seed 0.
    """

    name = "random"

    def __init__(self, rng: random.Random | int | None = None) -> None:
        self.rng = rng if isinstance(rng, random.Random) else random.Random(rng or 0)

    def choose(self, state_view: dict[str, Any], legal: Sequence[Move]) -> Move:
        _check(legal)
        return legal[self.rng.randrange(len(legal))]

    def __repr__(self) -> str:
        return "RandomPolicy()"


class GreedyPolicy:
    """Always its lowest combination: the first play in the engine's order.

    Leading, that is the first legal move (the lowest single, when it has one). Following, it is
    the first move that is not a pass; it passes only when it cannot beat the table.
    """

    name = "greedy"

    def choose(self, state_view: dict[str, Any], legal: Sequence[Move]) -> Move:
        _check(legal)
        for move in legal:
            if move is not PASS:
                return move
        return PASS

    def __repr__(self) -> str:
        return "GreedyPolicy()"
