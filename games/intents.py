"""What a table socket's intent asks of the services, in one place, wherever the call runs: in
one of the worker's database threads (``TableConsumer._act``) or in a service process
(``games.service_processes``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import services
from .models import Table

if TYPE_CHECKING:
    from accounts.models import User

#: The intents that are a move in the game: ``act`` carries the engine's action JSON (``move``)
#: for any game; the others are a game's own words for one (its presentation reads them).
MOVES = frozenset({"act", "play", "pass"})


def intent_make(*, user: User, table: Table, intent: dict[str, Any], move: Any = None) -> None:
    """Make ``intent`` (``consumers.parse_intent``'s) of ``user`` at ``table`` through the
    services; ``move`` is the game's action for a move intent. Raises the services' refusals."""
    action = intent["action"]
    if action == "again":
        services.table_play_again(user=user, table=table, start=intent["move"])
    elif action == "bots":
        services.table_call_bots(user=user, table=table)
    elif action in ("auto", "resume"):
        services.table_set_auto_play(user=user, table=table, on=action == "auto")
    elif action == "leave":
        services.table_leave(user=user, table=table)
    elif action == "stay":
        services.table_leave_cancel(user=user, table=table)
    elif action == "say":
        services.table_say(user=user, table_id=table.pk, phrase=intent["phrase"])
    else:
        services.table_game_act(
            user=user,
            table=table,
            action=move,
            version=intent["version"],
            action_id=intent["id"],
        )
