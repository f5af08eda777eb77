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

from ..cards import Card, format_cards, parse_cards
from ..errors import NotationError, RecordError
from ..replay import ReplayError, ReplayResult, replay_actions
from .game import GameState, deal_from_seed
from .moves import Move, Play, move_from_json
from .options import GandengyanRules, RulesError
from .settlement import Settlement, settle

__all__ = ["FORMAT", "Action", "GameRecord", "ReplayError", "ReplayResult", "action_json"]

FORMAT = "gandengyan-record/1"
_KEYS = {"format", "rules", "base", "dealer", "hands", "stock", "actions", "seed", "meta"}


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
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise RecordError(f"{path} is not UTF-8 text") from exc
        return cls.loads(text)

    @classmethod
    def loads(cls, text: str) -> GameRecord:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(
                f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
            ) from exc
        return cls.from_json(data)

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        """Validate a decoded record, with a message that says what is wrong and where."""
        if not isinstance(data, dict):
            raise RecordError("a record is a JSON object")
        unknown = sorted(set(data) - _KEYS)
        if unknown:
            raise RecordError(f"unknown field(s) {', '.join(map(repr, unknown))} in the record")
        if data.get("format") != FORMAT:
            raise RecordError(f'"format" must be {FORMAT!r}, not {data.get("format")!r}')
        if data.get("rules") is not None and not isinstance(data["rules"], dict):
            raise RecordError('"rules": rules must be an object of option names and values')
        try:
            rules = GandengyanRules.from_dict(data.get("rules"))
        except RulesError as exc:
            raise RecordError(f'"rules": {exc}') from exc
        base = data.get("base")
        if type(base) is not int or base < 1:
            raise RecordError('"base" must be a positive whole number (the stake)')
        dealer = data.get("dealer")
        if type(dealer) is not int or not 0 <= dealer < rules.players:
            raise RecordError(f'"dealer" must be a seat from 0 to {rules.players - 1}')
        hands = _hands(data.get("hands"), rules.players)
        stock = _cards_field(data.get("stock"), '"stock"')
        _check_distinct(hands, stock)
        seed = data.get("seed")
        if seed is not None:
            if type(seed) is not int or seed < 0:
                raise RecordError('"seed" must be a non-negative whole number')
            dealt_hands, dealt_stock, _ = deal_from_seed(seed, rules, dealer)
            if [sorted(h) for h in dealt_hands] != [
                sorted(h) for h in hands
            ] or dealt_stock != stock:
                raise RecordError('the hands and stock are not the deal of "seed"')
        meta = data.get("meta")
        if meta is not None and not isinstance(meta, dict):
            raise RecordError('"meta" must be an object')
        record = cls(
            rules=rules,
            base=base,
            dealer=dealer,
            hands=hands,
            stock=stock,
            actions=_actions(data.get("actions"), rules.players),
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
        data: dict[str, Any] = {
            "format": FORMAT,
            "rules": self.rules.to_dict(),
            "base": self.base,
            "dealer": self.dealer,
            "hands": [format_cards(hand) for hand in self.hands],
            "stock": " ".join(str(card) for card in self.stock),
            "actions": [action.to_json() for action in self.actions],
        }
        if self.seed is not None:
            data["seed"] = self.seed
        if self.meta is not None:
            data["meta"] = dict(self.meta)
        return data

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


def _cards_field(value: Any, where: str) -> tuple[Card, ...]:
    if not isinstance(value, str):
        raise RecordError(f'{where} must be a string of cards, like "3s Th BJ"')
    try:
        return parse_cards(value)
    except NotationError as exc:
        raise RecordError(f"{where}: {exc}") from exc


def _hands(value: Any, players: int) -> tuple[tuple[Card, ...], ...]:
    if not isinstance(value, list) or len(value) != players:
        raise RecordError(f'"hands" must be a list of {players} strings, one per seat')
    # A hand is a set: kept in canonical order, whatever order it was written in.
    hands = tuple(
        tuple(sorted(_cards_field(hand, f'"hands"[{seat}]'))) for seat, hand in enumerate(value)
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


def _actions(value: Any, players: int) -> tuple[Action, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise RecordError('"actions" must be a list')
    actions = []
    for index, item in enumerate(value):
        where = f'"actions"[{index}]'
        if not isinstance(item, dict):
            raise RecordError(f"{where} must be an object")
        extra = sorted(set(item) - {"seat", "play", "pass", "as"})
        if extra:
            raise RecordError(f"{where} has unknown field(s) {', '.join(map(repr, extra))}")
        seat = item.get("seat")
        if type(seat) is not int or not 0 <= seat < players:
            raise RecordError(f'{where}: "seat" must be a seat from 0 to {players - 1}')
        if ("play" in item) == ("pass" in item):
            raise RecordError(f'{where} must have either "play" or "pass": true')
        try:
            move = move_from_json({k: v for k, v in item.items() if k != "seat"})
        except NotationError as exc:
            raise RecordError(f"{where}: {exc}") from exc
        actions.append(Action(seat, move))
    return tuple(actions)
