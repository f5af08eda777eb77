"""What each viewer of a table sees: the part shared by every viewer, computed once per change, and
each viewer's own view.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _

from games.rules import Rank

from ..models import Game, GamePlayer, Seat, Table
from ..presentation import Presentation, presentation_for
from ..selectors import TableRows, game_state, table_rows, table_version


@dataclasses.dataclass(frozen=True)
class SharedView:
    """What ``table_view`` shows every viewer alike, computed once for all of a table's viewers
    (``table_view_shared``): the rows and position it is made of, and the view without the parts
    that depend on the viewer."""

    rows: TableRows
    #: The engine's position of the table's current or last game.
    state: Any | None
    view: dict[str, Any]
    game: dict[str, Any] | None
    #: How the game looks (``presentation_for`` its key).
    presentation: Presentation
    #: Parts of the frame that are the same for every viewer, as rendered once for all.
    html: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: The cards played so far by rank, for the card counter; None: the game shows none.
    played: Counter[Rank] | None = None


def table_view_shared(
    *, table: Table, rows: TableRows | None = None, state: Any | None = None
) -> SharedView:
    """The part of ``table_view`` that is the same for every viewer (arguments as there)."""
    if rows is None:
        rows = table_rows(table=table)
    elif state is None and rows.game is not None:
        # Its turn and deadline change with every move.
        rows = dataclasses.replace(rows, game=Game.objects.get(pk=rows.game.pk))
    seats, game, players = rows.seats, rows.game, rows.players
    if state is None and game is not None:
        state = game_state(game=game)
    presentation = presentation_for(table.room.game if game is None else game.game)

    game_data: dict[str, Any] | None = None
    last_actions: dict[int, dict[str, Any]] = {}
    last_round: dict[int, str] = {}
    if game is not None and state is not None:
        over = game.is_over
        game_data = {
            "id": game.pk,
            "number": game.number,
            "status": game.status,
            "over": over,
            "base": game.base,
            "dealer": game.dealer,
            "winner": game.winner,
            "seed_commitment": game.seed_commitment,
            "seed": game.seed if over and game.seed else None,
            "view": None,
            "settlement": None,
            "hints": None,
            "actions": [],
            "deadline": None
            if over or game.turn_deadline is None
            else game.turn_deadline.isoformat(),
            "turn_seconds": table.room.turn_seconds,
        }
        if over and game.result is not None:
            by_position = {s.position: s for s in seats}
            game_data["settlement"] = {
                "multiplier": game.result.get("multiplier"),
                "seats": [
                    {
                        "position": p.seat,
                        "name": game_player_name(p, by_position.get(p.seat)),
                        "cards_left": p.cards_left,
                        "spring": p.spring,
                        "nominal": p.nominal,
                        "coins": p.coins,
                        "hand": presentation.shown_hand(state, p.seat),
                    }
                    for p in sorted(players.values(), key=lambda p: p.seat)
                ],
            }
        last_actions = presentation.last_actions(state)
        last_round = {} if over else presentation.last_round(state)

    playing = game is not None and not game.is_over and state is not None
    seat_to_move = presentation.seat_to_move(state) if playing else None
    seat_rows = []
    for s in seats:
        if s.user is not None:
            name = s.user.get_username()
        elif s.is_bot:
            name = _("Bot %(number)s") % {"number": s.position + 1}
        else:
            name = ""
        empty = s.user_id is None and not s.is_bot
        seat_rows.append(
            {
                "position": s.position,
                "name": name,
                "is_bot": s.is_bot,
                "is_empty": empty,
                "is_you": False,
                "coins": rows.balances.get(s.user_id) if s.user_id is not None else None,
                "ready": s.is_bot or (s.user_id is not None and s.ready),
                # 明牌开始 and the like, chosen for the next game.
                "start": presentation.start_label(s.start_action)
                if s.user_id is not None and s.start_action is not None
                else "",
                # A freed seat's count belongs to the player who left it.
                "cards": None
                if state is None or empty
                else presentation.seat_cards(state, s.position),
                "dealer": presentation.marks_dealer
                and game is not None
                and game.dealer == s.position,
                "role": "" if state is None or empty else presentation.seat_role(state, s.position),
                "note": "" if state is None or empty else presentation.seat_note(state, s.position),
                "to_move": playing and state is not None and seat_to_move == s.position,
                "auto_play": s.user_id is not None and s.auto_play,
                "leaves_after_game": playing and s.user_id is not None and s.leaves_after_game,
                "last_action": None if empty else last_actions.get(s.position),
                "last_round": "" if empty else last_round.get(s.position, ""),
            }
        )

    bots_at = None
    waiting = table.status == Table.Status.WAITING
    if waiting and table.waiting_since is not None and not table.is_private:
        bots_at = (table.waiting_since + timedelta(seconds=settings.BOT_FILL_SECONDS)).isoformat()
    # After a game: until when its players may press 再来一局 before their seats are freed.
    ready_by = None
    not_ready = any(s.user_id is not None and not s.ready for s in seats)
    if waiting and not_ready and game is not None and game.is_over and game.finished_at:
        ready_by = (game.finished_at + timedelta(seconds=settings.READY_SECONDS)).isoformat()
    view = {
        "table": table.pk,
        "room": {"code": table.room.code, "name": table.room.name, "base": table.room.base},
        "status": table.status,
        "private": table.is_private,
        "invite_code": None,
        "version": table_version(
            table=table, game=game, events=None if state is None else state.log_length
        ),
        "you": None,
        "seats": seat_rows,
        "bots_at": bots_at,
        "ready_by": ready_by,
        # The sound of the game's newest change, and where in the game it was made: a page plays
        # it once, however many frames show that change.
        "sound": "" if state is None else presentation.sound(state),
        "sound_at": "" if state is None or game is None else f"{game.pk}.{state.log_length}",
        **presentation.table_facts(state),
        "game": game_data,
    }
    played_cards = None if state is None else presentation.played_cards(state)
    return SharedView(
        rows=rows,
        state=state,
        view=view,
        game=game_data,
        presentation=presentation,
        played=None if played_cards is None else Counter(card.rank for card in played_cards),
    )


def game_player_name(player: GamePlayer, seat: Seat | None) -> str:
    """The name ``player`` played a game under: a bot's is its seat's; a player's is read from
    the seat while they still hold it (its user is at hand), else from the player's row."""
    if player.user_id is None:
        return _("Bot %(number)s") % {"number": player.seat + 1}
    if seat is not None and seat.user_id == player.user_id and seat.user is not None:
        return seat.user.get_username()
    return player.user.get_username() if player.user is not None else ""


def table_view(
    *,
    table: Table,
    seat: int | None,
    rows: TableRows | None = None,
    state: Any | None = None,
    shared: SharedView | None = None,
) -> dict[str, Any]:
    """The table as ``seat`` may see it (``None``: a spectator), JSON-safe, for pages and sockets.

    The seats (name, bot, coins of players, cards held, dealer, to move, the last action in the
    current round, ready for the next game), the game's own facts (``table_facts`` of its
    presentation, such as a stock and a multiplier), and the current or last game: the engine's
    ``view(seat)`` (a seat's own cards, never another's), and the hints of the seat to move;
    once the game is over, the settlement per seat and the seed. A seat sees the cards of the
    game only if the same player held that seat in it.
    ``rows`` (``table_rows``) may be kept from an earlier view while the same game goes on; the
    game's actions are always read anew, unless ``state`` is given: the position of
    ``rows.game``, read together with ``rows``. ``shared``: ``table_view_shared`` of the same
    table, rows and position, when the caller makes the views of several viewers.
    """
    if shared is None:
        shared = table_view_shared(table=table, rows=rows, state=state)
    rows, state = shared.rows, shared.state
    viewer = None if seat is None else next((s for s in rows.seats if s.position == seat), None)
    if seat is not None and viewer is None:
        raise ValueError(f"table {table.pk} has no seat {seat!r}")
    game, players = rows.game, rows.players
    game_data = shared.game
    if game is not None and state is not None and game_data is not None:
        own = viewer is not None and (
            viewer.user_id is not None
            and seat in players
            and players[seat].user_id == viewer.user_id
        )
        game_data = {
            **game_data,
            # The frames show the current round, not the whole game's list of actions.
            "view": state.view(seat if own else None, history=False),
        }
        if own and not game.is_over:
            assert seat is not None
            game_data["actions"] = shared.presentation.seat_actions(state, seat)
        if own and not game.is_over and state.to_move == seat:
            assert seat is not None
            game_data["hints"] = shared.presentation.hints(state, seat)
    return {
        **shared.view,
        "invite_code": table.invite_code if viewer is not None and table.is_private else None,
        "you": seat,
        "seats": [
            {**row, "is_you": True} if row["position"] == seat else dict(row)
            for row in shared.view["seats"]
        ],
        "game": game_data,
    }
