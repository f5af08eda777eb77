"""Two plain 斗地主 players, the yardsticks the 斗地主 bot is measured against.

* ``DoudizhuRandomPolicy``: uniform over the legal plays (the pass included), a coin toss for
  叫地主, 抢地主 and 加倍, from a seeded generator;
* ``DoudizhuGreedyPolicy``: always its lowest play (the first in the engine's order), passing
  only when it cannot beat the table; it says 叫地主 whenever it may, never 抢 or 加倍.

Both let the deal run to its end and never declare 明牌: a 明牌 only multiplies the stakes and
shows their cards, which would make the coin figures noisier and tell nothing of their play.

>>> from games.rules.doudizhu import GameState
>>> state = GameState.play_position(["3s 4h 4d 9c", "6s 7s", "Qs Kd"], landlord=0)
>>> view, legal = state.view(0), tuple(state.legal_actions(0))
>>> str(DoudizhuGreedyPolicy().choose(view, legal))
'3s'
>>> DoudizhuRandomPolicy(7).choose(view, legal) in legal
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games.rules.doudizhu.moves import (
    CALL,
    NO_DOUBLE,
    NO_ROB,
    PASS,
    Action,
    Bid,
    DealOn,
    Double,
    Pass,
    Play,
)

__all__ = ["DoudizhuGreedyPolicy", "DoudizhuRandomPolicy"]


def _not_playing(legal: Sequence[Action]) -> Action | None:
    """The deal run to its end, or the one answer a phase before the play leaves; None when
    ``legal`` holds bids, doubles or plays to choose among."""
    if not legal:
        raise ValueError("there are no legal actions to choose from")
    deals = [action for action in legal if isinstance(action, DealOn)]
    if deals:
        return deals[-1]
    if not any(isinstance(action, (Bid, Double, Play, Pass)) for action in legal):
        return legal[0]  # a 明牌 alone (never reached: a seat always has something else)
    return None


class DoudizhuRandomPolicy:
    """Uniform over the legal plays and passes; a fair coin for each bid and for 加倍.

    Deterministic given its generator: ``DoudizhuRandomPolicy(seed)`` or a ``random.Random``
    passed in (used, and advanced, as it is); seed 0 without either.
    """

    name = "random"

    def __init__(self, rng: random.Random | int | None = None) -> None:
        self.rng = rng if isinstance(rng, random.Random) else random.Random(rng or 0)

    def choose(self, state_view: dict[str, Any], legal: Sequence[Action]) -> Action:
        fixed = _not_playing(legal)
        if fixed is not None:
            return fixed
        choices = [a for a in legal if isinstance(a, (Bid, Double, Play, Pass))]
        return choices[self.rng.randrange(len(choices))]

    def __repr__(self) -> str:
        return "DoudizhuRandomPolicy()"


class DoudizhuGreedyPolicy:
    """Its lowest play, always (see the module's description)."""

    name = "greedy"

    def choose(self, state_view: dict[str, Any], legal: Sequence[Action]) -> Action:
        fixed = _not_playing(legal)
        if fixed is not None:
            return fixed
        for wanted in (CALL, NO_ROB, NO_DOUBLE):
            if wanted in legal:
                return wanted
        for action in legal:
            if isinstance(action, Play):
                return action
        return PASS if PASS in legal else legal[0]

    def __repr__(self) -> str:
        return "DoudizhuGreedyPolicy()"
