"""Writes to games: seat players at tables, start a game, act in it (people and bots), settle it,
and open and close disputes.

Every function here is atomic, takes keyword-only arguments and locks the rows it changes. Coins
move only through ``accounts.services.coins_move``. Locks are always taken in the same order
(a user row, then tables by primary key; the game row, then its table, then wallets by primary
key) so that concurrent writers queue instead of deadlocking. Listeners hear about a change only
after the transaction that made it has committed.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import logging
import secrets
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import LedgerReason, Wallet
from accounts.services import coins_move, house_wallet
from games.bots import SensiblePolicy, choose_for
from games.rules import AmbiguousPlayError, IllegalMoveError, NotationError, format_cards
from games.rules.gandengyan import (
    ENGINE,
    GameState,
    GandengyanRules,
    deal_from_seed,
    settle,
)
from games.rules.gandengyan.moves import move_from_json
from games.rules.gandengyan.records import Action

from .models import Dispute, Game, GameEvent, GamePlayer, Room, Seat, Table
from .prepared import PreparedSelect, insert_row, update_row
from .seeds import SEED_BITS, new_seed
from .selectors import (
    TableRows,
    game_initial_state,
    game_position_remember,
    game_state,
    table_current_game,
    table_rows_during_game,
    table_version,
)

if TYPE_CHECKING:
    from accounts.models import User

logger = logging.getLogger(__name__)

DISPUTE_REASON_MAX = 2000


class GameStartRefused(Exception):
    """A game cannot start as asked; nothing was written. ``code`` is stable, for programs."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class GameActionRefused(Exception):
    """An action that is not allowed now; nothing was written.

    ``code`` is the engine's stable code (``not_your_turn``, ``does_not_beat``, ``game_over`` ...),
    or ``bad_action`` for an action that is not written as ``{"play": ..., "as": ...}`` or
    ``{"pass": true}``. ``message`` is the engine's message. ``choices`` lists the meanings to
    choose from when the code is ``choose_meaning``.
    """

    def __init__(self, code: str, message: str, choices: Sequence[str] = ()) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.choices = tuple(choices)


class DisputeRefused(Exception):
    """A dispute cannot be opened or closed as asked; nothing was written.

    ``code`` is stable, for programs; ``message`` is for people, in the active language.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def seed_commitment(seed: int) -> str:
    """SHA-256 (hex) of the seed's 32 big-endian bytes: public while the seed stays secret."""
    return hashlib.sha256(seed.to_bytes(SEED_BITS // 8, "big")).hexdigest()


def table_group_name(table_id: int) -> str:
    """The channel-layer group that hears about every change at one table: its seats, its
    status and every action of its games."""
    return f"table-{table_id}"


def _broadcast_on_commit(
    *,
    table_id: int,
    message: dict[str, Any],
    frames: Callable[[], dict[str, Any]] | None = None,
) -> None:
    """Tell the table's group about a change once (and only if) the transaction commits.

    The message says what changed, and carries the frame of each player seated at the table,
    rendered once after the commit (``table_frames.render_player_frames``): each socket forwards
    its player's frame instead of reading and rendering the table itself. ``frames`` renders
    them from what the caller has read already (a move); by default the table is read anew. A
    socket that cannot use them (a spectator, another language) renders its own view."""

    def send() -> None:
        from . import table_frames  # presentation: needed only after a commit

        layer = get_channel_layer()
        if layer is None:
            return
        payload = table_notice(
            table_id=table_id,
            message=message,
            frames=frames or functools.partial(table_frames.frames_of_table, table_id=table_id),
        )
        collected = getattr(_notices, "collected", None)
        if collected is not None:
            collected.append((table_group_name(table_id), payload))
            return
        try:
            async_to_sync(layer.group_send)(table_group_name(table_id), payload)
        except Exception:  # the change is committed; a lost notice must not undo it
            logger.exception("could not broadcast an update of table %s", table_id)

    transaction.on_commit(send)


def table_notice(
    *, table_id: int, message: dict[str, Any], frames: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """The table group's message about a committed change: ``message`` and the players' frames
    (without them, when they could not be rendered: the sockets then render their own)."""
    payload = {"type": "table.update", "table": table_id, **message}
    try:
        payload.update(frames())
    except Exception:  # the sockets render for themselves instead
        logger.exception("could not render the frames of table %s", table_id)
    return payload


_notices = threading.local()


@contextmanager
def notices_collected() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Collect, instead of sending, the notices of the changes committed in this block on this
    thread, as ``(group, message)``: for a caller on the event loop's side (a socket), which
    sends them itself once the call is back, rather than have this thread wait for the loop."""
    outer = getattr(_notices, "collected", None)
    _notices.collected = collected = []
    try:
        yield collected
    finally:
        _notices.collected = outer


# Starting ----------------------------------------------------------------------------------------


@transaction.atomic
def game_start(
    *,
    table: Table,
    players: Sequence[User | None],
    dealer: int | None = None,
    seed: int | None = None,
) -> Game:
    """Deal a new game at ``table`` for ``players`` (a user, or None for a bot, by seat).

    The deal comes from a fresh 256-bit seed (``games.seeds.new_seed``) unless ``seed`` is
    given, with the room's rules. Only the seed's SHA-256 is public until the game ends. The
    first game at a table lets the seed pick the dealer; later games are dealt by the winner of
    the last game that had one (an aborted game has none). An explicit ``dealer`` overrides both.

    Raises ``GameStartRefused`` when the table is closed or still playing, when the number of
    players does not match the rules, when a player is listed twice or has no wallet, or for a bad
    seed or dealer.
    """
    locked = Table.objects.select_for_update().select_related("room").get(pk=table.pk)
    if locked.status == Table.Status.CLOSED:
        raise GameStartRefused("table_closed", _("This table is closed."))
    if Game.objects.filter(table=locked, status=Game.Status.PLAYING).exists():
        raise GameStartRefused("game_in_progress", _("A game is still being played here."))
    game = _game_deal(table=locked, players=players, dealer=dealer, seed=seed)
    locked.save(update_fields=["status"])
    table.status = locked.status
    return game


#: ``_game_deal``'s ``last`` when the caller has not read the table's latest game.
_NOT_READ: Any = object()


def _game_deal(
    *,
    table: Table,
    players: Sequence[User | None],
    dealer: int | None = None,
    seed: int | None = None,
    last: Game | None = _NOT_READ,
    seats: list[Seat] | None = None,
) -> Game:
    """``game_start`` at ``table``, locked, open and with no game being played; sets its status
    (the caller saves it). ``last``: its latest game, and ``seats``: its seats with their users
    by position (the table's room on each), when the caller has them: the deal, the first
    turn's deadline and the frames after the commit then read neither again."""
    locked = table
    rules = GandengyanRules.from_dict(locked.room.rules)
    if len(players) != rules.players:
        raise GameStartRefused(
            "wrong_player_count",
            _("This game needs %(count)d players.") % {"count": rules.players},
        )
    humans = [user for user in players if user is not None]
    if len({user.pk for user in humans}) != len(humans):
        raise GameStartRefused("player_twice", _("A player cannot take two seats."))
    with_wallet = set(
        Wallet.objects.filter(user__in=[user.pk for user in humans]).values_list(
            "user_id", flat=True
        )
    )
    if any(user.pk not in with_wallet for user in humans):
        raise GameStartRefused("no_wallet", _("Every player needs a wallet."))

    if seed is None:
        seed = new_seed()
    elif type(seed) is not int or not 0 <= seed < 2**SEED_BITS:
        raise GameStartRefused("bad_seed", "a seed is a whole number of 256 bits")
    if last is _NOT_READ:
        last = Game.objects.filter(table=locked).order_by("-number").first()
    if dealer is None:
        # The winner of the last game that had one (an aborted game has none).
        last_won = last
        if last is not None and last.winner is None:
            last_won = (
                Game.objects.filter(table=locked, winner__isnull=False).order_by("-number").first()
            )
        if last_won is not None:
            dealer = last_won.winner
    elif type(dealer) is not int or not 0 <= dealer < rules.players:
        raise GameStartRefused("bad_dealer", f"dealer must be a seat from 0 to {rules.players - 1}")
    hands, stock, dealer = deal_from_seed(seed, rules, dealer)

    game = Game(
        table=locked,
        number=1 if last is None else last.number + 1,
        status=Game.Status.PLAYING,
        seed=f"{seed:064x}",
        seed_commitment=seed_commitment(seed),
        dealer=dealer,
        rules=rules.to_dict(),
        base=locked.room.base,
        hands=[format_cards(hand) for hand in hands],
        stock=" ".join(str(card) for card in stock),
    )
    deal = game_initial_state(game=game)
    now = timezone.now()
    game.to_move = deal.to_move
    game.turn_started_at = now
    if seats is not None:
        game.turn_deadline = turn_deadline(game=game, seat=deal.to_move, now=now, seats=seats)
    # The table is locked and the database guards the unique game number, so the checks of
    # the row skip the queries of its key and constraints.
    game.full_clean(exclude=["table"], validate_unique=False, validate_constraints=False)
    game.save()
    # One row per seat, computed here; the database's unique (game, seat) guards them.
    GamePlayer.objects.bulk_create(
        GamePlayer(game=game, seat=position, user=user, is_bot=user is None)
        for position, user in enumerate(players)
    )
    if seats is None:  # the first turn's clock looks the seat up (now that the players are in)
        game.turn_deadline = turn_deadline(game=game, seat=game.to_move, now=now)
        game.save(update_fields=["turn_deadline"])
    game_position_remember(game=game, state=deal, event=None)
    locked.status = Table.Status.PLAYING
    _broadcast_on_commit(
        table_id=locked.pk,
        message={"kind": "started", "game": game.pk},
        frames=_frames_from_rows(table=locked, seats=seats, last=game),
    )
    return game


# Turns and their deadlines -----------------------------------------------------------------------
#
# Every turn has a deadline, kept on the game row: a bot's short pause, or the time the room gives
# a player (``Room.turn_seconds``); a player in 托管 (auto-play) gets a bot's pause. When it
# passes, ``game_turn_due`` acts for the seat. After ``AUTO_PLAY_AFTER_TIMEOUTS`` timeouts in a
# row the seat goes to 托管 until the player takes it back.

AUTO_PLAY_AFTER_TIMEOUTS = 2


def turn_deadline(
    *, game: Game, seat: int | None, now: datetime, seats: list[Seat] | None = None
) -> datetime | None:
    """When the server acts if ``seat`` has not moved in ``game`` (None when no one is to move).

    ``seats``: the table's seats with the table and its room, when the caller has them."""
    if seat is None:
        return None
    known = next((row for row in seats or () if row.position == seat), None)
    if known is not None:
        row: dict[str, Any] | None = {
            "is_bot": known.is_bot,
            "auto_play": known.auto_play,
            "user_id": known.user_id,
            "table__room__turn_seconds": known.table.room.turn_seconds,
        }
    else:
        row = (
            Seat.objects.filter(table_id=game.table_id, position=seat)
            .values("is_bot", "auto_play", "user_id", "table__room__turn_seconds")
            .first()
        )
    if row is not None and (row["is_bot"] or row["user_id"] is not None):
        is_bot = row["is_bot"]
    else:  # a game played without seats at its table (as tests and tools start them)
        is_bot = game.players.filter(seat=seat, is_bot=True).exists()
    if is_bot or (row is not None and row["auto_play"]):
        return now + timedelta(seconds=settings.BOT_MOVE_DELAY_SECONDS)
    seconds = (
        row["table__room__turn_seconds"]
        if row is not None
        else Room.objects.filter(tables=game.table_id).values_list("turn_seconds", flat=True)[0]
    )
    return now + timedelta(seconds=seconds)


@transaction.atomic
def game_turn_due(*, game: Game, now: datetime | None = None) -> GameEvent | None:
    """Act for the seat to move in ``game`` if its deadline has passed by ``now``.

    A bot moves; a player in 托管 is played for by the same bot; a player whose time ran out
    passes (or, leading, plays the smallest lead), and after ``AUTO_PLAY_AFTER_TIMEOUTS`` such
    turns in a row the seat goes to 托管. The game row is locked (rows another runner holds are
    skipped) and the deadline checked under the lock, so a deadline fires once however many
    runners look at it. Returns the event, or None when nothing was due.
    """
    now = now or timezone.now()
    locked = (
        Game.objects.select_for_update(skip_locked=True)
        .filter(pk=game.pk, status=Game.Status.PLAYING)
        .first()
    )
    if locked is None or locked.turn_deadline is None or locked.turn_deadline > now:
        return None
    seat = locked.to_move
    player = locked.players.filter(seat=seat).first()
    if seat is None or player is None:
        return None
    state = game_state(game=locked)
    kind = "action"
    if player.is_bot:
        move, source = choose_for(state, SensiblePolicy()), GameEvent.Source.BOT
    else:
        row = (
            Seat.objects.select_for_update()
            .filter(table_id=locked.table_id, user_id=player.user_id)
            .first()
        )
        if row is not None and row.auto_play:
            move, source = choose_for(state, SensiblePolicy()), GameEvent.Source.AUTO_PLAY
        else:
            move, source = ENGINE.timeout_action(state, seat), GameEvent.Source.TIMEOUT
            if row is not None:
                row.timeouts += 1
                if row.timeouts >= AUTO_PLAY_AFTER_TIMEOUTS:
                    row.auto_play = True
                    kind = "seats"
                row.save(update_fields=["timeouts", "auto_play"])
    return _act_locked(
        game=game,
        locked=locked,
        state=state,
        seat=seat,
        action=dict(move.to_json()),
        source=source,
        kind=kind,
    )


@transaction.atomic
def table_set_auto_play(*, user: User, table: Table, on: bool) -> None:
    """Put the player's seat at ``table`` in 托管 (``on``) or take it back.

    Taking it back also forgets the timeouts in a row. When it is the player's turn, 托管 brings
    the deadline forward to a bot's pause; taking the seat back gives the turn the room's time
    counted from the turn's start, never more, so switching back and forth cannot hold up the
    table. Asking for what already holds changes nothing. Raises ``TableRefused`` for a player
    who does not sit there.
    """
    # The game row first, then the seat: the order the runner takes them in, so that a switch
    # at the moment the turn's deadline fires waits instead of deadlocking with it.
    game = (
        Game.objects.select_for_update()
        .filter(table_id=table.pk, status=Game.Status.PLAYING)
        .first()
    )
    row = Seat.objects.select_for_update().filter(table_id=table.pk, user_id=user.pk).first()
    if row is None:
        raise TableRefused("not_seated", _("You are not sitting at this table."))
    if row.auto_play == on:
        return
    row.auto_play = on
    row.timeouts = 0
    row.save(update_fields=["auto_play", "timeouts"])
    if game is not None and game.to_move == row.position:
        now = timezone.now()
        start = game.turn_started_at or now
        deadline = turn_deadline(game=game, seat=row.position, now=now if on else start)
        if on and game.turn_deadline is not None and deadline is not None:
            deadline = min(deadline, game.turn_deadline)
        game.turn_deadline = deadline
        game.save(update_fields=["turn_deadline"])
    _broadcast_on_commit(table_id=table.pk, message={"kind": "seats"})


# Playing -----------------------------------------------------------------------------------------


@transaction.atomic
def game_act(*, game: Game, seat: int, action: dict[str, Any]) -> GameEvent:
    """Make ``seat``'s action in ``game``: ``{"play": "5s 6h BJ", "as": "4 5 6"}`` or
    ``{"pass": true}`` (``as`` is optional).

    The game row is locked and the position rebuilt from the stored events, so concurrent
    actions queue and each is checked against the position the previous one left. The action is
    stored in canonical form, numbered next. When it ends the game, the game is marked finished
    and settled in the same transaction. Raises ``GameActionRefused`` (nothing written) for an
    action out of turn, an illegal one, one that is badly written, or one after the end.
    """
    locked = Game.objects.select_for_update().get(pk=game.pk)
    if locked.status != Game.Status.PLAYING:
        raise GameActionRefused("game_over", "the game is over: no more actions")
    return _act_locked(
        game=game, locked=locked, state=game_state(game=locked), seat=seat, action=action
    )


def move_planned(
    *,
    locked: Game,
    state: GameState,
    seat: int,
    action: dict[str, Any],
    source: str = GameEvent.Source.PLAYER,
    action_id: str = "",
    rows: TableRows | None = None,
) -> tuple[GameEvent, GameState, list[str]]:
    """The checks and the rows of ``seat``'s ``action`` in the game being played whose row
    ``locked`` is locked, at position ``state``: the event to store (not stored yet), the position
    after it, and the fields of ``locked`` it changed (set on ``locked``, not written yet).
    Raises ``GameActionRefused``. ``rows``: as for ``_act_locked``."""
    if not isinstance(action, dict) or set(action) - {"play", "pass", "as"}:
        raise GameActionRefused(
            "bad_action", 'an action is {"play": "cards", "as": "ranks"} or {"pass": true}'
        )
    try:
        move = move_from_json(action)
    except NotationError as exc:
        raise GameActionRefused("bad_action", str(exc)) from exc
    try:
        resolved = state.resolve(seat, move)
        after = state.apply(seat, resolved)
    except IllegalMoveError as exc:
        raise GameActionRefused(exc.code, exc.message) from exc

    stored = Action(seat, resolved).to_json()
    del stored["seat"]
    # Every field is computed here, and the database's unique (game, number) constraint guards
    # the numbering, so the event skips full_clean's queries on this hot path.
    event = GameEvent(
        game=locked,
        number=state.log_length + 1,
        seat=seat,
        action=stored,
        source=source,
        action_id=action_id,
    )
    now = timezone.now()
    locked.position_id = uuid.uuid4()
    locked.to_move = after.to_move
    locked.turn_started_at = None if after.is_terminal else now
    locked.turn_deadline = (
        None
        if after.is_terminal
        else turn_deadline(
            game=locked, seat=after.to_move, now=now, seats=None if rows is None else rows.seats
        )
    )
    fields = ["position_id", "to_move", "turn_started_at", "turn_deadline"]
    if after.is_terminal:
        locked.status = Game.Status.FINISHED
        locked.winner = after.winner
        locked.finished_at = timezone.now()
        fields += ["status", "winner", "finished_at"]
    return event, after, fields


def _act_locked(
    *,
    game: Game,
    locked: Game,
    state: GameState,
    seat: int,
    action: dict[str, Any],
    source: str = GameEvent.Source.PLAYER,
    kind: str = "action",
    action_id: str = "",
    rows: TableRows | None = None,
) -> GameEvent:
    """``game_act`` on the locked row of a game being played and its current position.

    ``source`` says who made the move (the player, a bot, the server when time ran out, or
    托管); ``kind`` is what listeners hear when the game goes on (``action``, or ``seats`` when
    a seat's state changed with the move, so that they read the seats again). ``rows``, when
    the caller has read them in this transaction: the table's rows (``table_rows_during_game``),
    whose seats come with their users and the table with its room."""
    event, after, fields = move_planned(
        locked=locked,
        state=state,
        seat=seat,
        action=action,
        source=source,
        action_id=action_id,
        rows=rows,
    )
    insert_row(event)
    update_row(locked, fields)

    if after.is_terminal:
        Table.objects.filter(pk=locked.table_id, status=Table.Status.PLAYING).update(
            status=Table.Status.WAITING
        )
        game_settle(game=locked)
        _leave_after_game(table_id=locked.table_id)
    game.status, game.winner, game.finished_at = locked.status, locked.winner, locked.finished_at
    game.result, game.settled_at = locked.result, locked.settled_at
    game.to_move, game.turn_started_at = locked.to_move, locked.turn_started_at
    game.turn_deadline = locked.turn_deadline
    # Not the position id: the caller's row names the position before this move until it is
    # read again after the commit, so a rollback cannot leave it naming an undone position.
    game_position_remember(game=locked, state=after, event=event)
    frames = None
    if kind == "action" and not after.is_terminal and rows is not None:
        frames = functools.partial(
            _frames_after_move, rows=rows_with_game(rows, locked), state=after
        )
    _broadcast_on_commit(
        table_id=locked.table_id,
        message={
            "kind": "finished" if after.is_terminal else kind,
            "game": locked.pk,
            "number": event.number,
        },
        frames=frames,
    )
    return event


def rows_with_game(rows: TableRows, game: Game) -> TableRows:
    """``rows`` with a copy of ``game``'s row as it is now, for the frames after a move: later
    moves of the same transaction change the row itself."""
    return dataclasses.replace(rows, game=copy.copy(game))


def _frames_after_move(*, rows: TableRows, state: GameState) -> dict[str, Any]:
    from .table_frames import render_player_frames  # presentation: needed only after a commit

    return render_player_frames(table=rows.seats[0].table, rows=rows, state=state)


# Settling ----------------------------------------------------------------------------------------


@transaction.atomic
def game_settle(*, game: Game) -> None:
    """Move the coins of a finished game, exactly once.

    The engine's ``settle`` gives each seat's nominal payment. Each seat plays for a wallet: a
    person for their own, a bot for the house's (系统庄家, ``accounts.services.house_wallet``),
    which so pays what bots lose and receives what bots win. The ledger rows of a game always
    sum to zero:

    - a loser pays ``min(nominal, what their wallet still has)``, in seat order: bot seats pay
      from the one house balance, so together they never pay more than it holds, and no balance
      goes below zero;
    - the winner receives exactly the sum the losers actually paid;
    - each wallet gets one ``game`` ledger row holding its net amount (none when the net is 0),
      the payments written before the receipts. A bot that loses to a bot pays the house what
      the house receives: no coin moves, but the two seats' ``coins`` show the payment.

    Each player's row gets ``cards_left``, ``spring``, ``nominal`` (the engine's payment,
    negative for a loser) and ``coins`` (what the seat paid or received, bots included), and
    ``game.result`` the engine's result with ``cards_left`` and ``coins`` added. The game row is
    locked and ``settled_at`` checked first, so a retry or a concurrent call does nothing; the
    ledger's unique constraint (one game row per wallet and game) is the last line of defence.
    Raises ``ValueError`` for a game that has not finished.
    """
    locked = Game.objects.select_for_update().get(pk=game.pk)
    if locked.settled_at is not None:
        game.result, game.settled_at = locked.result, locked.settled_at
        return
    if locked.status != Game.Status.FINISHED:
        raise ValueError(f"game {locked.pk} has not finished: there is nothing to settle")
    state = game_state(game=locked)
    settlement = settle(state, base=locked.base)
    players = list(locked.players.select_for_update().order_by("seat"))
    house_id = None
    if any(player.user_id is None for player in players):
        house_id = house_wallet().user_id
    # By seat, the user whose wallet the seat plays for: the player's own, the house's for a bot.
    owners = [house_id if player.user_id is None else player.user_id for player in players]
    # Every wallet of the game, locked in one order (by key) before any coin moves.
    wallets = {
        wallet.user_id: wallet
        for wallet in Wallet.objects.select_for_update()
        .filter(user_id__in=set(owners))
        .order_by("pk")
    }

    coins = [0] * len(players)
    left = {user_id: wallet.balance for user_id, wallet in wallets.items()}
    for player in players:
        nominal = settlement.payments[player.seat]
        if nominal < 0:
            paid = min(-nominal, left[owners[player.seat]])
            left[owners[player.seat]] -= paid
            coins[player.seat] = -paid
    coins[settlement.winner] = -sum(coins)
    net = dict.fromkeys(wallets, 0)
    for player in players:
        net[owners[player.seat]] += coins[player.seat]
    # Payments first, then receipts, so that no balance ever dips below zero.
    for user_id in sorted(net, key=lambda user_id: (net[user_id] > 0, wallets[user_id].pk)):
        if net[user_id] != 0:
            coins_move(
                wallet=wallets[user_id], amount=net[user_id], reason=LedgerReason.GAME, game=locked
            )

    for player in players:
        player.cards_left = settlement.cards_left[player.seat]
        player.spring = settlement.spring[player.seat]
        player.nominal = settlement.payments[player.seat]
        player.coins = coins[player.seat]
        player.save(update_fields=["cards_left", "spring", "nominal", "coins"])
    locked.result = {
        **settlement.to_json(),
        "cards_left": list(settlement.cards_left),
        "coins": coins,
    }
    locked.settled_at = timezone.now()
    locked.save(update_fields=["result", "settled_at"])
    game.result, game.settled_at = locked.result, locked.settled_at


# Disputes ----------------------------------------------------------------------------------------


@transaction.atomic
def dispute_open(*, user: User, game: Game, reason: str) -> Dispute:
    """A player's complaint about a game they played, once it is over.

    Raises ``DisputeRefused`` when ``user`` did not play the game, the game is still being
    played, the reason is empty or longer than 2,000 characters, or the player already has an
    open dispute about this game.
    """
    locked = Game.objects.select_for_update().get(pk=game.pk)
    if not locked.players.filter(user_id=user.pk).exists():
        raise DisputeRefused("not_a_player", _("Only a player of this game can dispute it."))
    if not locked.is_over:
        raise DisputeRefused("game_not_over", _("A game can be disputed only once it is over."))
    reason = (reason or "").strip()
    if not reason:
        raise DisputeRefused("reason_empty", _("Please say what went wrong."))
    if len(reason) > DISPUTE_REASON_MAX:
        raise DisputeRefused(
            "reason_too_long",
            _("Please keep the reason under %(max)s characters.") % {"max": DISPUTE_REASON_MAX},
        )
    if Dispute.objects.filter(game=locked, user_id=user.pk, status=Dispute.Status.OPEN).exists():
        raise DisputeRefused("already_open", _("You already have an open dispute about this game."))
    dispute = Dispute(game=locked, user=user, reason=reason)
    dispute.full_clean()
    dispute.save()
    return dispute


def _dispute_close_check(*, dispute: Dispute, staff: User, note: str) -> tuple[Dispute, str]:
    if not (staff.is_active and staff.is_staff):
        raise DisputeRefused("not_staff", _("Only staff can close a dispute."))
    locked = Dispute.objects.select_for_update().get(pk=dispute.pk)
    if locked.status != Dispute.Status.OPEN:
        raise DisputeRefused("not_open", _("This dispute is already closed."))
    note = (note or "").strip()
    if not note:
        raise DisputeRefused("note_empty", _("Please write a note to the player."))
    return locked, note


def _dispute_close(
    *, dispute: Dispute, locked: Dispute, status: str, staff: User, note: str, compensation: int
) -> Dispute:
    locked.status = status
    locked.staff = staff
    locked.note = note
    locked.compensation = compensation
    locked.resolved_at = timezone.now()
    locked.full_clean()
    locked.save(update_fields=["status", "staff", "note", "compensation", "resolved_at"])
    for field in ("status", "staff", "note", "compensation", "resolved_at"):
        setattr(dispute, field, getattr(locked, field))
    return locked


@transaction.atomic
def dispute_resolve(*, dispute: Dispute, staff: User, note: str, compensation: int = 0) -> Dispute:
    """Close an open dispute in the player's favour, with a note and optional compensation.

    A positive ``compensation`` is paid into the player's wallet as a ledger row with reason
    ``compensation``, naming the staff member and the game. Raises ``DisputeRefused`` when
    ``staff`` is not staff, the dispute is not open, the note is empty or the compensation is
    not a whole number ≥ 0.
    """
    locked, note = _dispute_close_check(dispute=dispute, staff=staff, note=note)
    if type(compensation) is not int or compensation < 0:
        raise DisputeRefused(
            "bad_compensation", _("Compensation is a whole number of coins, 0 or more.")
        )
    if compensation > 0:
        wallet = Wallet.objects.get(user_id=locked.user_id)
        coins_move(
            wallet=wallet,
            amount=compensation,
            reason=LedgerReason.COMPENSATION,
            game=locked.game,
            staff=staff,
            note=f"dispute {locked.pk}: {note}",
        )
    return _dispute_close(
        dispute=dispute,
        locked=locked,
        status=Dispute.Status.RESOLVED,
        staff=staff,
        note=note,
        compensation=compensation,
    )


@transaction.atomic
def dispute_reject(*, dispute: Dispute, staff: User, note: str) -> Dispute:
    """Close an open dispute without compensation, with a note that tells the player why.

    Raises ``DisputeRefused`` when ``staff`` is not staff, the dispute is not open or the note is
    empty.
    """
    locked, note = _dispute_close_check(dispute=dispute, staff=staff, note=note)
    return _dispute_close(
        dispute=dispute,
        locked=locked,
        status=Dispute.Status.REJECTED,
        staff=staff,
        note=note,
        compensation=0,
    )


# Tables ------------------------------------------------------------------------------------------
#
# A table waits until every seat is taken, plays a game, then waits again until every player at it
# is ready for the next one. Bots take the free seats once a player has waited
# ``BOT_FILL_SECONDS``; a table closes when its last player leaves. Whatever seats a player or
# starts a game locks the table row first; a service that also moves a player from another table
# locks the user row before any table, and both tables in the order of their keys. Listeners of
# ``table_group_name(table.pk)`` hear about every change after it has committed.

INVITE_CODE_BYTES = 12


class TableRefused(Exception):
    """A table action that is not allowed now; nothing was written.

    ``code`` is stable, for programs: ``room_closed``, ``no_wallet``, ``balance_too_low``,
    ``balance_too_high``, ``playing_elsewhere``, ``bad_invite``, ``table_closed``, ``table_full``,
    ``not_seated``, ``game_in_progress``. ``message`` is for people, in the active language.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _table_broadcast_on_commit(
    *, table: Table, kind: str, seats: list[Seat] | None = None, last: Game | None = None
) -> None:
    """Tell the table's group that ``kind`` changed. ``seats``: the table's seats with their
    users as the change leaves them, and ``last``, its latest game (not being played), for the
    frames, which then read only that game's players and the balances."""
    _broadcast_on_commit(
        table_id=table.pk,
        message={"kind": kind, "version": table.version},
        frames=_frames_from_rows(table=table, seats=seats, last=last),
    )


def _frames_from_rows(
    *, table: Table, seats: list[Seat] | None, last: Game | None
) -> Callable[[], dict[str, Any]] | None:
    """The players' frames after a change, from ``table``, its ``seats`` (with their users, by
    position) and its latest game ``last`` as the change left them; None without the seats (the
    frames then read the table anew)."""
    if seats is None:
        return None
    from . import table_frames  # presentation: needed only after a commit

    return functools.partial(table_frames.frames_of_table, table=table, seats=seats, last=last)


def _lock_user(user: User) -> None:
    """Queue concurrent table actions of one player (a double click, two tabs)."""
    get_user_model().objects.select_for_update().only("pk").get(pk=user.pk)


def _lock_tables(*table_ids: int | None) -> dict[int, Table]:
    """Lock tables in the order of their keys, so that two movers never wait for each other."""
    ids = sorted({pk for pk in table_ids if pk is not None})
    locked = (
        Table.objects.select_for_update(of=("self",))
        .select_related("room")
        .filter(pk__in=ids)
        .order_by("pk")
    )
    return {table.pk: table for table in locked}


def _seat_count(room: Room) -> int:
    return GandengyanRules.from_dict(room.rules).players


def _check_admitted(*, user: User, room: Room) -> None:
    """Refuse a player whose coins lie outside the room's range, or a closed room."""
    wallet = Wallet.objects.filter(user_id=user.pk).first()
    refusal = admission_refused(room=room, balance=None if wallet is None else wallet.balance)
    if refusal is not None:
        raise refusal


def admission_refused(*, room: Room, balance: int | None) -> TableRefused | None:
    """Why a player with ``balance`` coins (None: no wallet) may not play in ``room`` now, or
    None if they may."""
    if not room.is_open:
        return TableRefused(
            "room_closed",
            _("{room} is closed for now. Please choose another room.").format(room=room.name),
        )
    if balance is None:
        return TableRefused("no_wallet", _("You have no wallet yet."))
    if balance < room.min_coins:
        return TableRefused(
            "balance_too_low",
            _("{room} needs at least {minimum} coins to enter; you have {balance}.").format(
                room=room.name, minimum=f"{room.min_coins:,}", balance=f"{balance:,}"
            ),
        )
    if room.max_coins is not None and balance > room.max_coins:
        return TableRefused(
            "balance_too_high",
            _("{room} admits at most {maximum} coins; you have {balance}.").format(
                room=room.name, maximum=f"{room.max_coins:,}", balance=f"{balance:,}"
            ),
        )
    return None


#: A seat its player left: nothing of theirs (托管, timeouts) stays for the next one.
_FREED_SEAT: dict[str, Any] = {
    "user": None,
    "ready": False,
    "auto_play": False,
    "timeouts": 0,
    "leaves_after_game": False,
}


def _current_seat(user: User) -> Seat | None:
    """The player's seat at a table that is not closed (a seat left at a closed one is freed)."""
    Seat.objects.filter(user_id=user.pk, table__status=Table.Status.CLOSED).update(**_FREED_SEAT)
    return Seat.objects.select_related("table").filter(user_id=user.pk).first()


def _game_playing(table: Table) -> bool:
    return Game.objects.filter(table=table, status=Game.Status.PLAYING).exists()


def _table_changed(
    *, table: Table, kind: str, now: datetime | None = None, seats: list[Seat] | None = None
) -> str:
    """After a change of seats: close a table nobody is left at, keep ``waiting_since`` (a player
    at the table and a free seat beside them) and bump the version. ``table`` is locked;
    ``seats``, its seats as the change left them, when the caller has them.
    Returns what changed (``kind``, or ``closed``), for the caller to tell listeners."""
    if seats is None:
        seats = list(table.seats.all())
    if table_change_planned(table=table, seats=seats, now=now):
        table.seats.filter(is_bot=True).update(is_bot=False, ready=False)
        kind = "closed"
    table.save(update_fields=TABLE_CHANGE_FIELDS)  # the database checks them
    return kind


#: The fields of a table that a change of its seats sets (``table_change_planned``).
TABLE_CHANGE_FIELDS = ("status", "waiting_since", "version")


def table_change_planned(*, table: Table, seats: list[Seat], now: datetime | None = None) -> bool:
    """What a change of seats does to ``table`` (locked), whose ``seats`` are as the change left
    them: closed if nobody is left, ``waiting_since`` kept while a player sits beside a free
    seat, the version one up. Set on ``table``, not written; returns whether it closes."""
    humans = [seat for seat in seats if seat.user_id is not None]
    free = [seat for seat in seats if seat.user_id is None and not seat.is_bot]
    closes = not humans and table.status != Table.Status.CLOSED
    if closes:
        table.status = Table.Status.CLOSED
    if humans and free and table.status != Table.Status.CLOSED:
        if table.waiting_since is None:
            table.waiting_since = now or timezone.now()
    else:
        table.waiting_since = None
    table.version += 1
    return closes


def _table_changed_then_start(
    *,
    table: Table,
    kind: str,
    now: datetime | None = None,
    seats: list[Seat] | None = None,
    last: Game | None = _NOT_READ,
) -> Game | None:
    """``_table_changed``, then the next game if the table (locked) is now ready for it. One
    notice either way: the game's start tells the change too. ``seats``: the table's seats with
    their users as the change left them, and ``last``, its latest game, when the caller has
    them."""
    kind = _table_changed(table=table, kind=kind, now=now, seats=seats)
    if kind == "closed":
        seats = None  # the bots' seats were freed
    game = _table_start_if_ready(table=table, seats=seats, last=last)
    if game is None:
        known = None if last is _NOT_READ else last
        _table_broadcast_on_commit(table=table, kind=kind, seats=seats, last=known)
    return game


def _free_seat(*, table: Table, user: User) -> None:
    """Take ``user`` off ``table`` (locked), which must not be playing a game."""
    if table.status == Table.Status.PLAYING or _game_playing(table):
        raise TableRefused(
            "game_in_progress", _("You cannot leave while a game is being played at your table.")
        )
    table.seats.filter(user_id=user.pk).update(**_FREED_SEAT)
    _table_broadcast_on_commit(table=table, kind=_table_changed(table=table, kind="left"))


def _leave_for_another_table(*, table: Table | None, user: User) -> None:
    """Before sitting elsewhere: leave the waiting table ``table`` (locked, or None)."""
    if table is None:
        return
    if table.status == Table.Status.PLAYING or _game_playing(table):
        raise TableRefused(
            "playing_elsewhere",
            _("You are playing a game at another table; finish it before you sit elsewhere."),
        )
    _free_seat(table=table, user=user)


def _sit(*, table: Table, user: User) -> int:
    """Seat ``user`` at the lowest free seat of ``table`` (locked); the table may start."""
    if table.status == Table.Status.CLOSED:
        raise TableRefused("table_closed", _("This table is closed."))
    seat = table.seats.filter(user__isnull=True, is_bot=False).order_by("position").first()
    if seat is None:
        raise TableRefused("table_full", _("This table is full."))
    seat.user = user
    seat.ready = True
    seat.full_clean()
    seat.save(update_fields=["user", "ready"])
    _table_changed_then_start(table=table, kind="seated")
    return seat.position


def _table_open(*, room: Room, user: User, private: bool) -> Table:
    table = Table(
        room=room,
        is_private=private,
        created_by=user,
        invite_code=secrets.token_urlsafe(INVITE_CODE_BYTES) if private else None,
    )
    table.full_clean()
    table.save()
    Seat.objects.bulk_create(
        Seat(table=table, position=position) for position in range(_seat_count(room))
    )
    return table


def _table_start_if_ready(
    *, table: Table, seats: list[Seat] | None = None, last: Game | None = _NOT_READ
) -> Game | None:
    """Start the next game at ``table`` (locked) when every seat is taken, every player at it is
    ready and no game is being played; otherwise do nothing and return None. ``seats``: the
    table's seats with their users, by position, and ``last``, its latest game, when the caller
    has them."""
    if table.status != Table.Status.WAITING:
        return None
    if seats is None:
        seats = list(table.seats.select_related("user").order_by("position"))
    if len(seats) != _seat_count(table.room):
        return None
    if any(seat.user is None and not seat.is_bot for seat in seats):
        return None
    if any(seat.user is not None and not seat.ready for seat in seats):
        return None
    if last is _NOT_READ:
        if _game_playing(table):
            return None
    elif last is not None and last.status == Game.Status.PLAYING:
        return None
    for seat in seats:
        seat.table = table
    try:
        game = _game_deal(
            table=table, players=[seat.user for seat in seats], last=last, seats=seats
        )
    except GameStartRefused as exc:
        raise TableRefused(exc.code, exc.message) from exc
    table.seats.filter(user__isnull=False).update(ready=False)
    for seat in seats:
        seat.ready = False
    table.waiting_since = None
    table.version += 1
    table.save(update_fields=["status", "waiting_since", "version"])  # _game_deal tells it
    return game


@transaction.atomic
def table_play(*, user: User, room: Room) -> tuple[Table, int]:
    """The lobby's "Play" in ``room``: the player's table and seat there.

    A player already seated at a table of the room goes back to it. Otherwise the room must be
    open and admit the player's coins; the player leaves the waiting table they sit at elsewhere
    (refused while a game is being played there) and takes the lowest free seat of the oldest
    public table of the room that is waiting for players, or opens a new public table. When the
    seat was the last free one and everyone is ready, the game starts. Raises ``TableRefused``.
    """
    _lock_user(user)
    current = _current_seat(user)
    if current is not None and current.table.room_id == room.pk:
        return current.table, current.position
    room = Room.objects.get(pk=room.pk)
    _check_admitted(user=user, room=room)
    old_id = None if current is None else current.table_id
    candidate_id = (
        Table.objects.filter(
            room=room,
            is_private=False,
            status=Table.Status.WAITING,
            seats__user__isnull=True,
            seats__is_bot=False,
        )
        .order_by("created_at", "pk")
        .values_list("pk", flat=True)
        .first()
    )
    locked = _lock_tables(old_id, candidate_id)
    _leave_for_another_table(table=locked.get(old_id) if old_id else None, user=user)
    target = locked.get(candidate_id) if candidate_id else None
    if target is None or target.status != Table.Status.WAITING or target.is_private:
        target = None
    elif not target.seats.filter(user__isnull=True, is_bot=False).exists():
        target = None  # taken while we looked
    if target is None:
        target = _table_open(room=room, user=user, private=False)
    return target, _sit(table=target, user=user)


@transaction.atomic
def table_create_private(*, user: User, room: Room) -> Table:
    """Open a private table in ``room`` with a fresh invite code, with its creator at seat 0.

    The room must be open and admit the player's coins; the player leaves the waiting table they
    sit at (refused while a game is being played there). Raises ``TableRefused``.
    """
    _lock_user(user)
    room = Room.objects.get(pk=room.pk)
    _check_admitted(user=user, room=room)
    current = _current_seat(user)
    if current is not None:
        locked = _lock_tables(current.table_id)
        _leave_for_another_table(table=locked[current.table_id], user=user)
    table = _table_open(room=room, user=user, private=True)
    _sit(table=table, user=user)
    return table


@transaction.atomic
def table_join_by_invite(*, user: User, code: str) -> tuple[Table, int]:
    """Sit at the private table whose invite code is ``code``: its lowest free seat.

    A player already at that table keeps their seat. Otherwise the table must be open and have a
    free seat, its room must admit the player's coins, and the player leaves the waiting table
    they sit at elsewhere. Raises ``TableRefused``.
    """
    _lock_user(user)
    table_id = (
        Table.objects.filter(invite_code=code).values_list("pk", flat=True).first()
        if isinstance(code, str) and code
        else None
    )
    if table_id is None:
        raise TableRefused("bad_invite", _("There is no table with this invitation."))
    current = _current_seat(user)
    if current is not None and current.table_id == table_id:
        return current.table, current.position
    old_id = None if current is None else current.table_id
    locked = _lock_tables(old_id, table_id)
    target = locked[table_id]
    if target.status == Table.Status.CLOSED:
        raise TableRefused("table_closed", _("This table is closed."))
    _check_admitted(user=user, room=target.room)
    if not target.seats.filter(user__isnull=True, is_bot=False).exists():
        raise TableRefused("table_full", _("This table is full."))
    _leave_for_another_table(table=locked.get(old_id) if old_id else None, user=user)
    return target, _sit(table=target, user=user)


class Leave(StrEnum):
    """What ``table_leave`` did: the seat was freed now, or will be when the game ends."""

    NOW = "now"
    AFTER_GAME = "after_game"


@transaction.atomic
def table_leave(*, user: User, table: Table) -> Leave:
    """Leave ``table``: between games the seat is freed now, and a table with no player left
    closes; while a game is being played the player leaves when it ends (``Leave.AFTER_GAME``:
    they play on, or 托管 does, until then, and are not asked for 再来一局).

    Raises ``TableRefused`` when the player does not sit there.
    """
    _lock_user(user)
    locked = _lock_tables(table.pk)[table.pk]
    seat = locked.seats.filter(user_id=user.pk).first()
    if seat is None:
        raise TableRefused("not_seated", _("You are not sitting at this table."))
    if locked.status == Table.Status.PLAYING or _game_playing(locked):
        if not seat.leaves_after_game:
            seat.leaves_after_game = True
            seat.save(update_fields=["leaves_after_game"])
            _broadcast_on_commit(table_id=locked.pk, message={"kind": "seats"})
        return Leave.AFTER_GAME
    _free_seat(table=locked, user=user)
    table.status, table.version = locked.status, locked.version
    return Leave.NOW


@transaction.atomic
def table_leave_cancel(*, user: User, table: Table) -> None:
    """Stay at ``table`` after all: undo ``table_leave``'s leaving after the game. Asking when
    it is not planned changes nothing. Raises ``TableRefused`` when the player does not sit
    there."""
    _lock_tables(table.pk)
    seat = Seat.objects.filter(table_id=table.pk, user_id=user.pk).first()
    if seat is None:
        raise TableRefused("not_seated", _("You are not sitting at this table."))
    if seat.leaves_after_game:
        seat.leaves_after_game = False
        seat.save(update_fields=["leaves_after_game"])
        _broadcast_on_commit(table_id=table.pk, message={"kind": "seats"})


def _leave_after_game(*, table_id: int) -> None:
    """Free the seats of the players of ``table_id`` who asked to leave once its game ended
    (called as it ends): the next game does not wait for them, and a table with no player left
    closes."""
    locked = _lock_tables(table_id)[table_id]
    if locked.seats.filter(user__isnull=False, leaves_after_game=True).update(**_FREED_SEAT):
        _table_broadcast_on_commit(table=locked, kind=_table_changed(table=locked, kind="left"))


@transaction.atomic
def table_fill_with_bots(*, table: Table, now: datetime | None = None) -> int:
    """Seat a bot in every free seat once a player has waited ``BOT_FILL_SECONDS`` at ``table``.

    Only a public waiting table with at least one player and a free seat since
    ``waiting_since`` at least that long before ``now`` (default: the current time) gets bots:
    a private table waits for the friends it invited until a player there calls bots in
    (``table_call_bots``). Returns how many bots sat down; the game then starts when everyone
    is ready.
    """
    now = now or timezone.now()
    locked = _lock_tables(table.pk)[table.pk]
    if locked.is_private or locked.status != Table.Status.WAITING or locked.waiting_since is None:
        return 0
    if now - locked.waiting_since < timedelta(seconds=settings.BOT_FILL_SECONDS):
        return 0
    filled = _seat_bots(table=locked, now=now)
    table.status, table.version = locked.status, locked.version
    return filled


@transaction.atomic
def table_call_bots(*, user: User, table: Table) -> int:
    """A player seated at the waiting ``table`` fills its free seats with bots now.

    Returns how many bots sat down (the game starts when everyone is ready). Raises
    ``TableRefused`` for a player who does not sit there or while a game is being played.
    """
    locked = _lock_tables(table.pk)[table.pk]
    if not locked.seats.filter(user_id=user.pk).exists():
        raise TableRefused("not_seated", _("You are not sitting at this table."))
    if locked.status != Table.Status.WAITING or _game_playing(locked):
        raise TableRefused("game_in_progress", _("A game is still being played here."))
    filled = _seat_bots(table=locked, now=timezone.now())
    table.status, table.version = locked.status, locked.version
    return filled


def _seat_bots(*, table: Table, now: datetime) -> int:
    """Bots in every free seat of ``table`` (locked, waiting), if a player sits there."""
    if not table.seats.filter(user__isnull=False).exists():
        return 0
    filled = table.seats.filter(user__isnull=True, is_bot=False).update(is_bot=True, ready=True)
    if filled:
        _table_changed_then_start(table=table, kind="bots", now=now)
    return filled


@transaction.atomic
def table_stand_up_not_ready(*, table: Table, now: datetime | None = None) -> int:
    """Free the seats of the players at ``table`` who have not pressed 再来一局 within
    ``READY_SECONDS`` of the end of its last game by ``now`` (default: the current time), so
    that a player who walked away does not hold up the others: bots or other players take the
    seats (and a table nobody is left at closes). Returns how many players were stood up.
    """
    now = now or timezone.now()
    locked = _lock_tables(table.pk)[table.pk]
    if locked.status != Table.Status.WAITING:
        return 0
    last = table_current_game(table=locked)
    if last is None or last.finished_at is None or last.status == Game.Status.PLAYING:
        return 0
    if now - last.finished_at < timedelta(seconds=settings.READY_SECONDS):
        return 0
    stood = locked.seats.filter(user__isnull=False, ready=False).update(**_FREED_SEAT)
    if stood:
        _table_changed_then_start(table=locked, kind="left", now=now, last=last)
    table.status, table.version = locked.status, locked.version
    return stood


@transaction.atomic
def table_start_game(*, table: Table) -> Game | None:
    """Start the next game at ``table`` when every seat is taken, every player at it is ready
    (bots always are) and no game is being played; otherwise return None.

    The players go to ``game_start`` by seat (None for a bot), so the winner of the last game
    deals. Seating and ``table_play_again`` call this themselves.
    """
    locked = _lock_tables(table.pk)[table.pk]
    game = _table_start_if_ready(table=locked)
    table.status, table.version = locked.status, locked.version
    return game


@transaction.atomic
def table_play_again(*, user: User, table: Table) -> Game | None:
    """Mark ``user`` ready for the next game at ``table``; returns the game when it starts.

    The next game starts as soon as every player at the table is ready and every seat is taken.
    Refused while a game is being played, at a closed table, for a player who does not sit there,
    or when the room no longer admits the player's coins (they may leave the table). Raises
    ``TableRefused``.
    """
    locked = _lock_tables(table.pk)[table.pk]
    if locked.status == Table.Status.CLOSED:
        raise TableRefused("table_closed", _("This table is closed."))
    seats = list(locked.seats.select_related("user").order_by("position"))
    seat = next((row for row in seats if row.user_id == user.pk), None)
    if seat is None:
        raise TableRefused("not_seated", _("You are not sitting at this table."))
    # At most one game is being played at a table, its latest: the frames show it after this.
    last = table_current_game(table=locked)
    if locked.status == Table.Status.PLAYING or (
        last is not None and last.status == Game.Status.PLAYING
    ):
        raise TableRefused("game_in_progress", _("A game is still being played here."))
    _check_admitted(user=user, room=locked.room)
    game = None
    if not seat.ready:
        seat.ready = True
        seat.save(update_fields=["ready"])
        game = _table_changed_then_start(table=locked, kind="ready", seats=seats, last=last)
    table.status, table.version = locked.status, locked.version
    return game


def table_game_act(
    *,
    user: User,
    table: Table,
    action: dict[str, Any],
    version: str | None,
    action_id: str = "",
) -> GameEvent:
    """A seated player's action in the game being played at ``table``.

    ``version`` is the table's version (``table_version``) the player saw when choosing: an
    action chosen on an older view (a double click, a resend after a reconnect, a click that
    crossed another player's move) is refused as ``stale``. Then ``game_act`` checks the action
    itself. The game row is locked first, so the version cannot change while it is compared.
    ``action_id`` is the id the client gave the action: an id already stored in this game is
    refused as ``duplicate`` (rather than as stale or out of turn, so a resend is told it was
    applied, not that it came late). Raises ``GameActionRefused``: ``not_seated``, ``no_game``,
    ``duplicate``, ``stale`` or the engine's code.
    """
    try:
        return _table_game_act(
            user=user, table=table, action=action, version=version, action_id=action_id
        )
    except IntegrityError:
        # The database's unique action id per game: a copy of a made action that came with the
        # current version and is legal (only a forged one can).
        if action_id and _action_made(table=table, action_id=action_id):
            raise GameActionRefused("duplicate", "this action was applied already") from None
        raise


def _action_made(*, table: Table, action_id: str) -> bool:
    return GameEvent.objects.filter(
        game__table_id=table.pk, game__status=Game.Status.PLAYING, action_id=action_id
    ).exists()


#: The statements every move runs, built once (games.prepared). One game at most is being
#: played at a table, so the lock needs no ORDER BY.
game_playing_locked = PreparedSelect(
    lambda table_id: (
        Game.objects.select_for_update(of=("self",))
        .select_related("table__room")
        .filter(table_id=table_id, status=Game.Status.PLAYING)[:1]
    ),
    "table_id",
)
table_seats = PreparedSelect(
    lambda table_id: (
        Seat.objects.select_related("user").filter(table_id=table_id).order_by("position")
    ),
    "table_id",
)


@transaction.atomic
def _table_game_act(
    *,
    user: User,
    table: Table,
    action: dict[str, Any],
    version: str | None,
    action_id: str,
) -> GameEvent:
    # The game being played at the table, locked first: a 托管 switch takes the same lock
    # before it changes a seat, so the seats read next are as this move must see them.
    # With it, the table (its version) and its room; then every seat with its player. The
    # game's players and their balances as the process keeps them while the game goes on. The
    # deadline of the next turn and the frames after the commit need them all.
    game = next(iter(game_playing_locked(table_id=table.pk)), None)
    if game is None:
        if not Seat.objects.filter(table_id=table.pk, user_id=user.pk).exists():
            raise GameActionRefused("not_seated", "you do not sit at this table")
        raise GameActionRefused("no_game", "no game is being played at this table")
    seats = table_seats(table_id=table.pk)
    for row in seats:
        row.table = game.table
    rows = table_rows_during_game(table=game.table, game=game, seats=seats)
    seat = move_seat(user=user, rows=rows)
    state = game_state(game=game)
    try:
        move_still_current(game=game, seat=seat, state=state, version=version, action=action)
        event = _act_locked(
            game=game,
            locked=game,
            state=state,
            seat=seat.position,
            action=action,
            action_id=action_id,
            rows=rows,
        )
    except GameActionRefused:
        # A resend of a made action comes late (the version moved on) or out of turn: the id
        # says what happened, and it is looked up only then.
        if action_id and _action_made(table=table, action_id=action_id):
            raise GameActionRefused("duplicate", "this action was applied already") from None
        raise
    if seat.timeouts:
        Seat.objects.filter(pk=seat.pk).update(timeouts=0)
    return event


def move_seat(*, user: User, rows: TableRows) -> Seat:
    """The seat ``user`` plays at in the game being played at the table of ``rows``
    (``table_rows_during_game``); ``GameActionRefused`` (``not_seated``) if none."""
    seat = next((row for row in rows.seats if row.user_id == user.pk), None)
    if seat is None:
        raise GameActionRefused("not_seated", "you do not sit at this table")
    player = rows.players.get(seat.position)
    if player is None or player.user_id != user.pk:
        raise GameActionRefused("not_seated", "you do not play in this game")
    return seat


def move_still_current(
    *, game: Game, seat: Seat, state: GameState, version: str | None, action: dict[str, Any]
) -> None:
    """Refuse an action chosen on an older view of the table (``stale``: ``version`` is not the
    table's version at position ``state`` of ``game``), and a play that does not say which of
    its meanings it is (``choose_meaning``)."""
    current = table_version(table=seat.table, game=game, events=state.log_length)
    if not isinstance(version, str) or version != current:
        raise GameActionRefused("stale", "the table changed since this action was chosen")
    if isinstance(action, dict) and "play" in action and action.get("as") is None:
        _check_one_meaning(state=state, seat=seat.position, action=action)


def _check_one_meaning(*, state: GameState, seat: int, action: dict[str, Any]) -> None:
    """Refuse a play whose cards can mean more than one legal combination (a joker in it) and
    that does not say which, with the meanings to choose from: the engine's
    ``AmbiguousPlayError``."""
    try:
        state.resolve(seat, move_from_json(action), strict=True)
    except AmbiguousPlayError as exc:
        raise GameActionRefused(exc.code, exc.message, exc.meanings) from exc
    except (NotationError, IllegalMoveError):
        return  # _act_locked refuses it with the reason


# Bots --------------------------------------------------------------------------------------------

BOT_TURNS_LIMIT = 200


@transaction.atomic
def bot_take_turn(*, game: Game) -> GameEvent | None:
    """Make the move of the bot to move in ``game`` now, if the player to move is a bot.

    The bot chooses from its own seat's view of the position only (``games.bots``), and its move
    goes through the same checks as anyone's and is stored the same way. The runner moves bots
    when their turn's deadline comes (``game_turn_due``); this is for tools and tests that move
    them at once. Returns the event, or None when the game is over or a person is to move.
    """
    locked = Game.objects.select_for_update().get(pk=game.pk)
    if locked.status != Game.Status.PLAYING:
        return None
    seat = locked.to_move
    if seat is None or not locked.players.filter(seat=seat, is_bot=True).exists():
        return None
    state = game_state(game=locked)
    move = choose_for(state, SensiblePolicy())
    return _act_locked(
        game=game,
        locked=locked,
        state=state,
        seat=seat,
        action=dict(move.to_json()),
        source=GameEvent.Source.BOT,
    )


def bot_take_turns(*, game: Game, limit: int = BOT_TURNS_LIMIT) -> list[GameEvent]:
    """Let bots move while one of them is to move, at most ``limit`` times; each move is its own
    transaction. Returns the events, in order. The caller adds any pause between them."""
    events: list[GameEvent] = []
    while len(events) < limit:
        event = bot_take_turn(game=game)
        if event is None:
            break
        events.append(event)
    return events
