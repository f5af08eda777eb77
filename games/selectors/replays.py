"""The admin's replay of a game: each step from its record, checked against what was stored."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import LedgerEntry, LedgerReason
from games.rules import IllegalMoveError, RecordError, format_cards
from games.rules.cards import cards_from_mask
from games.rules.gandengyan import GameRecord, GameState, Move, Play, settle

from ..models import Game
from .games import game_record


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
