"""How each game's steps, hands and actions look on the game page and the admin's replay.

The platform's pages are generic: the game page and the replay give their templates the
engine's views (``state.view(seat)``) and each action's JSON, and pick the game's own templates
by key (``games/<key>/game_detail.html``, ``admin/games/<key>/replay.html``), falling back to
generic ones. Where a game's templates need values that views do not hold ready (cards drawn
between two steps, card faces, labels of combinations), a small module computes them from the
views: a ``Presenter``, registered here by the game's key. A game without one shows its views
as the generic templates do.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from django.utils.module_loading import import_string

__all__ = ["PRESENTERS", "Presenter", "game_templates", "presenter_for"]

#: The presenters of the games that have one, by key.
PRESENTERS = {"gandengyan": "games.presenters.gandengyan.PRESENTER"}


class Presenter(Protocol):
    def replay_step(
        self,
        *,
        action: Mapping[str, Any] | None,
        views: Sequence[Mapping[str, Any]],
        public: Mapping[str, Any],
        previous: Sequence[Mapping[str, Any]] | None,
    ) -> dict[str, Any]:
        """What the game's replay template shows of one step, beyond its number, seat and
        action: from the action's JSON (None: the deal), every seat's view after it, the public
        view after it, and every seat's view before it (None for the deal)."""
        ...

    def game_page(self, context: dict[str, Any]) -> None:
        """Add to the game page's context what the game's template shows (``seats``: each with
        its final ``view`` once the game is over, ``actions``: each with its JSON, ``view``: the
        reader's view while it is played, ``public``: a spectator's view)."""
        ...


class _Generic:
    """The presenter of a game without one of its own: the views as they are."""

    def replay_step(
        self,
        *,
        action: Mapping[str, Any] | None,
        views: Sequence[Mapping[str, Any]],
        public: Mapping[str, Any],
        previous: Sequence[Mapping[str, Any]] | None,
    ) -> dict[str, Any]:
        return {}

    def game_page(self, context: dict[str, Any]) -> None:
        return None


@functools.cache
def presenter_for(key: str) -> Presenter:
    """The presenter of the game ``key``; the generic one for a game without its own."""
    path = PRESENTERS.get(key)
    presenter: Presenter = _Generic() if path is None else import_string(path)
    return presenter


def game_templates(key: str, generic: str, *, folder: str) -> list[str]:
    """The game's own template ``<folder>/<key>/<name of generic>``, then the generic one."""
    return [f"{folder}/{key}/{generic.rsplit('/', 1)[-1]}", generic]
