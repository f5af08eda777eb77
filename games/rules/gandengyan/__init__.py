"""干瞪眼 (Gan Deng Yan): its combinations, the game as a state machine, records and settlement.

``game`` holds the state (``GameState``), ``combos`` the combinations and what beats what,
``movegen`` the fast generation of legal plays, ``moves`` the pass and the plays, ``options`` the
rules and house-rule options, ``records`` the record format, ``settlement`` who pays what,
``simulate`` seeded random playouts and ``cli`` the command line (``python -m games.rules``).
``ENGINE`` (``engine``) is the game for the platform, through ``games.rules.protocol``.
"""

from ..cards import Card, Rank, Suit, format_cards, parse_cards, parse_ranks
from ..errors import AmbiguousPlayError, IllegalMoveError, NotationError, RecordError, RulesError
from .combos import Combo, ComboKind, beats, interpretations
from .engine import ENGINE
from .game import GameState, Phase, TablePlay, deal_from_seed
from .moves import PASS, Move, Pass, Play, parse_move
from .options import STANDARD, GandengyanRules
from .records import GameRecord, ReplayResult
from .settlement import Settlement, settle

__all__ = [
    "ENGINE",
    "PASS",
    "STANDARD",
    "AmbiguousPlayError",
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
