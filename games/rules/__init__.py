"""The rules engines of the platform: pure Python, standard library only, no I/O in the core.

Shared by the card games of the family: ``cards`` (the 54-card deck and its notation, card sets
as bit masks), ``errors``, ``protocol`` (what every game's engine offers the platform: its
``GameEngine``, states, bots, settlement), ``engine_base`` (what the engines do alike: records
and bots), ``views`` (a position's public view, made once for all its viewers), ``moves`` (the
pass), ``history`` (the actions a state
keeps), ``replay`` (replaying recorded actions), ``records`` (the fields every record has),
``simulate`` (seeded random playouts) and ``cli`` (the command line, ``python -m games.rules``).
Each game is a package of its own exposing its ``ENGINE``: ``gandengyan`` is 干瞪眼, ``doudizhu``
斗地主, ``shanghai`` 上海斗地主.
"""

from .cards import Card, Rank, Suit, format_cards, parse_cards, parse_ranks
from .errors import AmbiguousPlayError, IllegalMoveError, NotationError, RecordError, RulesError
from .protocol import GameEngine, GameStateProtocol, Phase, Policy, SettlementProtocol

__all__ = [
    "AmbiguousPlayError",
    "Card",
    "GameEngine",
    "GameStateProtocol",
    "IllegalMoveError",
    "NotationError",
    "Phase",
    "Policy",
    "Rank",
    "RecordError",
    "RulesError",
    "SettlementProtocol",
    "Suit",
    "format_cards",
    "parse_cards",
    "parse_ranks",
]
