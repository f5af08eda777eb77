"""Helpers for the games tests: players with coins, tables, games from a set position, playing."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from django.utils import timezone

from accounts.models import LedgerEntry, LedgerReason, User, Wallet
from accounts.services import coins_move, wallet_create
from games import selectors, services
from games.bots import choose_for
from games.models import Game, GameEvent, GamePlayer, Room, Table
from games.rules import Phase, format_cards, parse_cards
from games.rules.doudizhu import CALL, DOUBLE, NO_CALL, NO_DOUBLE, NO_ROB, ROB, SHOW, DealOn
from games.rules.doudizhu import ENGINE as DOUDIZHU
from games.rules.gandengyan import PASS, GandengyanRules, Move
from games.rules.shanghai import ENGINE as SHANGHAI
from games.rules.shanghai import NO_BID as SH_NO_BID


def make_room(*, code: str = "test", base: int = 400, rules: dict[str, Any] | None = None) -> Room:
    return Room.objects.create(
        code=code,
        name_zh="测试场",
        name_en="Test room",
        base=base,
        min_coins=0,
        max_coins=None,
        rules=rules or {},
        position=99,
    )


def make_player(username: str, coins: int = 100_000) -> User:
    """A user whose wallet holds exactly ``coins``, every coin in the ledger."""
    user = User.objects.create_user(username=username, password="pw-123456")
    set_balance(user, coins)
    return user


def set_balance(user: User, coins: int) -> Wallet:
    wallet = wallet_create(user=user)
    wallet.refresh_from_db()
    delta = coins - wallet.balance
    if delta:
        coins_move(wallet=wallet, amount=delta, reason=LedgerReason.STAFF_ADJUSTMENT)
    wallet.refresh_from_db()
    return wallet


def balance(user: User) -> int:
    return Wallet.objects.get(user=user).balance


def game_ledger(game: Game) -> list[LedgerEntry]:
    return list(LedgerEntry.objects.filter(game=game, reason=LedgerReason.GAME))


def start_from_position(
    *,
    table: Table,
    players: Sequence[User | None],
    hands: Sequence[str],
    stock: str,
    dealer: int,
) -> Game:
    """A game dealt from set hands and stock instead of a seed, as tests need exact positions.

    Everything else is as ``game_start`` leaves it; the game has no seed (its record has none),
    and its actions go through the services.
    """
    for hand in hands:
        parse_cards(hand)
    last = Game.objects.filter(table=table).order_by("-number").first()
    game = Game.objects.create(
        table=table,
        number=1 if last is None else last.number + 1,
        seed="",
        seed_commitment="",
        dealer=dealer,
        rules=GandengyanRules.from_dict(table.play_rules).to_dict(),
        base=table.room.base,
        hands=[format_cards(parse_cards(hand)) for hand in hands],
        stock=" ".join(str(card) for card in parse_cards(stock)),
    )
    for seat, user in enumerate(players):
        GamePlayer.objects.create(game=game, seat=seat, user=user, is_bot=user is None)
    game.to_move = selectors.game_state(game=game).to_move
    game.turn_started_at = timezone.now()
    game.save(update_fields=["to_move", "turn_started_at"])
    table.status = Table.Status.PLAYING
    table.save(update_fields=["status"])
    return game


def action_of(move: Move) -> dict[str, Any]:
    """The action dict ``game_act`` takes, for an engine move."""
    return dict(move.to_json())


def act_all(game: Game, actions: Sequence[dict[str, Any]]) -> list[GameEvent]:
    """Make record-style actions (with ``seat``) one by one through ``game_act``."""
    events = []
    for action in actions:
        move = {key: value for key, value in action.items() if key != "seat"}
        events.append(services.game_act(game=game, seat=action["seat"], action=move))
    return events


def play_out(game: Game, *, seed: int = 0, stop_before_end: bool = False) -> list[GameEvent]:
    """Play ``game`` through ``game_act``, each move picked at random among the engine's legal
    moves (mostly plays, so that games stay short). With ``stop_before_end``, stop just before
    the move that would end the game."""
    rng = random.Random(seed)
    events = []
    state = selectors.game_state(game=game)
    while not state.is_terminal:
        moves = state.legal_moves()
        plays = [move for move in moves if move is not PASS]
        move = rng.choice(plays if plays and rng.random() < 0.85 else moves)
        after = state.apply(state.to_move, move)
        if stop_before_end and after.is_terminal:
            return events
        events.append(services.game_act(game=game, seat=state.to_move, action=action_of(move)))
        state = after
    return events


# The three worked examples of the rules (§7), base 400, as positions and the actions that
# reach them. ``loser_a`` and ``loser_b`` are the seats of the table's losers A and B.
EXAMPLES: dict[str, dict[str, Any]] = {
    "no bomb, no spring": {
        "hands": ["3s 6s 9c", "4h 8h Th Qh", "5d 7d 9d Jd Kd 2d"],
        "dealer": 0,
        "actions": [
            {"seat": 0, "play": "3s"},
            {"seat": 1, "play": "4h"},
            {"seat": 2, "play": "5d"},
            {"seat": 0, "play": "6s"},
            {"seat": 1, "pass": True},
            {"seat": 2, "pass": True},
            {"seat": 0, "play": "9c"},
        ],
        "winner": 0,
        "multiplier": 1,
        "spring": [False, False, False],
        "payments": [3200, -1200, -2000],
    },
    "one soft bomb, A is spring": {
        "hands": ["4h 6d 8d Td Qd 2d", "3s 7s 7h 7d 9c", "5h Jh Kh"],
        "dealer": 1,
        "actions": [
            {"seat": 1, "play": "3s"},
            {"seat": 2, "pass": True},
            {"seat": 0, "play": "4h"},
            {"seat": 1, "play": "7s 7h 7d"},
            {"seat": 2, "pass": True},
            {"seat": 0, "pass": True},
            {"seat": 1, "play": "9c"},
        ],
        "winner": 1,
        "multiplier": 2,
        "spring": [False, False, True],
        "payments": [-4000, 8800, -4800],
    },
    "soft + hard bomb": {
        "hands": ["4h Jh Kh", "5h 5d 5c 6s Ts Qs 2s", "3s 8s 8h 8d 8c 9c"],
        "dealer": 2,
        "actions": [
            {"seat": 2, "play": "3s"},
            {"seat": 0, "play": "4h"},
            {"seat": 1, "play": "5h 5d 5c"},
            {"seat": 2, "play": "8s 8h 8d 8c"},
            {"seat": 0, "pass": True},
            {"seat": 1, "pass": True},
            {"seat": 2, "play": "9c"},
        ],
        "winner": 2,
        "multiplier": 8,
        "spring": [False, False, False],
        "payments": [-6400, -12800, 19200],
    },
}


def doudizhu_room(*, code: str = "ddz", base: int = 50, threshold: int | None = None) -> Room:
    """A room of 斗地主, with the doubling threshold ``threshold`` (None: the standard game)."""
    room = make_room(
        code=code, base=base, rules={} if threshold is None else {"double_threshold": threshold}
    )
    room.game = DOUDIZHU.key
    room.full_clean()
    room.save(update_fields=["game"])
    return room


def play_doudizhu(
    game: Game,
    *,
    redeal: bool = True,
    show: bool = True,
    rob: bool = True,
    double: bool = True,
    until: Any = None,
) -> list[GameEvent]:
    """Play a game of 斗地主 through ``game_act``, every stage of it: with ``redeal`` the first
    deal is dealt out and all three say 不叫 (the cards are dealt again); with ``show`` a seat
    declares 明牌 while the second deal is out (×4) and the landlord after taking the bottom
    (×2, not counted: the largest counts); with ``rob`` the seat after the caller robs; with
    ``double`` the landlord and the first farmer double. The play is the bot's. ``until``: a
    function of the state that stops the game before the action made in the state it accepts.
    """
    events: list[GameEvent] = []

    def act(seat: int, action: Any) -> None:
        events.append(
            services.game_act(game=game, seat=seat, action=DOUDIZHU.action_to_json(action))
        )

    policy = DOUDIZHU.bot_policy()
    deals, robbed, doubled = 0, False, False
    shown_while_dealt = not show
    state = selectors.game_state(game=game)
    while not state.is_terminal:
        if until is not None and until(state):
            break
        seat = state.to_move
        assert seat is not None
        phase = state.phase
        if phase is Phase.DEAL:
            if state.dealt == 8 and not shown_while_dealt and (deals or not redeal):
                shown_while_dealt = True
                act((seat + 1) % 3, SHOW)
            else:
                act(seat, DealOn(8 if state.dealt < 8 else 17))
        elif phase is Phase.BID:
            legal = state.legal_actions(seat)
            if redeal and not deals:
                act(seat, NO_CALL)
            elif CALL in legal:
                act(seat, CALL)
            elif ROB in legal and rob and not robbed:
                robbed = True
                act(seat, ROB)
            else:
                act(seat, NO_ROB)
        elif phase is Phase.DOUBLE:
            landlord = state.landlord
            assert landlord is not None
            if show and not state.shown[landlord]:
                act(landlord, SHOW)
            else:
                first_farmer = seat == (landlord + 1) % 3 and not doubled
                yes = double and (seat == landlord or first_farmer) and state.may_double(seat)
                doubled = doubled or first_farmer
                act(seat, DOUBLE if yes else NO_DOUBLE)
        else:
            act(seat, choose_for(state, policy))
        state = selectors.game_state(game=game)
        deals = len(state.deals) - 1
    game.refresh_from_db()
    return events


def shanghai_room(*, code: str = "sh", base: int = 50) -> Room:
    """A room of 上海斗地主 (four seats, two decks)."""
    room = make_room(code=code, base=base)
    room.game = SHANGHAI.key
    room.full_clean()
    room.save(update_fields=["game"])
    return room


def shanghai_game(room: Room, users: Sequence[User | None], *, seed: int) -> Game:
    """A game of 上海斗地主 at a new table of ``room``, dealt from ``seed``: ``users`` by seat
    (None: a bot)."""
    table = Table.objects.create(room=room)
    for position, user in enumerate(users):
        table.seats.create(position=position, user=user, is_bot=user is None, ready=True)
    return services.game_start(table=table, players=list(users), seed=seed)


def play_shanghai(
    game: Game, *, redeal: bool = True, bids: Sequence[str] = ("small", "big"), until: Any = None
) -> list[GameEvent]:
    """Play a game of 上海斗地主 through ``game_act``: with ``redeal`` the first deal is thrown
    in (four 不叫); then the seats say ``bids`` in turn (the words of the engine's JSON, the
    rest 不叫 when it is left); the play is the bot's, with the pass left out where it may play,
    so that the game moves on. ``until``: a function of the state that stops the game before
    the action made in the state it accepts."""
    events: list[GameEvent] = []

    def act(seat: int, action: Any) -> None:
        events.append(
            services.game_act(game=game, seat=seat, action=SHANGHAI.action_to_json(action))
        )

    state = selectors.game_state(game=game)
    said = 0
    while not state.is_terminal:
        if until is not None and until(state):
            break
        seat = state.to_move
        assert seat is not None
        if state.phase is Phase.BID:
            legal = state.legal_actions(seat)
            if redeal and len(state.deals) == 1:
                act(seat, SH_NO_BID)
            else:
                wanted = [bid for bid in legal if said < len(bids) and bid.word == bids[said]]
                said += 1
                act(seat, wanted[0] if wanted else SH_NO_BID)
        else:
            plays = [move for move in state.legal_moves() if move is not PASS]
            act(seat, plays[0] if plays else PASS)
        state = selectors.game_state(game=game)
    game.refresh_from_db()
    return events
