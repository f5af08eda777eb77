"""Where the seed of each new game comes from.

A game's whole deal follows from its seed, so in play the seed must be unguessable: the default
source draws 256 bits from the operating system's secure generator. ``GAME_SEED_SOURCE`` names
another source only for tests that need the same deals on every run; a deploy check refuses any
other source when ``DEBUG`` is off.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.conf import settings
from django.core import checks
from django.utils.module_loading import import_string

SEED_BITS = 256
SECURE_SOURCE = "games.seeds.secure_seed"


def secure_seed() -> int:
    return secrets.randbits(SEED_BITS)


def new_seed() -> int:
    source: Callable[[], int] = import_string(settings.GAME_SEED_SOURCE)
    return source()


@checks.register(checks.Tags.security, deploy=True)
def check_seed_source(**kwargs: object) -> list[checks.CheckMessage]:
    if settings.GAME_SEED_SOURCE == SECURE_SOURCE or settings.DEBUG:
        return []
    return [
        checks.Error(
            "GAME_SEED_SOURCE is not the secure source: players could foresee the deals.",
            hint=f"Leave GAME_SEED_SOURCE unset (it defaults to {SECURE_SOURCE!r}).",
            id="games.E001",
        )
    ]
