"""Two plain 上海斗地主 players, the yardsticks the 上海斗地主 bot is measured against.

* ``ShanghaiRandomPolicy``: uniform over the legal actions (bids, plays and the pass), from a
  seeded generator;
* ``ShanghaiGreedyPolicy``: always its lowest play (the first in the engine's order), passing
  only when it cannot beat the table, a partner's play included, and spending bombs like any
  other play; it says 小地主 whenever it may, never 大地主.

>>> from games.rules.shanghai import GameState
>>> state = GameState.play_position(["3s 4h 4d 9c", "6s 7s", "Qs Kd", "5s"], landlord=0)
>>> view, legal = state.view(0), tuple(state.legal_actions(0))
>>> str(ShanghaiGreedyPolicy().choose(view, legal))
'3s.1'
>>> ShanghaiRandomPolicy(7).choose(view, legal) in legal
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games.rules.shanghai.moves import NO_BID, PASS, SMALL, Action, Play

__all__ = ["ShanghaiGreedyPolicy", "ShanghaiRandomPolicy"]


class ShanghaiRandomPolicy:
    """Uniform over the legal actions, bids and the pass included.

    Deterministic given its generator: ``ShanghaiRandomPolicy(seed)`` or a ``random.Random``
    passed in (used, and advanced, as it is); seed 0 without either.
    """

    name = "random"

    def __init__(self, rng: random.Random | int | None = None) -> None:
        self.rng = rng if isinstance(rng, random.Random) else random.Random(rng or 0)

    def choose(self, state_view: dict[str, Any], legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError("there are no legal actions to choose from")
        return legal[self.rng.randrange(len(legal))]

    def __repr__(self) -> str:
        return "ShanghaiRandomPolicy()"


class ShanghaiGreedyPolicy:
    """Its lowest play, always (see the module's description)."""

    name = "greedy"

    def choose(self, state_view: dict[str, Any], legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError("there are no legal actions to choose from")
        for wanted in (SMALL, NO_BID):
            if wanted in legal:
                return wanted
        for action in legal:
            if isinstance(action, Play):
                return action
        return PASS if PASS in legal else legal[0]

    def __repr__(self) -> str:
        return "ShanghaiGreedyPolicy()"
