"""Writes to games, by concept: seating and the life of a table (``tables``), dealing a game
(``deals``), moves by players, bots and 托管 (``moves``), turn clocks (``clocks``), the settlement
of a finished game (``settlement``), disputes (``disputes``), and the notices every change sends
to its table's sockets once committed (``notices``).

Every service is atomic, takes keyword-only arguments and locks the rows it changes. Coins move
only through ``accounts.services.coins_move``. Locks are always taken in the same order (a user
row, then tables by primary key; the game row, then its table, then wallets by primary key) so
that concurrent writers queue instead of deadlocking. Listeners hear about a change only after
the transaction that made it has committed.
"""

from .clocks import (
    AUTO_PLAY_AFTER_TIMEOUTS,
    table_set_auto_play,
    timeout_move,
    turn_deadline,
)
from .deals import (
    NOT_READ,
    game_deal,
    game_start,
    seed_commitment,
)
from .disputes import (
    DISPUTE_REASON_MAX,
    dispute_open,
    dispute_reject,
    dispute_resolve,
)
from .errors import (
    DisputeRefused,
    GameActionRefused,
    GameStartRefused,
    TableRefused,
)
from .moves import (
    BOT_TURNS_LIMIT,
    act_locked,
    bot_take_turn,
    bot_take_turns,
    game_act,
    game_playing_locked,
    game_turn_due,
    move_planned,
    move_seat,
    move_still_current,
    rows_with_game,
    table_game_act,
    table_seats,
)
from .notices import (
    broadcast_on_commit,
    frames_from_rows,
    notices_collected,
    table_broadcast_on_commit,
    table_group_name,
    table_notice,
)
from .settlement import (
    game_settle,
)
from .tables import (
    INVITE_CODE_BYTES,
    TABLE_CHANGE_FIELDS,
    Leave,
    admission_refused,
    leave_after_game,
    lock_tables,
    table_call_bots,
    table_change_planned,
    table_create_private,
    table_fill_with_bots,
    table_join_by_invite,
    table_leave,
    table_leave_cancel,
    table_play,
    table_play_again,
    table_stand_up_not_ready,
    table_start_game,
)

__all__ = [
    "AUTO_PLAY_AFTER_TIMEOUTS",
    "BOT_TURNS_LIMIT",
    "DISPUTE_REASON_MAX",
    "DisputeRefused",
    "GameActionRefused",
    "GameStartRefused",
    "INVITE_CODE_BYTES",
    "Leave",
    "NOT_READ",
    "TABLE_CHANGE_FIELDS",
    "TableRefused",
    "act_locked",
    "admission_refused",
    "bot_take_turn",
    "bot_take_turns",
    "broadcast_on_commit",
    "dispute_open",
    "dispute_reject",
    "dispute_resolve",
    "frames_from_rows",
    "game_act",
    "game_deal",
    "game_playing_locked",
    "game_settle",
    "game_start",
    "game_turn_due",
    "leave_after_game",
    "lock_tables",
    "move_planned",
    "move_seat",
    "move_still_current",
    "notices_collected",
    "rows_with_game",
    "seed_commitment",
    "table_broadcast_on_commit",
    "table_call_bots",
    "table_change_planned",
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
    "table_seats",
    "table_set_auto_play",
    "table_stand_up_not_ready",
    "table_start_game",
    "timeout_move",
    "turn_deadline",
]
