"""上海斗地主 (4 players, two decks): combinations, the game as a state machine, records, payments.

``cards`` holds the 108 cards and their notation (``As.1``, ``BJ.2``), ``combos`` the
combinations and what beats what, ``movegen`` the generation of legal plays from rank counts,
``moves`` the actions (bids, plays, the pass), ``game`` the state (``GameState``), ``options``
the room's rules, ``records`` the record format ``shanghai-record/1``, ``settlement`` who pays
what, ``simulate`` seeded random playouts and ``cli`` the command line (``python -m games.rules``
reads the record's format). ``ENGINE`` (``engine``) is the game for the platform, through
``games.rules.protocol``.
"""

from ..errors import IllegalMoveError, NotationError, RecordError, RulesError
from .cards import Card, format_cards, parse_cards
from .combos import Combo, ComboKind, beats, classify
from .engine import ENGINE
from .game import Deal, GameState, Phase, TablePlay, deal_from_seed
from .moves import BIG, NO_BID, PASS, SMALL, Action, Bid, Move, Pass, Play, parse_action
from .options import STANDARD, ShanghaiRules
from .records import GameRecord
from .settlement import Settlement, pay_coins, settle

__all__ = [
    "BIG",
    "ENGINE",
    "NO_BID",
    "PASS",
    "SMALL",
    "STANDARD",
    "Action",
    "Bid",
    "Card",
    "Combo",
    "ComboKind",
    "Deal",
    "GameRecord",
    "GameState",
    "IllegalMoveError",
    "Move",
    "NotationError",
    "Pass",
    "Phase",
    "Play",
    "RecordError",
    "RulesError",
    "Settlement",
    "ShanghaiRules",
    "TablePlay",
    "beats",
    "classify",
    "deal_from_seed",
    "format_cards",
    "pay_coins",
    "parse_action",
    "parse_cards",
    "settle",
]
