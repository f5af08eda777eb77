"""Whole games between bots: for tests, tuning and comparing policies.

>>> from games.rules import GameState
>>> from games.bots import GreedyPolicy
>>> end = play_game(GameState.deal(1), [GreedyPolicy(), GreedyPolicy(), GreedyPolicy()])
>>> end.is_terminal
True
"""

from __future__ import annotations

from collections.abc import Sequence

from games.rules.gandengyan import GameState

from .policy import Policy, choose_for

__all__ = ["play_game", "win_rates"]


def play_game(
    state: GameState, policies: Sequence[Policy], *, max_actions: int = 10_000
) -> GameState:
    """Play ``state`` to its end, seat ``s`` moving as ``policies[s]``; returns the final state.

    Every move goes through ``choose_for``, so each bot sees only its own view. A game always
    ends (once the stock is out, every round takes at least one card out of play); ``max_actions``
    only guards against a broken engine.
    """
    if len(policies) != state.players:
        raise ValueError(f"{state.players} seats need {state.players} policies")
    for _ in range(max_actions):
        seat = state.to_move
        if seat is None:
            return state
        state = state.apply(choose_for(state, policies[seat]))
    raise RuntimeError(f"the game did not end within {max_actions} actions")


def win_rates(policies: Sequence[Policy], games: int, seed: int) -> dict[str, float]:
    """The share of ``games`` that each of three differently named policies wins.

    Game ``i`` is dealt from seed ``seed + i // 3`` and played with the policies moved ``i % 3``
    seats round, so each deal is played from every seat (use a multiple of 3 games).
    """
    names = [policy.name for policy in policies]
    if len(policies) != 3 or len(set(names)) != 3:
        raise ValueError("compare three policies with different names")
    wins = dict.fromkeys(names, 0)
    for i in range(games):
        seats = [policies[(seat + i) % 3] for seat in range(3)]
        end = play_game(GameState.deal(seed + i // 3), seats)
        assert end.winner is not None
        wins[seats[end.winner].name] += 1
    return {name: count / games for name, count in wins.items()}
