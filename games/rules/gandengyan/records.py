"""Game records (``gandengyan-record/1``): load, validate, save, replay.

A record holds the starting hands, the stock order (top first), the dealer, the rules, the base
stake and the actions in order; replaying it gives the same game to the card and the coin. The
format is described in ``docs/record-format.md``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..cards import Card, format_cards
from ..errors import RecordError
from ..records import (
    decode_json,
    load_json,
    optional_seed,
    read_actions,
    read_cards,
    read_head,
    read_meta,
    write_record,
)
from ..replay import ReplayError, ReplayResult, replay_actions
from .game import GameState, deal_from_seed
from .moves import Move, Play, move_from_json
from .options import GandengyanRules
from .settlement import Settlement, settle

__all__ = ["FORMAT", "Action", "GameRecord", "ReplayError", "ReplayResult", "action_json"]

FORMAT = "gandengyan-record/1"
_KEYS = {"format", "rules", "base", "dealer", "hands", "stock", "actions", "seed", "meta"}
_ACTION_KEYS = {"seat", "play", "pass", "as"}


def action_json(move: Move) -> dict[str, Any]:
    """A move as records and stored game events write it: ``{"pass": true}``, or ``{"play":
    cards}`` with ``"as"`` only when the cards could mean another combination."""
    if isinstance(move, Play):
        data: dict[str, Any] = {"play": format_cards(move.cards)}
        if move.names_meaning():
            assert move.combo is not None
            data["as"] = move.combo.ranks_text()
        return data
    return {"pass": True}


@dataclasses.dataclass(frozen=True, slots=True)
class Action:
    seat: int
    move: Move

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, **action_json(self.move)}


@dataclasses.dataclass(frozen=True, slots=True)
class GameRecord:
    rules: GandengyanRules
    base: int
    dealer: int
    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    actions: tuple[Action, ...] = ()
    seed: int | None = None
    meta: Mapping[str, Any] | None = None

    # Reading --------------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        return cls.from_json(load_json(path))

    @classmethod
    def loads(cls, text: str) -> GameRecord:
        return cls.from_json(decode_json(text))

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        """Validate a decoded record, with a message that says what is wrong and where."""
        rules, base = read_head(data, format=FORMAT, keys=_KEYS, rules=GandengyanRules.from_dict)
        dealer = data.get("dealer")
        if type(dealer) is not int or not 0 <= dealer < rules.players:
            raise RecordError(f'"dealer" must be a seat from 0 to {rules.players - 1}')
        hands = _hands(data.get("hands"), rules.players)
        stock = read_cards(data.get("stock"), '"stock"')
        _check_distinct(hands, stock)
        seed = optional_seed(data.get("seed"), '"seed"')
        if seed is not None:
            dealt_hands, dealt_stock, _ = deal_from_seed(seed, rules, dealer)
            if [sorted(h) for h in dealt_hands] != [
                sorted(h) for h in hands
            ] or dealt_stock != stock:
                raise RecordError('the hands and stock are not the deal of "seed"')
        meta = read_meta(data)
        record = cls(
            rules=rules,
            base=base,
            dealer=dealer,
            hands=hands,
            stock=stock,
            actions=tuple(
                Action(seat, move)
                for seat, move in read_actions(
                    data.get("actions"), players=rules.players, keys=_ACTION_KEYS, action=_move
                )
            ),
            seed=seed,
            meta=meta,
        )
        try:
            record.initial_state()
        except ValueError as exc:
            raise RecordError(f"impossible starting position: {exc}") from exc
        return record

    # Writing --------------------------------------------------------------------------------------

    @classmethod
    def from_state(cls, state: GameState, *, base: int, seed: int | None = None) -> GameRecord:
        """The record of a game so far: its start and every action that led to ``state``."""
        return cls(
            rules=state.rules,
            base=base,
            dealer=state.dealer,
            hands=tuple(state.starting_hand(seat) for seat in range(state.players)),
            stock=state.starting_stock(),
            actions=tuple(Action(seat, move) for seat, move in state.history),
            seed=seed,
        )

    def to_json(self) -> dict[str, Any]:
        return write_record(
            format=FORMAT,
            rules=self.rules.to_dict(),
            base=self.base,
            position={
                "dealer": self.dealer,
                "hands": [format_cards(hand) for hand in self.hands],
                "stock": " ".join(str(card) for card in self.stock),
            },
            actions=[(action.seat, action_json(action.move)) for action in self.actions],
            seed=self.seed,
            meta=self.meta,
        )

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, indent=2) + "\n"

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps(), encoding="utf-8")

    # Replaying ------------------------------------------------------------------------------------

    def initial_state(self) -> GameState:
        return GameState.from_position(self.hands, self.stock, self.dealer, rules=self.rules)

    def replay(self) -> ReplayResult[GameState, Settlement]:
        """Apply the actions in order, stopping at the first illegal one."""
        return replay_actions(
            self.initial_state(),
            ((action.seat, action.move) for action in self.actions),
            lambda state: settle(state, base=self.base),
        )


def _hands(value: Any, players: int) -> tuple[tuple[Card, ...], ...]:
    if not isinstance(value, list) or len(value) != players:
        raise RecordError(f'"hands" must be a list of {players} strings, one per seat')
    # A hand is a set: kept in canonical order, whatever order it was written in.
    hands = tuple(
        tuple(sorted(read_cards(hand, f'"hands"[{seat}]'))) for seat, hand in enumerate(value)
    )
    for seat, hand in enumerate(hands):
        if not hand:
            raise RecordError(f'"hands"[{seat}] is empty: every seat starts with cards')
    return hands


def _check_distinct(hands: Sequence[Sequence[Card]], stock: Sequence[Card]) -> None:
    seen: set[Card] = set()
    for where, cards in [*((f'"hands"[{s}]', h) for s, h in enumerate(hands)), ('"stock"', stock)]:
        for card in cards:
            if card in seen:
                raise RecordError(f"card {card} appears twice (again in {where}): one deck only")
            seen.add(card)


def _move(fields: dict[str, Any], where: str) -> Move:
    if ("play" in fields) == ("pass" in fields):
        raise RecordError(f'{where} must have either "play" or "pass": true')
    return move_from_json(fields)
