"""Reads of games, by concept: the lobby's rooms (``rooms``), tables and their rows (``tables``),
a game's position from its stored events (``states``), games and their records (``games``), the
leaderboards and a player's public record (``leaderboards``), replays of a game and who may
see them (``replays``), what the runner finds due (``clocks``), disputes (``disputes``), and
quick phrases, mutes and reports (``chat``). Nothing here writes.
"""

from .chat import (
    chat_wanted_from,
    messages_of_user,
    muted_ids,
    reports_for_admin,
    table_people,
)
from .clocks import (
    games_with_a_turn_due,
    tables_to_fill_with_bots,
    tables_with_players_not_ready,
)
from .disputes import (
    disputes_for_admin,
    disputes_of_player,
    disputes_open,
)
from .games import (
    game_actions,
    game_get_for_viewer,
    game_players,
    game_record,
    game_seed,
    game_view_for,
    games_for_admin,
    games_of_user,
    games_visible_to,
)
from .leaderboards import (
    Board,
    Leaderboard,
    LeaderboardRow,
    leaderboard,
    player_game_stats,
    player_recent_games,
    week_start,
)
from .replays import (
    Replay,
    ReplayCheck,
    ReplayStep,
    game_get_by_replay_token,
    game_get_for_replay,
    game_replay_frames,
    game_replay_steps,
    game_replay_token,
    game_steps,
    games_watched_by,
)
from .rooms import (
    rooms_for_lobby,
)
from .states import (
    game_deal,
    game_events_wanted,
    game_initial_state,
    game_position_remember,
    game_state,
    game_state_after,
    game_state_kept,
)
from .tables import (
    TableRows,
    table_current_game,
    table_get_for_user,
    table_of_user,
    table_rows,
    table_rows_during_game,
    table_version,
    tables_to_watch,
)

__all__ = [
    "Board",
    "Leaderboard",
    "LeaderboardRow",
    "Replay",
    "ReplayCheck",
    "ReplayStep",
    "TableRows",
    "chat_wanted_from",
    "disputes_for_admin",
    "disputes_of_player",
    "disputes_open",
    "game_actions",
    "game_deal",
    "game_events_wanted",
    "game_get_for_viewer",
    "game_initial_state",
    "game_players",
    "game_position_remember",
    "game_record",
    "game_get_by_replay_token",
    "game_get_for_replay",
    "game_replay_frames",
    "game_replay_steps",
    "game_replay_token",
    "game_steps",
    "games_watched_by",
    "game_seed",
    "game_state",
    "game_state_after",
    "game_state_kept",
    "game_view_for",
    "games_for_admin",
    "games_of_user",
    "games_visible_to",
    "games_with_a_turn_due",
    "leaderboard",
    "player_game_stats",
    "player_recent_games",
    "messages_of_user",
    "muted_ids",
    "reports_for_admin",
    "rooms_for_lobby",
    "table_current_game",
    "table_get_for_user",
    "table_of_user",
    "table_people",
    "table_rows",
    "table_rows_during_game",
    "table_version",
    "tables_to_fill_with_bots",
    "tables_to_watch",
    "tables_with_players_not_ready",
    "week_start",
]
