"""Classic 斗地主 (3 players): combinations, the game as a state machine, records, settlement.

``combos`` holds the combinations and what beats what, ``movegen`` the fast generation of legal
plays from rank counts (``Moves``, what ``legal_moves()`` returns: a read-only sequence that makes
each play when it is read), ``moves`` the actions (deal steps, 明牌, bids, 加倍, plays, the pass),
``game`` the state (``GameState``), ``options`` the room's rules, ``records`` the record format
``doudizhu-record/1``, ``settlement`` who pays what, ``simulate`` seeded random playouts and
``cli`` the command line (``python -m games.rules`` reads the record's format).
``ENGINE`` (``engine``) is the game for the platform, through ``games.rules.protocol``.
"""

from ..errors import AmbiguousPlayError, IllegalMoveError, NotationError, RecordError, RulesError
from .combos import Combo, ComboKind, beats, classify
from .engine import ENGINE
from .game import Deal, GameState, Phase, TablePlay, deal_from_seed
from .movegen import Moves
from .moves import (
    CALL,
    DOUBLE,
    NO_CALL,
    NO_DOUBLE,
    NO_ROB,
    PASS,
    ROB,
    SHOW,
    Action,
    Bid,
    DealOn,
    Double,
    Move,
    Pass,
    Play,
    Show,
    parse_action,
)
from .options import STANDARD, DoudizhuRules
from .records import GameRecord
from .settlement import Settlement, settle

__all__ = [
    "CALL",
    "DOUBLE",
    "ENGINE",
    "NO_CALL",
    "NO_DOUBLE",
    "NO_ROB",
    "PASS",
    "ROB",
    "SHOW",
    "STANDARD",
    "Action",
    "AmbiguousPlayError",
    "Bid",
    "Combo",
    "ComboKind",
    "Deal",
    "DealOn",
    "Double",
    "DoudizhuRules",
    "GameRecord",
    "GameState",
    "IllegalMoveError",
    "Move",
    "Moves",
    "NotationError",
    "Pass",
    "Phase",
    "Play",
    "RecordError",
    "RulesError",
    "Settlement",
    "Show",
    "TablePlay",
    "beats",
    "classify",
    "deal_from_seed",
    "parse_action",
    "settle",
]
