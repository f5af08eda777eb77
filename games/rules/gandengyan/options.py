"""The rules object: the standard game, and the named house-rule options that vary it.

A room or a record states only the options that differ from the standard (``{}`` is the standard
game). Every option of the rules specification has a field here; an option the engine cannot play
yet is refused by name when the rules are built, never silently ignored.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..errors import RulesError

__all__ = ["STANDARD", "GandengyanRules", "RulesError"]


@dataclasses.dataclass(frozen=True, slots=True)
class GandengyanRules:
    """One game's rules. The defaults are the standard game."""

    players: int = 3
    twos_jump_pairs: bool = False
    twos_top_bombs: bool = False
    pair_straights: bool = True
    max_straight: int | None = None
    max_pair_straight: int | None = None
    draw: str = "all"
    lone_joker_last: bool = True
    natural_over_wild: bool = False
    rocket_multiplier: int = 8
    loser_twos_jokers_double: bool = False
    one_card_free: bool = False
    dealer_one_play_spring: bool = False
    bombs_any_higher: bool = False
    joker_not_two: bool = False
    max_multiplier: int | None = None

    @classmethod
    def from_dict(cls, options: Mapping[str, Any] | None) -> GandengyanRules:
        """Build from a record's or a room's ``rules`` object, checking every name and value."""
        if options is None:
            return STANDARD
        if not isinstance(options, Mapping):
            raise RulesError("rules must be an object of option names and values")
        fields = {field.name: field for field in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for name, value in options.items():
            if name not in fields:
                known = ", ".join(sorted(fields))
                raise RulesError(f"unknown rules option {name!r} (known options: {known})")
            _check_type(name, value)
            values[name] = value
        if not values:
            return STANDARD
        rules = cls(**values)
        rules._check_supported()
        return rules

    def to_dict(self) -> dict[str, Any]:
        """Only the options that differ from the standard game."""
        return {
            field.name: getattr(self, field.name)
            for field in dataclasses.fields(self)
            if getattr(self, field.name) != field.default
        }

    @property
    def deal_sizes(self) -> tuple[int, ...]:
        """Cards dealt to each seat, starting with the dealer: 6, then 5 each."""
        return (6,) + (5,) * (self.players - 1)

    def _check_supported(self) -> None:
        for name in _NOT_YET_PLAYABLE:
            if getattr(self, name) != getattr(STANDARD, name):
                raise RulesError(f"the rules option {name!r} is not playable in this version")


def _check_type(name: str, value: Any) -> None:
    if name == "players":
        if type(value) is not int or not 2 <= value <= 6:
            raise RulesError("'players' must be a whole number from 2 to 6")
    elif name == "draw":
        if value not in ("all", "winner"):
            raise RulesError('\'draw\' must be "all" (everyone draws) or "winner"')
    elif name == "rocket_multiplier":
        if type(value) is not int or value not in (4, 8):
            raise RulesError("'rocket_multiplier' must be 4 or 8")
    elif name in ("max_straight", "max_pair_straight", "max_multiplier"):
        if value is not None and (type(value) is not int or value < 1):
            raise RulesError(f"{name!r} must be a positive whole number or null")
    elif type(value) is not bool:
        raise RulesError(f"{name!r} must be true or false")


# Options whose play the engine does not implement yet; settlement and dealing options are in.
_NOT_YET_PLAYABLE = (
    "twos_jump_pairs",
    "twos_top_bombs",
    "pair_straights",
    "max_straight",
    "max_pair_straight",
    "lone_joker_last",
    "natural_over_wild",
    "bombs_any_higher",
    "joker_not_two",
)

STANDARD = GandengyanRules()
