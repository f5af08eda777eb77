"""Writes to games: start a game, act in it, settle it, and open and close disputes.

Every function here is atomic, takes keyword-only arguments and locks the rows it changes. Coins
move only through ``accounts.services.coins_move``. Locks are always taken in the same order
(the game row, then wallets by primary key) so that concurrent writers queue instead of
deadlocking. Listeners hear about a change only after the transaction that made it has
committed.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import LedgerReason, Wallet
from accounts.services import coins_move
from games.rules import (
    GandengyanRules,
    IllegalMoveError,
    NotationError,
    deal_from_seed,
    format_cards,
    settle,
)
from games.rules.moves import move_from_json
from games.rules.records import Action

from .models import Dispute, Game, GameEvent, GamePlayer, Table
from .selectors import game_state

if TYPE_CHECKING:
    from accounts.models import User

logger = logging.getLogger(__name__)

SEED_BITS = 256
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
    ``{"pass": true}``. ``message`` is the engine's message.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


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


def game_group_name(game_id: int) -> str:
    """The channel-layer group that hears about changes to one game."""
    return f"game-{game_id}"


def _broadcast_on_commit(*, game_id: int, message: dict[str, Any]) -> None:
    """Tell the game's group about a change once (and only if) the transaction commits."""

    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            async_to_sync(layer.group_send)(
                game_group_name(game_id), {"type": "game.update", "game": game_id, **message}
            )
        except Exception:  # the change is committed; a lost notice must not undo it
            logger.exception("could not broadcast an update of game %s", game_id)

    transaction.on_commit(send)


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

    The deal comes from a fresh 256-bit seed (``secrets.randbits``) unless ``seed`` is given, with
    the room's rules. Only the seed's SHA-256 is public until the game ends. The first game at a
    table lets the seed pick the dealer; later games are dealt by the winner of the last game that
    had one (an aborted game has none). An explicit ``dealer`` overrides both.

    Raises ``GameStartRefused`` when the table is closed or still playing, when the number of
    players does not match the rules, when a player is listed twice or has no wallet, or for a bad
    seed or dealer.
    """
    locked = Table.objects.select_for_update().select_related("room").get(pk=table.pk)
    if locked.status == Table.Status.CLOSED:
        raise GameStartRefused("table_closed", _("This table is closed."))
    if Game.objects.filter(table=locked, status=Game.Status.PLAYING).exists():
        raise GameStartRefused("game_in_progress", _("A game is still being played here."))
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
        seed = secrets.randbits(SEED_BITS)
    elif type(seed) is not int or not 0 <= seed < 2**SEED_BITS:
        raise GameStartRefused("bad_seed", "a seed is a whole number of 256 bits")
    if dealer is None:
        last_won = (
            Game.objects.filter(table=locked, winner__isnull=False).order_by("-number").first()
        )
        if last_won is not None:
            dealer = last_won.winner
    elif type(dealer) is not int or not 0 <= dealer < rules.players:
        raise GameStartRefused("bad_dealer", f"dealer must be a seat from 0 to {rules.players - 1}")
    hands, stock, dealer = deal_from_seed(seed, rules, dealer)

    last = Game.objects.filter(table=locked).order_by("-number").first()
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
    game.full_clean()
    game.save()
    for position, user in enumerate(players):
        player = GamePlayer(game=game, seat=position, user=user, is_bot=user is None)
        player.full_clean()
        player.save()
    locked.status = Table.Status.PLAYING
    locked.save(update_fields=["status"])
    table.status = locked.status
    _broadcast_on_commit(game_id=game.pk, message={"kind": "started"})
    return game


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
    if not isinstance(action, dict) or set(action) - {"play", "pass", "as"}:
        raise GameActionRefused(
            "bad_action", 'an action is {"play": "cards", "as": "ranks"} or {"pass": true}'
        )
    try:
        move = move_from_json(action)
    except NotationError as exc:
        raise GameActionRefused("bad_action", str(exc)) from exc
    state = game_state(game=locked)
    if type(seat) is not int or seat != state.to_move:
        raise GameActionRefused(
            "not_your_turn", f"seat {seat} acted, but it is seat {state.to_move}'s turn"
        )
    try:
        resolved = state.resolve(move)
        after = state.apply(resolved)
    except IllegalMoveError as exc:
        raise GameActionRefused(exc.code, exc.message) from exc

    stored = Action(seat, resolved).to_json()
    del stored["seat"]
    event = GameEvent(game=locked, number=state.log_length + 1, seat=seat, action=stored)
    event.full_clean()
    event.save()

    if after.is_terminal:
        locked.status = Game.Status.FINISHED
        locked.winner = after.winner
        locked.finished_at = timezone.now()
        locked.save(update_fields=["status", "winner", "finished_at"])
        Table.objects.filter(pk=locked.table_id, status=Table.Status.PLAYING).update(
            status=Table.Status.WAITING
        )
        game_settle(game=locked)
    game.status, game.winner, game.finished_at = locked.status, locked.winner, locked.finished_at
    game.result, game.settled_at = locked.result, locked.settled_at
    _broadcast_on_commit(
        game_id=locked.pk,
        message={"kind": "finished" if after.is_terminal else "action", "number": event.number},
    )
    return event


# Settling ----------------------------------------------------------------------------------------


@transaction.atomic
def game_settle(*, game: Game) -> None:
    """Move the coins of a finished game, exactly once.

    The engine's ``settle`` gives each seat's nominal payment. Coins then move between the human
    players' wallets only, and the ledger rows of a game always sum to zero:

    - a human loser pays ``min(nominal, balance)``: never more than they have, so no balance
      goes below zero;
    - a human winner receives exactly the sum the losers actually paid;
    - bots have no wallet, so they neither pay nor receive: a bot loser pays nothing (the human
      winner gets only what the human losers paid), and when a bot wins, the human losers pay
      nothing, since nobody could receive their coins.

    Each player's row gets ``cards_left``, ``spring``, ``nominal`` (the engine's payment,
    negative for a loser) and ``coins`` (what actually moved), and ``game.result`` the engine's
    result with ``cards_left`` and ``coins`` added. The game row is locked and ``settled_at``
    checked first, so a retry or a concurrent call does nothing; the ledger's unique constraint
    (one game row per wallet and game) is the last line of defence. Raises ``ValueError`` for a
    game that has not finished.
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
    user_ids = [player.user_id for player in players if player.user_id is not None]
    # Every wallet of the game, locked in one order (by key) before any coin moves.
    wallets = {
        wallet.user_id: wallet
        for wallet in Wallet.objects.select_for_update().filter(user_id__in=user_ids).order_by("pk")
    }

    coins = [0] * len(players)
    winner = players[settlement.winner]
    if winner.user_id is not None:
        for player in players:
            nominal = settlement.payments[player.seat]
            if player.user_id is None or nominal >= 0:
                continue
            wallet = wallets[player.user_id]
            paid = min(-nominal, wallet.balance)
            if paid > 0:
                coins_move(wallet=wallet, amount=-paid, reason=LedgerReason.GAME, game=locked)
                coins[player.seat] = -paid
        received = -sum(coins)
        if received > 0:
            coins_move(
                wallet=wallets[winner.user_id],
                amount=received,
                reason=LedgerReason.GAME,
                game=locked,
            )
            coins[winner.seat] = received

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
