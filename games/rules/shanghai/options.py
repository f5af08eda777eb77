"""The rules object of 上海斗地主: the standard game (it has no options yet).

A room or a record states only what differs from the standard, so ``{}`` is the standard game;
any option name is refused (``RulesError``) until the game has one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..errors import RulesError

__all__ = ["STANDARD", "ShanghaiRules"]


@dataclasses.dataclass(frozen=True, slots=True)
class ShanghaiRules:
    """One game's rules. The defaults are the standard game."""

    @property
    def players(self) -> int:
        return 4

    @classmethod
    def from_dict(cls, options: Mapping[str, Any] | None) -> ShanghaiRules:
        """Build from a record's or a room's ``rules`` object, checking every name."""
        if options is None:
            return STANDARD
        if not isinstance(options, Mapping):
            raise RulesError("rules must be an object of option names and values")
        for name in options:
            raise RulesError(f"unknown rules option {name!r} (上海斗地主 has no options)")
        return STANDARD

    def to_dict(self) -> dict[str, Any]:
        """Only the options that differ from the standard game: none."""
        return {}


STANDARD = ShanghaiRules()
