"""Plain bots: one that picks at random, one that always plays its lowest combination, and one
that does so but goes out when it can and keeps its bombs and jokers.

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

from games.rules.cards import JOKER_MASK
from games.rules.gandengyan.moves import PASS, Move, Play

__all__ = ["GreedyPlusPolicy", "GreedyPolicy", "RandomPolicy"]


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


def _bomb_or_joker(move: Play) -> bool:
    return bool(move.mask & JOKER_MASK) or bool(move.combo is not None and move.combo.bomb_class)


class GreedyPlusPolicy:
    """The greedy player, a little wiser: it goes out whenever a play empties its hand, and
    keeps its bombs and jokers, spending them only when an opponent holds two cards or fewer
    (or when it has nothing else to lead).

    >>> from games.rules.gandengyan import GameState
    >>> state = GameState.from_position(["3s 4h 5d", "6s 7s", "Qs Kd"], stock="", dealer=0)
    >>> str(GreedyPlusPolicy().choose(state.view_for(0), state.legal_moves()))
    '3s 4h 5d'
    """

    name = "greedy-plus"

    def choose(self, state_view: dict[str, Any], legal: Sequence[Move]) -> Move:
        _check(legal)
        plays = [move for move in legal if isinstance(move, Play)]
        if not plays:
            return PASS
        hand_size = len(state_view.get("hand") or ())
        for move in plays:
            if move.size == hand_size:
                return move
        seat = state_view.get("seat")
        counts = state_view.get("hand_counts") or []
        threat = any(n <= 2 for s, n in enumerate(counts) if s != seat)
        for move in plays:
            if threat or not _bomb_or_joker(move):
                return move
        return plays[0] if state_view.get("table") is None else PASS

    def __repr__(self) -> str:
        return "GreedyPlusPolicy()"
