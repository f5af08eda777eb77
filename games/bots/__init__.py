"""Bots: players that choose among the legal moves, seeing only what their seat may see.

The server asks ``choose_for(state, policy)`` for the move of the player to move. A policy is any
object with a ``name`` and ``choose(state_view, legal) -> Move`` (see ``Policy``); these are
the bots of 干瞪眼, whose ``ENGINE.bot_policy()`` is the sensible one:

* ``RandomPolicy``: uniform over the legal moves, from a seeded generator;
* ``GreedyPolicy``: always its lowest combination, passing only when it cannot beat;
* ``SensiblePolicy``: sheds its awkward cards first, keeps its 2s and bombs for when they matter
  (see ``games.bots.sensible`` for the whole description).

斗地主 has its own (``games.bots.doudizhu``, ``games.bots.doudizhu_simple``), and its
``ENGINE.bot_policy()`` is ``DoudizhuPolicy``; ``make_policy(name, game="doudizhu")`` builds them
by the same names, and ``games.bots.doudizhu_arena`` measures the bot as the landlord and as the
farmers (``python -m games.bots arena --game doudizhu``). ``make_policy("search",
game="doudizhu")`` is its search bot (``games.bots.doudizhu_search``, on the game-free loop of
``games.bots.determinized``), and likewise for 上海斗地主 (``games.bots.shanghai_search``).

上海斗地主 likewise (``games.bots.shanghai``, ``games.bots.shanghai_simple``): its
``ENGINE.bot_policy()`` is ``ShanghaiPolicy``, ``make_policy(name, game="shanghai")`` builds the
three by the same names, and ``games.bots.shanghai_arena`` measures the bot as the landlord and
as the farmers (``python -m games.bots arena --game shanghai``).

``make_policy(name, seed=...)`` builds one by name; ``play_game`` plays a game out between bots,
``duel`` measures one bot against two copies of another policy (win rate and coins with 95 %
confidence intervals; ``python -m games.bots arena``) and ``win_rates`` compares three of them
at one table. ``docs/bots.md`` explains the sensible policy and gives its figures.
"""

from __future__ import annotations

from typing import Literal, overload

from games.rules.doudizhu.moves import Action as DoudizhuAction
from games.rules.gandengyan.moves import Move
from games.rules.shanghai.moves import Action as ShanghaiAction

from .arena import duel, play_game, win_rates
from .doudizhu import DoudizhuPolicy
from .doudizhu_search import make_doudizhu_search
from .doudizhu_simple import DoudizhuGreedyPolicy, DoudizhuRandomPolicy
from .policy import Policy, choose_for
from .search import DEFAULT_BUDGET_MS, SearchPolicy
from .sensible import ALT_WEIGHTS, SensiblePolicy
from .shanghai import ShanghaiPolicy
from .shanghai_search import make_shanghai_search
from .shanghai_simple import ShanghaiGreedyPolicy, ShanghaiRandomPolicy
from .simple import GreedyPlusPolicy, GreedyPolicy, RandomPolicy

__all__ = [
    "GAMES",
    "GANDENGYAN_NAMES",
    "LORD_NAMES",
    "POLICY_NAMES",
    "DoudizhuGreedyPolicy",
    "DoudizhuPolicy",
    "DoudizhuRandomPolicy",
    "GreedyPlusPolicy",
    "GreedyPolicy",
    "Policy",
    "RandomPolicy",
    "SearchPolicy",
    "SensiblePolicy",
    "ShanghaiGreedyPolicy",
    "ShanghaiPolicy",
    "ShanghaiRandomPolicy",
    "choose_for",
    "duel",
    "make_doudizhu_search",
    "make_policy",
    "make_shanghai_search",
    "play_game",
    "win_rates",
]

POLICY_NAMES = ("random", "greedy", "sensible")
#: The 干瞪眼 policies beyond the three every game has.
GANDENGYAN_NAMES = (*POLICY_NAMES, "greedy-plus", "sensible-alt", "search")
#: The 斗地主 and 上海斗地主 policies.
LORD_NAMES = (*POLICY_NAMES, "search")
GAMES = ("gandengyan", "doudizhu", "shanghai")


@overload
def make_policy(
    name: str,
    *,
    seed: int = 0,
    game: Literal["gandengyan"] = "gandengyan",
    budget_ms: float | None = ...,
    iterations: int | None = None,
) -> Policy[Move]: ...


@overload
def make_policy(
    name: str,
    *,
    seed: int = 0,
    game: Literal["doudizhu"],
    budget_ms: float | None = ...,
    iterations: int | None = None,
) -> Policy[DoudizhuAction]: ...


@overload
def make_policy(
    name: str,
    *,
    seed: int = 0,
    game: Literal["shanghai"],
    budget_ms: float | None = ...,
    iterations: int | None = None,
) -> Policy[ShanghaiAction]: ...


def make_policy(
    name: str,
    *,
    seed: int = 0,
    game: str = "gandengyan",
    budget_ms: float | None = DEFAULT_BUDGET_MS,
    iterations: int | None = None,
) -> Policy[Move] | Policy[DoudizhuAction] | Policy[ShanghaiAction]:
    """A policy of ``game`` (干瞪眼 unless told) by its name; ``seed`` is used by the random
    and search ones only, ``budget_ms`` (time per move; None: none) and ``iterations``
    (playouts per move) by the search ones only. The sensible 斗地主 policy is
    ``DoudizhuPolicy``, the sensible 上海斗地主 one ``ShanghaiPolicy``: their engines' bots;
    ``search`` is each game's determinized search (``make_doudizhu_search``,
    ``make_shanghai_search``, ``SearchPolicy`` for 干瞪眼).

    干瞪眼 also has ``greedy-plus`` (``GreedyPlusPolicy``), ``sensible-alt`` (the sensible bot
    with ``ALT_WEIGHTS``) and ``search`` (``SearchPolicy``)."""
    if game == "shanghai":
        if name == "random":
            return ShanghaiRandomPolicy(seed)
        if name == "greedy":
            return ShanghaiGreedyPolicy()
        if name == "sensible":
            return ShanghaiPolicy()
        if name == "search":
            if iterations is None:
                return make_shanghai_search(seed, budget_ms=budget_ms)
            return make_shanghai_search(seed, budget_ms=budget_ms, iterations=iterations)
    elif game == "doudizhu":
        if name == "random":
            return DoudizhuRandomPolicy(seed)
        if name == "greedy":
            return DoudizhuGreedyPolicy()
        if name == "sensible":
            return DoudizhuPolicy()
        if name == "search":
            if iterations is None:
                return make_doudizhu_search(seed, budget_ms=budget_ms)
            return make_doudizhu_search(seed, budget_ms=budget_ms, iterations=iterations)
    elif game != "gandengyan":
        raise ValueError(f"no bots play {game!r} (choose from {', '.join(GAMES)})")
    elif name == "random":
        return RandomPolicy(seed)
    elif name == "greedy":
        return GreedyPolicy()
    elif name == "sensible":
        return SensiblePolicy()
    elif name == "greedy-plus":
        return GreedyPlusPolicy()
    elif name == "sensible-alt":
        return SensiblePolicy(ALT_WEIGHTS, name="sensible-alt")
    elif name == "search":
        if iterations is None:
            return SearchPolicy(seed, budget_ms=budget_ms)
        return SearchPolicy(seed, budget_ms=budget_ms, iterations=iterations)
    names = GANDENGYAN_NAMES if game == "gandengyan" else LORD_NAMES
    raise ValueError(f"no bot is called {name!r} (choose from {', '.join(names)})")
