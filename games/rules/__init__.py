"""The rules engines of the platform: pure Python, standard library only, no I/O in the core.

``cards`` and ``moves`` are shared by the games of the family; ``gandengyan`` is the game of 干瞪眼.
"""

from .cards import Card, Rank, Suit, format_cards, parse_cards, parse_ranks
from .combos import Combo, ComboKind, beats, interpretations
from .errors import IllegalMoveError, NotationError, RecordError
from .gandengyan import GameState, Phase, TablePlay, deal_from_seed
from .moves import PASS, Move, Pass, Play, parse_move
from .options import STANDARD, GandengyanRules, RulesError
from .records import GameRecord, ReplayResult
from .settlement import Settlement, settle

__all__ = [
    "PASS",
    "STANDARD",
    "Card",
    "Combo",
    "ComboKind",
    "GameRecord",
    "GameState",
    "GandengyanRules",
    "IllegalMoveError",
    "Move",
    "NotationError",
    "Pass",
    "Phase",
    "Play",
    "Rank",
    "RecordError",
    "ReplayResult",
    "RulesError",
    "Settlement",
    "Suit",
    "TablePlay",
    "beats",
    "deal_from_seed",
    "format_cards",
    "interpretations",
    "parse_cards",
    "parse_move",
    "parse_ranks",
    "settle",
]
