"""Repeatable deals for tests: with ``GAME_SEED_SOURCE = "tests.seeds.repeatable_seed"`` every
new game's seed comes from one seeded generator, so that a run deals the same games each time."""

from __future__ import annotations

import random

from games.seeds import SEED_BITS

SOURCE = "tests.seeds.repeatable_seed"

_deals = random.Random(0)


def restart(seed: int) -> None:
    """Begin the sequence of deals that ``seed`` names."""
    _deals.seed(seed)


def repeatable_seed() -> int:
    return _deals.getrandbits(SEED_BITS)


def state() -> object:
    """Where the sequence of deals is: for another process to deal on from there."""
    return _deals.getstate()


def go_on_from(where: object) -> None:
    """Deal on from where ``state`` said (another process's deals since then included)."""
    _deals.setstate(where)  # type: ignore[arg-type]
