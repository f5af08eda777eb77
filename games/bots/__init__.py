"""Bots: players that choose among the legal moves, seeing only what their seat may see.

The server asks ``choose_for(state, policy)`` for the move of the player to move. A policy is any
object with a ``name`` and ``choose(state_view, legal) -> Move`` (see ``Policy``); these are
the bots of 干瞪眼, whose ``ENGINE.bot_policy()`` is the sensible one:

* ``RandomPolicy``: uniform over the legal moves, from a seeded generator;
* ``GreedyPolicy``: always its lowest combination, passing only when it cannot beat;
* ``SensiblePolicy``: sheds its awkward cards first, keeps its 2s and bombs for when they matter
  (see ``games.bots.sensible`` for the whole description).

``make_policy(name, seed=...)`` builds one by name; ``play_game`` plays a game out between bots,
``duel`` measures one bot against two copies of another policy (win rate and coins with 95 %
confidence intervals; ``python -m games.bots arena``) and ``win_rates`` compares three of them
at one table. ``docs/bots.md`` explains the sensible policy and gives its figures.
"""

from __future__ import annotations

from games.rules.gandengyan.moves import Move

from .arena import duel, play_game, win_rates
from .policy import Policy, choose_for
from .sensible import SensiblePolicy
from .simple import GreedyPolicy, RandomPolicy

__all__ = [
    "POLICY_NAMES",
    "GreedyPolicy",
    "Policy",
    "RandomPolicy",
    "SensiblePolicy",
    "choose_for",
    "duel",
    "make_policy",
    "play_game",
    "win_rates",
]

POLICY_NAMES = ("random", "greedy", "sensible")


def make_policy(name: str, *, seed: int = 0) -> Policy[Move]:
    """A policy by its name; ``seed`` is used by the random one only."""
    if name == "random":
        return RandomPolicy(seed)
    if name == "greedy":
        return GreedyPolicy()
    if name == "sensible":
        return SensiblePolicy()
    raise ValueError(f"no bot is called {name!r} (choose from {', '.join(POLICY_NAMES)})")
