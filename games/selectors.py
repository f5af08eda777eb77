"""Reads of rooms, tables and games, and the views of a table that players and spectators see."""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Case, Count, Exists, OuterRef, Q, QuerySet, Subquery, Value, When
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import LedgerEntry, LedgerReason, Wallet
from games.bots import SensiblePolicy, choose_for
from games.rules import IllegalMoveError, NotationError, RecordError, format_cards
from games.rules.cards import cards_from_mask
from games.rules.gandengyan import GameRecord, GameState, GandengyanRules, Move, Play, settle
from games.rules.gandengyan.moves import move_from_json
from games.rules.gandengyan.records import FORMAT

from .lru import LruCache
from .models import Dispute, Game, GameEvent, GamePlayer, Room, Seat, Table
from .positions import KnownPosition, positions


def rooms_for_lobby() -> QuerySet[Room]:
    """Every room, in lobby order, with ``seated``: players (not bots) at its open tables."""
    return Room.objects.annotate(
        seated=Count(
            "tables__seats",
            filter=Q(tables__seats__user__isnull=False) & ~Q(tables__status=Table.Status.CLOSED),
        )
    ).order_by("position", "base")


# Games -------------------------------------------------------------------------------------------


def game_seed(*, game: Game) -> int | None:
    """The game's seed as a number, or None when it is secret (the game is not over) or absent."""
    if not game.is_over or not game.seed:
        return None
    return int(game.seed, 16)


def game_record(*, game: Game) -> dict[str, Any]:
    """The game in the engine's record format (``gandengyan-record/1``), actions from its events.

    ``seed`` is included only once the game is over; until then only ``meta.seed_commitment``
    says anything about it. The record holds the starting hands and the stock, so it is for staff
    and for the end of the game, never for a player's view of a game in progress.
    """
    record: dict[str, Any] = {
        "format": FORMAT,
        "rules": GandengyanRules.from_dict(game.rules).to_dict(),
        "base": game.base,
        "dealer": game.dealer,
        "hands": list(game.hands),
        "stock": game.stock,
        "actions": [{"seat": seat, **action} for seat, action in _events(game)],
    }
    seed = game_seed(game=game)
    if seed is not None:
        record["seed"] = seed
    record["meta"] = {
        "game": game.pk,
        "table": game.table_id,
        "number": game.number,
        "seed_commitment": game.seed_commitment,
    }
    return record


def _events(game: Game) -> list[tuple[int, dict[str, Any]]]:
    return list(game.events.order_by("number").values_list("seat", "action"))


def game_initial_state(*, game: Game) -> GameState:
    """The position at the deal."""
    rules = GandengyanRules.from_dict(game.rules)
    return GameState.from_position(game.hands, game.stock, game.dealer, rules=rules)


def game_state(*, game: Game) -> GameState:
    """The engine's position after the game's stored events.

    Starts from this process's last known position of the game (``games.positions``) when the
    event it was built up to is still stored unchanged, and applies only the events after it;
    otherwise replays the game from the deal. Raises ``ValueError`` if a stored event does not
    replay, which only corrupt data can cause.
    """
    known = game_state_kept(game=game)
    if known is not None:
        return known  # the row names this very position
    since = game_events_wanted(game=game)
    state = game_state_after(game=game, events=_events_since(game, since), since=since)
    if state is None:  # the known position is not the stored game's any more
        state = game_state_after(game=game, events=_events_since(game, 0), since=0)
    assert state is not None
    return state


def _events_since(game: Game, number: int) -> list[tuple[int, int, Any]]:
    return list(
        game.events.filter(number__gte=number)
        .order_by("number")
        .values_list("id", "seat", "action")
    )


def game_events_wanted(*, game: Game) -> int:
    """The number of the first stored event (``id``, ``seat``, ``action``, by number) that
    ``game_state_after`` needs after this process's known position of ``game``; 0: all."""
    known = positions.get(_position_key(game))
    if known is None or known.last_event is None:
        return 0
    return int(known.state.log_length)


def game_state_after(
    *, game: Game, events: list[tuple[int, int, Any]], since: int
) -> GameState | None:
    """The position after ``game``'s stored ``events`` (``id``, ``seat``, ``action``), read from
    number ``since`` (``game_events_wanted``), which the process keeps from then on; None when
    they do not go on from the known position (read them all, ``since`` 0, then)."""
    key = _position_key(game)
    known = positions.get(key)
    state: GameState | None = None
    last_event = None
    if since:
        if known is None or known.last_event is None or known.state.log_length != since:
            return None
        if not events or tuple(events[0]) != known.last_event:
            return None
        state, last_event, events = known.state, known.last_event, events[1:]
    else:
        # A known deal saves building it again; anything else is replayed from the deal.
        deal = known is not None and known.last_event is None
        state = known.state if deal and known is not None else game_initial_state(game=game)
    for event_id, seat, action in events:
        try:
            if seat != state.to_move:
                raise IllegalMoveError("not_your_turn", f"seat {seat} is not to move")
            state = state.apply(seat, move_from_json(action))
        except (IllegalMoveError, NotationError) as exc:
            number = state.log_length + 1
            raise ValueError(f"game {game.pk}: event {number} does not replay: {exc}") from exc
        last_event = (event_id, seat, action)
    positions.put(key, KnownPosition(state=state, last_event=last_event))
    return state


def game_state_kept(*, game: Game) -> GameState | None:
    """``game_state`` if the process keeps the very position ``game``'s row names; None
    otherwise (without reading the events)."""
    known = positions.get(_position_key(game))
    if known is not None and known.position_id == game.position_id:
        return known.state
    return None


def game_position_remember(*, game: Game, state: GameState, event: GameEvent | None) -> None:
    """Keep ``state``, the position right after ``event`` (None: the deal) with the
    ``position_id`` just stored on ``game``, as the game's last known position: a writer that
    has just stored the event saves its next reader a replay."""
    positions.put(
        _position_key(game),
        KnownPosition(
            state=state,
            last_event=None if event is None else (event.pk, event.seat, event.action),
            position_id=game.position_id,
        ),
    )


def _position_key(game: Game) -> tuple[Any, ...]:
    return (game.pk, game.seed_commitment, game.started_at)


def game_get_for_viewer(*, user: AbstractBaseUser | AnonymousUser, game_id: int) -> Game | None:
    """The game if ``user`` may see its page: a player of it, or staff. None otherwise.

    The one access check for a game's page and its dispute form.
    """
    if not user.is_authenticated:
        return None
    games = Game.objects.select_related("table__room")
    if not user.is_staff:
        games = games.filter(players__user_id=user.pk)
    return games.filter(pk=game_id).first()


def game_players(*, game: Game) -> list[GamePlayer]:
    """The players of a game by seat, with their users."""
    return list(game.players.select_related("user").order_by("seat"))


def game_actions(*, game: Game) -> list[GameEvent]:
    """The game's actions in order. Public: every player sees every play and pass."""
    return list(game.events.order_by("number"))


def game_view_for(*, game: Game, seat: int | None) -> dict[str, Any]:
    """The engine's view of a game in progress for ``seat``: its own hand, never another's.

    ``seat=None`` (staff, or anyone not seated) gets no hand at all.
    """
    return game_state(game=game).view_for(seat)


def games_of_user(*, user_id: int) -> QuerySet[Game]:
    """The games a user played, newest first."""
    return (
        Game.objects.filter(players__user_id=user_id)
        .select_related("table__room")
        .order_by("-started_at", "-id")
    )


def games_for_admin() -> QuerySet[Game]:
    """Every game for the admin, with its table and room."""
    return Game.objects.select_related("table__room").annotate(actions=Count("events"))


def disputes_open() -> QuerySet[Dispute]:
    """The open disputes, oldest first: the staff's queue."""
    return (
        Dispute.objects.filter(status=Dispute.Status.OPEN)
        .select_related("game__table__room", "user")
        .order_by("created_at", "id")
    )


def disputes_for_admin() -> QuerySet[Dispute]:
    """Every dispute, with ``open_first`` (0 for open, 1 for closed) to put the queue first."""
    return Dispute.objects.select_related("game__table__room", "user", "staff").annotate(
        open_first=Case(When(status=Dispute.Status.OPEN, then=Value(0)), default=Value(1))
    )


def disputes_of_player(*, game: Game, user_id: int) -> QuerySet[Dispute]:
    """A player's disputes about one game, newest first."""
    return Dispute.objects.filter(game=game, user_id=user_id).order_by("-created_at", "-id")


# Replays -----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ReplayStep:
    """The position after one action (number 0: after the deal)."""

    number: int
    seat: int | None
    kind: str  # "deal", "play" or "pass"
    cards: str  # the cards played, canonical; "" for a pass or the deal
    meaning: str  # the ranks the play stands for, e.g. "4 5 6"; "" for a pass or the deal
    wild: bool  # whether the cards alone do not tell the meaning (a joker, or several meanings)
    text: str  # the action in move notation: "5s 6h BJ = 4 5 6", "pass"
    hands: tuple[str, ...]  # every seat's hand after the action
    drawn: tuple[str, ...]  # what each seat drew from the stock because of this action
    table: dict[str, Any] | None  # the play on the table, or None at the start of a round
    multiplier: int
    stock: int  # cards left in the stock
    to_move: int | None
    winner: int | None


@dataclasses.dataclass(frozen=True)
class ReplayCheck:
    code: str  # "record", "commitment", "actions", "result", "ledger"
    label: str
    ok: bool
    detail: str


@dataclasses.dataclass(frozen=True)
class Replay:
    """A game replayed by the engine from its stored record, and whether it agrees."""

    record: dict[str, Any]
    steps: list[ReplayStep]
    settlement: dict[str, Any] | None  # the engine's, when the replay reaches the end
    stored_result: dict[str, Any] | None
    checks: list[ReplayCheck]

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)


_RESULT_KEYS = ("winner", "multiplier", "spring", "payments")

COMBO_KIND_LABELS = {
    "single": gettext_lazy("single"),
    "pair": gettext_lazy("pair"),
    "straight": gettext_lazy("straight"),
    "pair_straight": gettext_lazy("pair straight"),
    "soft_bomb": gettext_lazy("soft bomb"),
    "hard_bomb": gettext_lazy("hard bomb"),
    "rocket": gettext_lazy("rocket"),
}


def game_replay_steps(*, game: Game) -> Replay:
    """Replay a game with the engine, step by step, and check it against what was stored.

    The record is rebuilt from the stored deal and events (with the seed once the game is over)
    and read by the engine exactly as an exported record would be. Checks: the record reads and,
    when the seed is revealed, the seed deals exactly the stored hands and stock; the seed
    matches its commitment; every action is legal; the engine's result (winner, multiplier,
    spring, payments) equals the stored result; the game's ledger rows sum to zero and match the
    coins stored for each player.
    """
    data = game_record(game=game)
    checks: list[ReplayCheck] = []
    try:
        record = GameRecord.from_json(data)
    except RecordError as exc:
        checks.append(ReplayCheck("record", _("Record"), False, str(exc)))
        return Replay(data, [], None, game.result, checks)
    checks.append(
        ReplayCheck(
            "record",
            _("Record"),
            True,
            _("The seed deals exactly the stored hands and stock.")
            if "seed" in data
            else _("The record reads; the seed is still secret."),
        )
    )
    if "seed" in data:
        seed_ok = hashlib.sha256(bytes.fromhex(game.seed)).hexdigest() == game.seed_commitment
        checks.append(
            ReplayCheck(
                "commitment",
                _("Seed commitment"),
                seed_ok,
                _("SHA-256 of the seed equals the commitment published at the start.")
                if seed_ok
                else _("SHA-256 of the seed differs from the commitment."),
            )
        )

    state = record.initial_state()
    steps = [_replay_step(0, None, None, state, state)]
    for index, action in enumerate(record.actions):
        try:
            if action.seat != state.to_move:
                raise IllegalMoveError(
                    "not_your_turn", f"seat {action.seat} acted, but it is seat {state.to_move}'s"
                )
            before, state = state, state.apply(action.seat, action.move)
        except IllegalMoveError as exc:
            checks.append(
                ReplayCheck(
                    "actions",
                    _("Actions"),
                    False,
                    f"action {index + 1}: {exc.message} ({exc.code})",
                )
            )
            return Replay(data, steps, None, game.result, checks)
        steps.append(_replay_step(index + 1, action.seat, state.history[-1][1], before, state))
    checks.append(
        ReplayCheck(
            "actions",
            _("Actions"),
            True,
            _("All %(count)d actions are legal.") % {"count": len(record.actions)},
        )
    )

    settlement = None
    if state.is_terminal:
        engine = settle(state, base=record.base)
        settlement = {**engine.to_json(), "cards_left": list(engine.cards_left)}
        stored = game.result or {}
        same = game.result is not None and all(
            stored.get(key) == settlement[key] for key in _RESULT_KEYS
        )
        checks.append(
            ReplayCheck(
                "result",
                _("Result"),
                same,
                _("The engine's result equals the stored result.")
                if same
                else _("Engine: %(engine)s; stored: %(stored)s")
                % {
                    "engine": {key: settlement[key] for key in _RESULT_KEYS},
                    "stored": None
                    if game.result is None
                    else {key: stored.get(key) for key in _RESULT_KEYS},
                },
            )
        )
    elif game.status == Game.Status.FINISHED or game.result is not None:
        checks.append(
            ReplayCheck(
                "result",
                _("Result"),
                False,
                _("The game is marked finished, but its actions do not end it."),
            )
        )
    if game.settled_at is not None:
        checks.append(_ledger_check(game))
    return Replay(data, steps, settlement, game.result, checks)


def _replay_step(
    number: int, seat: int | None, move: Move | None, before: GameState, after: GameState
) -> ReplayStep:
    players = after.players
    drawn = []
    for position in range(players):
        gained = after.hands[position] & ~before.hands[position]
        drawn.append(format_cards(cards_from_mask(gained)))
    table = None
    if after.table is not None:
        table = {
            **after.table.to_json(),
            "as": after.table.combo.ranks_text(),
            "label": COMBO_KIND_LABELS[after.table.combo.kind.value],
        }
    wild = False
    if move is None:
        kind, cards, meaning, text = "deal", "", "", ""
    elif isinstance(move, Play):
        assert move.combo is not None
        kind, cards, meaning, text = (
            "play",
            format_cards(move.cards),
            move.combo.ranks_text(),
            str(move),
        )
        wild = move.names_meaning() or any(card.rank.is_joker for card in move.cards)
    else:
        kind, cards, meaning, text = "pass", "", "", "pass"
    return ReplayStep(
        number=number,
        seat=seat,
        kind=kind,
        cards=cards,
        meaning=meaning,
        wild=wild,
        text=text,
        hands=tuple(format_cards(after.hand(position)) for position in range(players)),
        drawn=tuple(drawn),
        table=table,
        multiplier=after.multiplier,
        stock=after.stock_count,
        to_move=after.to_move,
        winner=after.winner,
    )


def _ledger_check(game: Game) -> ReplayCheck:
    """The game's ledger rows sum to zero; a player's wallet got their seat's coins, and the
    house's wallet the bot seats' coins together. Keys: user ids, and ``"house"``."""
    moved: dict[int | str, int] = {}
    for user_id, is_house, amount in LedgerEntry.objects.filter(
        game=game, reason=LedgerReason.GAME
    ).values_list("wallet__user_id", "wallet__is_house", "amount"):
        key = "house" if is_house else user_id
        moved[key] = moved.get(key, 0) + amount
    stored: dict[int | str, int] = {}
    for player in game.players.all():
        key = "house" if player.user_id is None else player.user_id
        stored[key] = stored.get(key, 0) + (player.coins or 0)
    total = sum(moved.values())
    same = all(moved.get(key, 0) == coins for key, coins in stored.items()) and set(moved) <= set(
        stored
    )
    ok = total == 0 and same
    return ReplayCheck(
        "ledger",
        _("Ledger"),
        ok,
        _("The game's ledger rows sum to zero and match each player's coins.")
        if ok
        else _("Ledger rows: %(moved)s (sum %(total)s); stored coins: %(stored)s")
        % {"moved": moved, "total": total, "stored": stored},
    )


# Tables ------------------------------------------------------------------------------------------


def table_get_for_user(
    *, user: AbstractBaseUser | AnonymousUser, table_id: int | str, invite_code: str | None = None
) -> tuple[Table, int | None]:
    """The table and ``user``'s seat at it (None for a spectator), if ``user`` may see it.

    The one access check for a table's page and its websocket. A player seated at the table gets
    their seat; anyone signed in may watch a public table; a private table is for its seated
    players, and for whoever has its invite code while it is open. Raises ``Table.DoesNotExist``
    otherwise, the same as for a table that does not exist.
    """
    try:
        pk = int(table_id)
    except (TypeError, ValueError):
        raise Table.DoesNotExist(f"no table {table_id!r}") from None
    table = Table.objects.select_related("room").filter(pk=pk).first()
    if table is None or not user.is_authenticated:
        raise Table.DoesNotExist(f"no table {pk} for this user")
    seat = table.seats.filter(user_id=user.pk).values_list("position", flat=True).first()
    if seat is not None:
        return table, seat
    if not table.is_private:
        return table, None
    # Who played the table's last game may still see how it ended after leaving the table.
    last = table_current_game(table=table)
    if last is not None and last.is_over and last.players.filter(user_id=user.pk).exists():
        return table, None
    if (
        isinstance(invite_code, str)
        and table.invite_code
        and table.status != Table.Status.CLOSED
        and secrets.compare_digest(invite_code.encode(), table.invite_code.encode())
    ):
        return table, None
    raise Table.DoesNotExist(f"no table {pk} for this user")


def table_of_user(*, user: AbstractBaseUser | AnonymousUser) -> tuple[Table, int] | None:
    """The table (not closed) where ``user`` sits, and their seat; None when they sit nowhere."""
    if not user.is_authenticated:
        return None
    seat = (
        Seat.objects.select_related("table__room")
        .filter(user_id=user.pk)
        .exclude(table__status=Table.Status.CLOSED)
        .first()
    )
    return None if seat is None else (seat.table, seat.position)


def tables_to_watch(*, room: Room, limit: int = 20) -> list[dict[str, Any]]:
    """The public tables of ``room`` that are open, playing ones first, newest first: each with
    its players' names (bots as such) and whether a game is being played, for the room page."""
    tables = (
        Table.objects.filter(room=room, is_private=False)
        .exclude(status=Table.Status.CLOSED)
        .prefetch_related("seats__user")
        .order_by(
            Case(When(status=Table.Status.PLAYING, then=Value(0)), default=Value(1)),
            "-created_at",
            "-pk",
        )[:limit]
    )
    rows = []
    for table in tables:
        seats = sorted(table.seats.all(), key=lambda seat: seat.position)
        rows.append(
            {
                "table": table,
                "playing": table.status == Table.Status.PLAYING,
                "players": [seat.user.get_username() for seat in seats if seat.user is not None],
                "bots": sum(1 for seat in seats if seat.is_bot),
                "free": sum(1 for seat in seats if seat.user is None and not seat.is_bot),
            }
        )
    return rows


def tables_to_fill_with_bots(*, now: datetime | None = None) -> QuerySet[Table]:
    """Public waiting tables whose players have waited ``BOT_FILL_SECONDS`` for the free seats
    by ``now``: the ones ``table_fill_with_bots`` would fill, oldest wait first."""
    now = now or timezone.now()
    return Table.objects.filter(
        is_private=False,
        status=Table.Status.WAITING,
        waiting_since__lte=now - timedelta(seconds=settings.BOT_FILL_SECONDS),
    ).order_by("waiting_since", "pk")


def tables_with_players_not_ready(*, now: datetime) -> QuerySet[Table]:
    """Waiting tables with a player who has not pressed 再来一局 within ``READY_SECONDS`` of the
    end of the table's last game by ``now``: the ones ``table_stand_up_not_ready`` would free
    seats at."""
    last_end = Game.objects.filter(table=OuterRef("pk")).order_by("-number").values("finished_at")
    not_ready = Seat.objects.filter(table=OuterRef("pk"), user__isnull=False, ready=False)
    return (
        Table.objects.filter(status=Table.Status.WAITING)
        .filter(Exists(not_ready))
        .annotate(last_finished_at=Subquery(last_end[:1]))
        .filter(last_finished_at__lte=now - timedelta(seconds=settings.READY_SECONDS))
        .order_by("last_finished_at", "pk")
    )


def games_with_a_turn_due(*, now: datetime) -> QuerySet[Game]:
    """Games being played whose turn deadline has passed by ``now``, longest overdue first: the
    ones ``game_turn_due`` would act in (a bot's move, 托管, or a player's time running out)."""
    return Game.objects.filter(status=Game.Status.PLAYING, turn_deadline__lte=now).order_by(
        "turn_deadline", "pk"
    )


def table_current_game(*, table: Table) -> Game | None:
    """The table's latest game: the one being played, or the last one played."""
    return table.games.order_by("-number").first()


def table_version(*, table: Table, game: Game | None = None, events: int | None = None) -> str:
    """A text that changes with every change of the table's seats or status and with every
    action stored in its current game: clients compare it to drop stale updates and actions."""
    if game is None:
        game = table_current_game(table=table)
    if game is not None and events is None:
        events = game.events.count()
    return f"{table.version}.{0 if game is None else game.pk}.{events or 0}"


def play_hints(state: GameState) -> list[dict[str, str]]:
    """The plays the player to move could make, in the order the Hint button offers them: the
    bot's choice first (when it plays), then the others from the lowest, one per set of cards.
    Each is ``{"cards": "3s 4h", "as": "3 4"}``. Empty when nothing can be played."""
    legal = [move for move in state.legal_moves() if isinstance(move, Play)]
    if not legal:
        return []
    choice = choose_for(state, SensiblePolicy())
    ordered = ([choice] if isinstance(choice, Play) else []) + sorted(
        legal, key=lambda move: (move.combo.sort_key if move.combo else (0, 0, 0), move.mask)
    )
    hints: list[dict[str, str]] = []
    seen: set[int] = set()
    for move in ordered:
        if move.mask in seen:
            continue
        seen.add(move.mask)
        assert move.combo is not None
        hints.append({"cards": format_cards(move.cards), "as": move.combo.ranks_text()})
    return hints


def play_meanings(state: GameState, cards: Play) -> list[str]:
    """The meanings (``"4 5 6"``) ``cards`` may legally be played as now, when it has any."""
    return [
        move.combo.ranks_text()
        for move in state.legal_moves()
        if isinstance(move, Play) and move.mask == cards.mask and move.combo is not None
    ]


@dataclasses.dataclass(frozen=True)
class TableRows:
    """The rows a table's view is made of, apart from the current game's actions: its seats,
    its current game and that game's players, and the players' balances. None of them change
    while a game is being played, so a listener may keep them from one move to the next."""

    seats: list[Seat]
    game: Game | None
    players: dict[int, GamePlayer]
    balances: dict[int, int]


def table_rows(
    *, table: Table, game: Game | None = None, seats: list[Seat] | None = None
) -> TableRows:
    """The rows of ``table``'s view; ``game`` and ``seats`` (by position, with their users),
    when given, are its current game and its seats as just read."""
    if seats is None:
        seats = list(table.seats.select_related("user").order_by("position"))
    if game is None:
        game = table_current_game(table=table)
    players = {} if game is None else {p.seat: p for p in game.players.select_related("user")}
    balances = dict(
        Wallet.objects.filter(
            user_id__in=[s.user_id for s in seats if s.user_id is not None]
        ).values_list("user_id", "balance")
    )
    return table_rows_keep(table=table, game=game, seats=seats, players=players, balances=balances)


def table_rows_keep(
    *,
    table: Table,
    game: Game | None,
    seats: list[Seat],
    players: dict[int, GamePlayer],
    balances: dict[int, int],
) -> TableRows:
    """The rows of ``table``'s view from rows just read: the players and balances of a game
    being played are kept for its next moves (``table_rows_kept``)."""
    if game is not None and game.status == Game.Status.PLAYING:
        _players_and_balances.put(_rows_key(table, game), (players, balances))
    return TableRows(seats=seats, game=game, players=players, balances=balances)


def _rows_key(table: Table, game: Game) -> tuple[Any, ...]:
    return (table.pk, table.version, game.pk, game.seed_commitment)


#: The players and balances of games being played, by table, table version and game: neither
#: changes while a game goes on (coins move when it is settled, and the frames after that read
#: them anew), so the frames after each move need not read them again. A balance changed during
#: a game some other way (a relief grant) shows from the table's next change.
_players_and_balances: LruCache[tuple[dict[int, GamePlayer], dict[int, int]]] = LruCache(4096)


def table_rows_during_game(*, table: Table, game: Game, seats: list[Seat]) -> TableRows:
    """``table_rows`` for the frames after a move in ``game``, which is being played; ``seats``
    are the table's seats as the move read them, with their users."""
    kept = table_rows_kept(table=table, game=game, seats=seats)
    return kept if kept is not None else table_rows(table=table, game=game, seats=seats)


def table_rows_kept(*, table: Table, game: Game, seats: list[Seat]) -> TableRows | None:
    """``table_rows_during_game`` if the process keeps the game's players and balances, without
    reading them: None otherwise."""
    known = _players_and_balances.get(_rows_key(table, game))
    if known is None:
        return None
    players, balances = known
    return TableRows(seats=seats, game=game, players=players, balances=balances)


@dataclasses.dataclass(frozen=True)
class SharedView:
    """What ``table_view`` shows every viewer alike, computed once for all of a table's viewers
    (``table_view_shared``): the rows and position it is made of, and the view without the parts
    that depend on the viewer."""

    rows: TableRows
    state: GameState | None
    view: dict[str, Any]
    game: dict[str, Any] | None
    #: Parts of the frame that are the same for every viewer, as rendered once for all.
    html: dict[str, Any] = dataclasses.field(default_factory=dict)


def table_view_shared(
    *, table: Table, rows: TableRows | None = None, state: GameState | None = None
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

    game_data: dict[str, Any] | None = None
    last_actions: dict[int, dict[str, Any]] = {}
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
                        "name": _game_player_name(p, by_position.get(p.seat)),
                        "cards_left": p.cards_left,
                        "spring": p.spring,
                        "nominal": p.nominal,
                        "coins": p.coins,
                        # 亮牌: once the game is over its hands are public, as on its record.
                        "hand": " ".join(map(str, state.hand(p.seat))),
                    }
                    for p in sorted(players.values(), key=lambda p: p.seat)
                ],
            }
        for acting, move in state.round_actions:
            last_actions[acting] = dict(move.to_json())

    playing = game is not None and not game.is_over and state is not None
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
                # A freed seat's count belongs to the player who left it.
                "cards": None if state is None or empty else state.hand_count(s.position),
                "dealer": game is not None and game.dealer == s.position,
                "to_move": playing and state is not None and state.to_move == s.position,
                "auto_play": s.user_id is not None and s.auto_play,
                "leaves_after_game": playing and s.user_id is not None and s.leaves_after_game,
                "last_action": None if empty else last_actions.get(s.position),
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
        "stock": None if state is None else state.stock_count,
        "multiplier": None if state is None else state.multiplier,
        "game": game_data,
    }
    return SharedView(rows=rows, state=state, view=view, game=game_data)


def _game_player_name(player: GamePlayer, seat: Seat | None) -> str:
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
    state: GameState | None = None,
    shared: SharedView | None = None,
) -> dict[str, Any]:
    """The table as ``seat`` may see it (``None``: a spectator), JSON-safe, for pages and sockets.

    The seats (name, bot, coins of players, cards held, dealer, to move, the last action in the
    current round, ready for the next game), and the current or last game: the engine's
    ``view_for(seat)`` (a seat's own hand, never another's, nor the stock's order), the cards
    left in the stock and the multiplier; once the game is over, the settlement per seat and the
    seed. A seat sees the hand of the game only if the same player held that seat in it.
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
            "view": state.view_for(seat if own else None, history=False),
        }
        if own and not game.is_over and state.to_move == seat:
            game_data["hints"] = play_hints(state)
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
