"""The bots' levels at a table: 简单 (easy), 普通 (normal) and 困难 (hard).

A room's staff choose the level of the bots that fill its seats, and a private table's host may
choose another for their table; the level names a policy of the table's game:

* ``easy``: the greedy bot, which plays its lowest combination whenever it can;
* ``normal``: the game's sensible bot (the one that also plays for a seat in 托管 and gives the
  提示 hint);
* ``hard``: the search bot, which plays the sensible bot's best moves out in sampled deals of
  the hidden cards within a time budget per move (the room's ``bot_budget_ms``).

>>> policy_for("gandengyan", "easy").name
'greedy'
>>> policy_for("gandengyan", "normal").name
'sensible'
"""

from __future__ import annotations

from typing import Any

from .policy import Policy

__all__ = ["DEFAULT_LEVEL", "LEVELS", "LEVEL_POLICIES", "policy_for"]

LEVELS = ("easy", "normal", "hard")
DEFAULT_LEVEL = "normal"
#: The policy each level names, as ``games.bots.make_policy`` knows them for every game.
LEVEL_POLICIES = {"easy": "greedy", "normal": "sensible", "hard": "search"}


def policy_for(
    game: str, level: str, *, seed: int = 0, budget_ms: float | None = None
) -> Policy[Any]:
    """The bot of ``level`` for ``game``; ``seed`` seeds the search's worlds and ``budget_ms``
    (None: its default) bounds its time per move. Other levels ignore both."""
    from . import make_policy  # the package imports this module

    try:
        name = LEVEL_POLICIES[level]
    except KeyError:
        raise ValueError(
            f"no bot level is called {level!r} (choose from {', '.join(LEVELS)})"
        ) from None
    if name != "search":
        return make_policy(name, seed=seed, game=game)  # type: ignore[call-overload,no-any-return]
    if budget_ms is None:
        return make_policy(name, seed=seed, game=game)  # type: ignore[call-overload,no-any-return]
    return make_policy(  # type: ignore[call-overload,no-any-return]
        name, seed=seed, game=game, budget_ms=budget_ms
    )
