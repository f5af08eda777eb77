"""Dealing a game: a fresh secret seed, its public commitment, and the game's rows."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Wallet
from accounts.services import house_wallet
from games.rules import RulesError

from ..engines import engine_for
from ..models import Game, GamePlayer, Seat, Table
from ..seeds import SEED_BITS, new_seed
from ..selectors import (
    game_initial_state,
    game_position_remember,
)

if TYPE_CHECKING:
    from accounts.models import User

from ..errors import GameStartRefused
from .clocks import turn_deadline
from .notices import broadcast_on_commit, frames_from_rows


def seed_commitment(seed: int) -> str:
    """SHA-256 (hex) of the seed's 32 big-endian bytes: public while the seed stays secret."""
    return hashlib.sha256(seed.to_bytes(SEED_BITS // 8, "big")).hexdigest()


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
    given, with the rules the table plays (``Table.play_rules``), which the game keeps. Only the
    seed's SHA-256 is public until the game ends. The first game at a table lets the seed pick
    the dealer; later games are dealt by the winner of the last game that had one (an aborted
    game has none). An explicit ``dealer`` overrides both.

    Raises ``GameStartRefused`` when the table is closed or still playing, when the number of
    players does not match the rules, when a player is listed twice or has no wallet, or for a bad
    seed or dealer.
    """
    locked = Table.objects.select_for_update().select_related("room").get(pk=table.pk)
    if locked.status == Table.Status.CLOSED:
        raise GameStartRefused("table_closed", _("This table is closed."))
    if Game.objects.filter(table=locked, status=Game.Status.PLAYING).exists():
        raise GameStartRefused("game_in_progress", _("A game is still being played here."))
    game = game_deal(table=locked, players=players, dealer=dealer, seed=seed)
    locked.save(update_fields=["status"])
    table.status = locked.status
    return game


#: ``game_deal``'s ``last`` when the caller has not read the table's latest game.
NOT_READ: Any = object()


def game_deal(
    *,
    table: Table,
    players: Sequence[User | None],
    dealer: int | None = None,
    seed: int | None = None,
    last: Game | None = NOT_READ,
    seats: list[Seat] | None = None,
) -> Game:
    """``game_start`` at ``table``, locked, open and with no game being played; sets its status
    (the caller saves it). ``last``: its latest game, and ``seats``: its seats with their users
    by position (the table's room on each), when the caller has them: the deal, the first
    turn's deadline and the frames after the commit then read neither again."""
    locked = table
    engine = engine_for(locked.room.game)
    try:
        options = engine.options_from_json(locked.play_rules)
    except RulesError as exc:
        raise GameStartRefused("bad_rules", str(exc)) from exc
    seat_total = engine.seat_count(options)
    if len(players) != seat_total:
        raise GameStartRefused(
            "wrong_player_count",
            _("This game needs %(count)d players.") % {"count": seat_total},
        )
    humans = [user for user in players if user is not None]
    if len({user.pk for user in humans}) != len(humans):
        raise GameStartRefused("player_twice", _("A player cannot take two seats."))
    balances = dict(
        Wallet.objects.filter(user__in=[user.pk for user in humans]).values_list(
            "user_id", "balance"
        )
    )
    if any(user.pk not in balances for user in humans):
        raise GameStartRefused("no_wallet", _("Every player needs a wallet."))

    if seed is None:
        seed = new_seed()
    elif type(seed) is not int or not 0 <= seed < 2**SEED_BITS:
        raise GameStartRefused("bad_seed", "a seed is a whole number of 256 bits")
    if last is NOT_READ:
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
    elif type(dealer) is not int or not 0 <= dealer < seat_total:
        raise GameStartRefused("bad_dealer", f"dealer must be a seat from 0 to {seat_total - 1}")
    # What each seat has to play with, for rules that read it: the bots play for the house.
    house = house_wallet().balance if len(humans) < len(players) else 0
    coins = [house if user is None else balances[user.pk] for user in players]
    dealt = engine.deal_to_json(
        engine.deal(seed, players=seat_total, options=options, dealer=dealer, coins=coins)
    )
    kept_apart = ("dealer", "hands", "stock")

    game = Game(
        table=locked,
        number=1 if last is None else last.number + 1,
        status=Game.Status.PLAYING,
        seed=f"{seed:064x}",
        seed_commitment=seed_commitment(seed),
        game=engine.key,
        dealer=dealt.get("dealer", 0),
        rules=engine.options_to_json(options),
        base=locked.room.base,
        hands=dealt.get("hands", []),
        stock=dealt.get("stock", ""),
        deal={key: value for key, value in dealt.items() if key not in kept_apart},
    )
    deal = game_initial_state(game=game)
    if "dealer" not in dealt:  # the seat that starts, for a game with no dealer of its own
        game.dealer = deal.to_move
    now = timezone.now()
    game.to_move = deal.to_move
    game.turn_started_at = now
    if seats is not None:
        game.turn_deadline = turn_deadline(
            game=game, seat=deal.to_move, now=now, seats=seats, phase=deal.phase
        )
    # The table is locked and the database guards the unique game number, so the checks of
    # the row skip the queries of its key and constraints.
    game.full_clean(exclude=["table"], validate_unique=False, validate_constraints=False)
    game.save()
    # One row per seat, computed here; the database's unique (game, seat) guards them.
    game_players = GamePlayer.objects.bulk_create(
        GamePlayer(game=game, seat=position, user=user, is_bot=user is None)
        for position, user in enumerate(players)
    )
    if seats is None:  # the first turn's clock looks the seat up (now that the players are in)
        game.turn_deadline = turn_deadline(game=game, seat=game.to_move, now=now, phase=deal.phase)
        game.save(update_fields=["turn_deadline"])
    # The table and its seats change after this (the caller marks its players not ready): the
    # game's first move reads them.
    game_position_remember(
        game=game,
        state=deal,
        event=None,
        players={player.seat: player for player in game_players},
    )
    locked.status = Table.Status.PLAYING
    broadcast_on_commit(
        table_id=locked.pk,
        message={"kind": "started", "game": game.pk},
        frames=frames_from_rows(
            table=locked,
            seats=seats,
            last=game,
            players={player.seat: player for player in game_players},
            balances=balances,
        ),
    )
    return game
