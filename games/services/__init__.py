"""Writes to games, by concept: seating and the life of a table (``tables``), dealing a game
(``deals``), moves by players, bots and 托管 (``moves``), turn clocks (``clocks``), the settlement
of a finished game (``settlement``), disputes (``disputes``), quick phrases, mutes and reports
(``chat``), who watched a game (``watches``), and the notices every change sends to its table's
sockets once committed (``notices``).

Every service is atomic, takes keyword-only arguments and locks the rows it changes. Coins move
only through ``accounts.services.coins_move_many`` (``coins_move``). Locks are always taken in
the same order (a user row, then tables by primary key; the game row, then its table, then
wallets by primary key) so that concurrent writers queue instead of deadlocking. Listeners
hear about a change only after the transaction that made it has committed.
"""

from ..errors import (
    ChatRefused,
    DisputeRefused,
    GameActionRefused,
    GameStartRefused,
    TableRefused,
)
from .chat import (
    player_mute,
    player_report,
    player_unmute,
    report_dismiss,
    report_mute_player,
    report_resolve,
    table_say,
    user_chat_ban,
)
from .clocks import (
    table_set_auto_play,
    turn_deadline,
)
from .deals import (
    game_start,
    seed_commitment,
)
from .disputes import (
    DISPUTE_REASON_MAX,
    dispute_open,
    dispute_reject,
    dispute_resolve,
)
from .moves import (
    bot_take_turn,
    bot_take_turns,
    game_act,
    game_turn_due,
    table_game_act,
)
from .notices import (
    notices_collected,
    table_group_name,
    table_notice,
)
from .settlement import (
    game_settle,
)
from .tables import (
    Leave,
    table_call_bots,
    table_create_private,
    table_fill_with_bots,
    table_join_by_invite,
    table_leave,
    table_leave_cancel,
    table_play,
    table_play_again,
    table_rules_checked,
    table_stand_up_not_ready,
    table_start_game,
)
from .watches import (
    game_watch_record,
)

__all__ = [
    "ChatRefused",
    "DISPUTE_REASON_MAX",
    "DisputeRefused",
    "GameActionRefused",
    "GameStartRefused",
    "Leave",
    "TableRefused",
    "bot_take_turn",
    "bot_take_turns",
    "dispute_open",
    "dispute_reject",
    "dispute_resolve",
    "game_act",
    "game_settle",
    "game_start",
    "game_turn_due",
    "game_watch_record",
    "notices_collected",
    "player_mute",
    "player_report",
    "player_unmute",
    "report_dismiss",
    "report_mute_player",
    "report_resolve",
    "seed_commitment",
    "table_call_bots",
    "table_create_private",
    "table_fill_with_bots",
    "table_game_act",
    "table_group_name",
    "table_join_by_invite",
    "table_leave",
    "table_leave_cancel",
    "table_notice",
    "table_play",
    "table_play_again",
    "table_rules_checked",
    "table_say",
    "table_set_auto_play",
    "table_stand_up_not_ready",
    "table_start_game",
    "turn_deadline",
    "user_chat_ban",
]
