"""The rules engines of the platform: pure Python, standard library only, no I/O in the core.

Shared by the card games of the family: ``cards`` (the 54-card deck and its notation, card sets
as bit masks) and ``errors``. Each game is a package of its own: ``gandengyan`` is 干瞪眼.
"""

from .cards import Card, Rank, Suit, format_cards, parse_cards, parse_ranks
from .errors import AmbiguousPlayError, IllegalMoveError, NotationError, RecordError, RulesError

__all__ = [
    "AmbiguousPlayError",
    "Card",
    "IllegalMoveError",
    "NotationError",
    "Rank",
    "RecordError",
    "RulesError",
    "Suit",
    "format_cards",
    "parse_cards",
    "parse_ranks",
]
