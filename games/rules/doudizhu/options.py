"""The rules object of 斗地主: the standard game and the room's options.

A room or a record states only what differs from the standard (``{}`` is the standard game).

* ``double_threshold``: the room's doubling threshold (§4). None (the standard): anyone may
  加倍. A whole number: a landlord may 加倍 only when every seat's coins are above it, a farmer
  only when that farmer's and the landlord's are; the state's ``coins`` say what each seat has
  (without them, nobody may 加倍 in such a room).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..errors import RulesError

__all__ = ["DOUBLE_THRESHOLD_MAX", "STANDARD", "DoudizhuRules"]

#: The highest doubling threshold, in coins: far above any wallet, yet a number, not a page.
DOUBLE_THRESHOLD_MAX = 10**12


@dataclasses.dataclass(frozen=True, slots=True)
class DoudizhuRules:
    """One game's rules. The defaults are the standard game."""

    double_threshold: int | None = None

    @property
    def players(self) -> int:
        return 3

    @classmethod
    def from_dict(cls, options: Mapping[str, Any] | None) -> DoudizhuRules:
        """Build from a record's or a room's ``rules`` object, checking every name and value."""
        if options is None:
            return STANDARD
        if not isinstance(options, Mapping):
            raise RulesError("rules must be an object of option names and values")
        fields = {field.name for field in dataclasses.fields(cls)}
        for name, value in options.items():
            if name not in fields:
                known = ", ".join(sorted(fields))
                raise RulesError(f"unknown rules option {name!r} (known options: {known})")
            if (
                name == "double_threshold"
                and value is not None
                and (type(value) is not int or not 0 <= value <= DOUBLE_THRESHOLD_MAX)
            ):
                raise RulesError(
                    f"'double_threshold' must be a whole number from 0 to {DOUBLE_THRESHOLD_MAX}"
                    " or null"
                )
        if not options:
            return STANDARD
        return cls(**dict(options))

    def to_dict(self) -> dict[str, Any]:
        """Only the options that differ from the standard game."""
        return {
            field.name: getattr(self, field.name)
            for field in dataclasses.fields(self)
            if getattr(self, field.name) != field.default
        }


STANDARD = DoudizhuRules()
