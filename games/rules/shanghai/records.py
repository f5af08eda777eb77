"""Game records (``shanghai-record/1``): load, validate, save, replay.

A record holds every deal of the game (the cards of a deal thrown in after four 不叫 too), the
rules, the base stake and every action in order: the bids, the plays and passes. Replaying it
gives the same game, to the card and the coin. ``docs/record-format.md`` describes the format.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import NotationError, RecordError
from ..records import (
    decode_json,
    load_json,
    optional_seed,
    read_actions,
    read_head,
    read_meta,
    write_record,
)
from ..replay import ReplayError, ReplayResult, replay_actions
from .cards import Card, parse_cards
from .game import (
    BOTTOM_CARDS,
    HAND_CARDS,
    SEATS,
    Deal,
    GameState,
    deal_from_seed,
    deal_numbers,
    first_bidder_of,
)
from .moves import Action, action_from_json
from .options import ShanghaiRules
from .settlement import Settlement, settle

__all__ = [
    "FORMAT",
    "GameRecord",
    "ReplayError",
    "ReplayResult",
    "deals_from_json",
    "deals_to_json",
    "expand_deals",
]

FORMAT = "shanghai-record/1"
_KEYS = {"format", "rules", "base", "deals", "next_seed", "actions", "seed", "meta"}
_ACTION_KEYS = {"seat", "bid", "play", "pass"}
_DEAL_KEYS = {"seed", "first_bidder", "face_up", "hands", "bottom"}


@dataclasses.dataclass(frozen=True, slots=True)
class GameRecord:
    rules: ShanghaiRules
    base: int
    deals: tuple[Deal, ...]
    actions: tuple[tuple[int, Action], ...] = ()
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
        rules, base = read_head(data, format=FORMAT, keys=_KEYS, rules=ShanghaiRules.from_dict)
        deals = deals_from_json(data.get("deals"), data.get("next_seed"))
        seed = data.get("seed")
        if seed is not None and seed != deals[0].seed:
            raise RecordError('"seed" must be the seed of the first deal')
        return cls(
            rules=rules,
            base=base,
            deals=deals,
            actions=read_actions(
                data.get("actions"), players=SEATS, keys=_ACTION_KEYS, action=_action
            ),
            seed=seed,
            meta=read_meta(data),
        )

    # Writing --------------------------------------------------------------------------------------

    @classmethod
    def from_state(cls, state: GameState, *, base: int, seed: int | None = None) -> GameRecord:
        """The record of a game so far: every deal and every action that led to ``state``."""
        if seed is not None and seed != state.deals[0].seed:
            raise ValueError("the game's seed is the seed of its first deal")
        return cls(
            rules=state.rules, base=base, deals=state.deals, actions=state.history, seed=seed
        )

    def to_json(self) -> dict[str, Any]:
        return write_record(
            format=FORMAT,
            rules=self.rules.to_dict(),
            base=self.base,
            position=deals_to_json(self.deals),
            actions=[(seat, action.to_json()) for seat, action in self.actions],
            seed=self.seed,
            meta=self.meta,
        )

    def dumps(self) -> str:
        """The record as indented JSON, each action on a line of its own."""
        text = json.dumps(self.to_json(), ensure_ascii=False, indent=2)
        return _FLAT_OBJECT.sub(_one_line, text) + "\n"

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps(), encoding="utf-8")

    # Replaying ------------------------------------------------------------------------------------

    def initial_state(self) -> GameState:
        return GameState.from_deal(self.deals[0], rules=self.rules, upcoming=self.deals[1:])

    def replay(self) -> ReplayResult[GameState, Settlement]:
        """Apply the actions in order, stopping at the first illegal one."""
        return replay_actions(
            self.initial_state(), self.actions, lambda state: settle(state, base=self.base)
        )


# A JSON object that holds no list or object, as json.dumps indents it.
_FLAT_OBJECT = re.compile(r"\{\n\s+([^{}\[\]]*?)\n\s+\}")


def _one_line(match: re.Match[str]) -> str:
    return "{" + re.sub(r",\n\s+", ", ", match.group(1)) + "}"


def deals_to_json(deals: Sequence[Deal]) -> dict[str, Any]:
    """``{"deals": [...]}``, and ``"next_seed"`` when the last deal has no seed of its own to
    draw a redeal from and it is not 0."""
    data: dict[str, Any] = {"deals": [deal.to_json() for deal in deals]}
    last = deals[-1]
    if last.seed is None and last.next_seed:
        data["next_seed"] = last.next_seed
    return data


def _read_cards(value: Any, where: str, count: int) -> tuple[Card, ...]:
    if not isinstance(value, str):
        raise RecordError(f'{where} must be a string of cards, like "3s.1 Th.2 BJ.1"')
    try:
        cards = parse_cards(value)
    except NotationError as exc:
        raise RecordError(f"{where}: {exc}") from exc
    if len(cards) != count:
        raise RecordError(f"{where} must hold {count} cards, not {len(cards)}")
    return cards


def deals_from_json(value: Any, next_seed: Any = None) -> tuple[Deal, ...]:
    """The deals of a record (or a stored deal), checked: 25 cards a seat in the order dealt, 8
    at the bottom, two decks; the face-up card's seat bids first; a deal's seed deals exactly its
    cards, and a listed redeal of a seeded deal is the one its seed draws."""
    if not isinstance(value, list) or not value:
        raise RecordError('"deals" must be a non-empty list of deals')
    next_seed = optional_seed(next_seed, '"next_seed"')
    deals: list[Deal] = []
    for index, item in enumerate(value):
        where = f'"deals"[{index}]'
        if not isinstance(item, dict):
            raise RecordError(f"{where} must be an object")
        extra = sorted(set(item) - _DEAL_KEYS)
        if extra:
            raise RecordError(f"{where} has unknown field(s) {', '.join(map(repr, extra))}")
        seed = optional_seed(item.get("seed"), f'{where}: "seed"')
        first = item.get("first_bidder")
        if type(first) is not int or not 0 <= first < SEATS:
            raise RecordError(f'{where}: "first_bidder" must be a seat from 0 to 3')
        hands_value = item.get("hands")
        if not isinstance(hands_value, list) or len(hands_value) != SEATS:
            raise RecordError(f'{where}: "hands" must be a list of 4 strings, one per seat')
        hands = tuple(
            _read_cards(hand, f'{where}["hands"][{seat}]', HAND_CARDS)
            for seat, hand in enumerate(hands_value)
        )
        bottom = _read_cards(item.get("bottom"), f'{where}["bottom"]', BOTTOM_CARDS)
        seen: set[Card] = set()
        for card in (*hands[0], *hands[1], *hands[2], *hands[3], *bottom):
            if card in seen:
                raise RecordError(f"{where}: card {card} appears twice: two decks only")
            seen.add(card)
        face_up: Card | None = None
        if item.get("face_up") is not None:
            face_up = _read_cards(item["face_up"], f'{where}["face_up"]', 1)[0]
            if face_up not in seen:
                raise RecordError(f'{where}: the "face_up" card is not in the deal')
            if first_bidder_of(hands, bottom, face_up) != first:
                raise RecordError(f'{where}: the face-up card does not make that "first_bidder"')
        if seed is not None:
            dealt = deal_from_seed(seed)
            if (dealt.hands, dealt.bottom, dealt.first_bidder) != (hands, bottom, first) or (
                face_up not in (None, dealt.face_up)
            ):
                raise RecordError(f'{where}: the cards are not the deal of its "seed"')
            deal = dealt
        else:
            last = index == len(value) - 1
            deal = Deal(None, hands, bottom, face_up, first, (next_seed or 0) if last else 0)
        if deals and deals[-1].seed is not None and seed not in (None, deals[-1].next_seed):
            raise RecordError(f"{where} is not the redeal the seed of the deal before draws")
        deals.append(deal)
    return tuple(deals)


def expand_deals(deals: Sequence[Deal], actions: Sequence[Action]) -> tuple[Deal, ...]:
    """The deals a game with these actions went through: those listed, then the redeals their
    seeds draw, as many as four 不叫 asked for."""
    _, count = deal_numbers(actions)
    out = list(deals)
    while len(out) < count:
        out.append(deal_from_seed(out[-1].next_seed))
    return tuple(out)


def _action(fields: dict[str, Any], where: str) -> Action:
    return action_from_json(fields)
