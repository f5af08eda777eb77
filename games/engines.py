"""The games this site plays: each one an engine package whose ``ENGINE`` follows the protocol
of ``games.rules.protocol`` (``settings.GAME_ENGINES`` lists them). A room and each of its games
store the key of theirs; everything the platform asks of a game goes through its engine.
"""

from __future__ import annotations

import functools
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _

from games.rules.protocol import GameEngine

#: The game of the rooms and games that say nothing else: 干瞪眼, the site's first.
DEFAULT_GAME = "gandengyan"

Engine = GameEngine[Any, Any, Any]


@functools.cache
def engines() -> dict[str, Engine]:
    """The installed engines by key, in the order of ``settings.GAME_ENGINES``."""
    found: dict[str, Engine] = {}
    for path in settings.GAME_ENGINES:
        engine = import_string(path)
        if engine.key in found:
            raise ValueError(f"two engines have the key {engine.key!r}")
        found[engine.key] = engine
    return found


def engine_for(key: str) -> Engine:
    """The engine of the game ``key``; ``LookupError`` when no such game is installed."""
    try:
        return engines()[key]
    except KeyError:
        raise LookupError(f"no game {key!r} is installed") from None


def validate_game_key(value: str) -> None:
    if value not in engines():
        raise ValidationError(_("There is no game %(key)s here."), params={"key": value})


@receiver(setting_changed)
def _forget_engines(*, setting: str, **_kwargs: Any) -> None:
    if setting == "GAME_ENGINES":
        engines.cache_clear()
