"""The rules object: the standard game, and the named house-rule options that vary it.

A room or a record states only the options that differ from the standard (``{}`` is the standard
game). Every option of the rules specification has a field here, and every one is playable; an
unknown name or a value of the wrong type is refused by name, never silently ignored.

>>> GandengyanRules.from_dict({"joker_not_two": True}).to_dict()
{'joker_not_two': True}
>>> STANDARD.standard_play, GandengyanRules(players=2, draw="winner").standard_play
(True, True)
>>> GandengyanRules(bombs_any_higher=True).standard_play
False
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
    #: Derived, not an option: no option that changes which plays are legal is set, so the move
    #: generator's standard tables apply (dealing, drawing and settlement options may differ).
    standard_play: bool = dataclasses.field(
        init=False, repr=False, compare=False, hash=False, default=True
    )
    #: The move generator's tables for these rules, built the first time it needs them (a cache,
    #: not part of the value: ``movegen`` owns it).
    play_tables: object = dataclasses.field(
        init=False, repr=False, compare=False, hash=False, default=None
    )

    def __post_init__(self) -> None:
        standard = all(getattr(self, name) == default for name, default in _PLAY_DEFAULTS)
        object.__setattr__(self, "standard_play", standard)

    @classmethod
    def from_dict(cls, options: Mapping[str, Any] | None) -> GandengyanRules:
        """Build from a record's or a room's ``rules`` object, checking every name and value."""
        if options is None:
            return STANDARD
        if not isinstance(options, Mapping):
            raise RulesError("rules must be an object of option names and values")
        fields = {field.name: field for field in dataclasses.fields(cls) if field.init}
        values: dict[str, Any] = {}
        for name, value in options.items():
            if name not in fields:
                known = ", ".join(sorted(fields))
                raise RulesError(f"unknown rules option {name!r} (known options: {known})")
            _check_type(name, value)
            values[name] = value
        if not values:
            return STANDARD
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """Only the options that differ from the standard game."""
        return {
            field.name: getattr(self, field.name)
            for field in dataclasses.fields(self)
            if field.init and getattr(self, field.name) != field.default
        }

    @property
    def deal_sizes(self) -> tuple[int, ...]:
        """Cards dealt to each seat, starting with the dealer: 6, then 5 each."""
        return (6,) + (5,) * (self.players - 1)

    @property
    def straight_limit(self) -> int:
        """The longest straight allowed, in cards (12: all of 3..A)."""
        return 12 if self.max_straight is None else min(self.max_straight, 12)

    @property
    def pair_straight_limit(self) -> int:
        """The longest pair straight allowed, in cards, even (0: none at all; 24: all of 3..A)."""
        if not self.pair_straights:
            return 0
        limit = 24 if self.max_pair_straight is None else min(self.max_pair_straight, 24)
        return limit - limit % 2


#: The largest value of each limit: no straight is longer than the deck, and a multiplier cap
#: above a million caps no game (a room's base times it must still be coins a wallet holds).
LIMITS = {"max_straight": 54, "max_pair_straight": 54, "max_multiplier": 1_000_000}


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
    elif name in LIMITS:
        if value is not None and (type(value) is not int or not 1 <= value <= LIMITS[name]):
            raise RulesError(f"{name!r} must be a whole number from 1 to {LIMITS[name]} or null")
    elif type(value) is not bool:
        raise RulesError(f"{name!r} must be true or false")


# The options that change which plays are legal, with their standard values.
_PLAY_DEFAULTS = (
    ("twos_jump_pairs", False),
    ("twos_top_bombs", False),
    ("pair_straights", True),
    ("max_straight", None),
    ("max_pair_straight", None),
    ("lone_joker_last", True),
    ("natural_over_wild", False),
    ("bombs_any_higher", False),
    ("joker_not_two", False),
)

STANDARD = GandengyanRules()
