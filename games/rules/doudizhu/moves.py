"""The actions of 斗地主: small immutable values with a text and a JSON form that round-trip.

The pass is every game's ``PASS`` (``games.rules.moves``); the others are 斗地主's own:

==============  ==========================  =========================================  ===========
action          text                        JSON                                       phase
==============  ==========================  =========================================  ===========
deal on         ``deal 9``                  ``{"deal": 9}``                            deal
明牌            ``show``                    ``{"show": true}``; resolved, with its     deal, bid,
                                            moment: ``{"show": "deal", "step": 5}``    double
叫地主 / 不叫   ``call`` / ``no-call``      ``{"bid": "call"}`` / ``"no_call"``        bid
抢地主 / 不抢   ``rob`` / ``no-rob``        ``{"bid": "rob"}`` / ``"no_rob"``          bid
加倍 / 不加倍   ``double`` / ``no-double``  ``{"double": true}`` / ``false``           double
a play          ``3s 3h 3d 5c``             ``{"play": "3s 3h 3d 5c"}``                play
不出            ``pass``                    ``{"pass": true}``                         play
==============  ==========================  =========================================  ===========

>>> str(parse_action("5c 3s 3h 3d"))
'3s 3h 3d 5c'
>>> parse_action("no-call") is NO_CALL, parse_action("pass") is PASS
(True, True)
>>> action_from_json({"show": "deal", "step": 5})
Show(moment='deal', step=5)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from ..cards import Card, cards_from_mask, format_cards, mask_of, parse_cards
from ..errors import NotationError
from ..moves import PASS, Pass
from .combos import Combo, classify_mask

__all__ = [
    "CALL",
    "DOUBLE",
    "NO_CALL",
    "NO_DOUBLE",
    "NO_ROB",
    "PASS",
    "ROB",
    "SHOW",
    "Action",
    "Bid",
    "DealOn",
    "Double",
    "Move",
    "Pass",
    "Play",
    "Show",
    "action_from_json",
    "action_to_json",
    "parse_action",
]

_tuple_new = tuple.__new__


class _PlayFields(NamedTuple):
    mask: int  # the cards, as a bit mask of card indexes
    combo: Combo | None  # None: the cards are no combination


class Play(_PlayFields):
    """Cards put on the table and the combination they are (one at most: see ``combos``)."""

    __slots__ = ()

    def __new__(cls, cards: Iterable[Card]) -> Play:
        cards = tuple(cards)
        mask = mask_of(cards)
        if not mask:
            raise NotationError("a play needs at least one card")
        return _tuple_new(cls, (mask, classify_mask(mask)))

    def __getnewargs__(self) -> tuple[tuple[Card, ...]]:
        # Pickled by its cards, as it is made (a position is sent to a bot's own process).
        return (self.cards,)

    @classmethod
    def parse(cls, text: str) -> Play:
        return cls(parse_cards(text))

    @property
    def cards(self) -> tuple[Card, ...]:
        return cards_from_mask(self.mask)

    @property
    def size(self) -> int:
        return self.mask.bit_count()

    def __str__(self) -> str:
        return format_cards(self.cards)

    def __repr__(self) -> str:
        return f"Play.parse({str(self)!r})"

    def to_json(self) -> dict[str, Any]:
        return {"play": str(self)}


class DealOn(NamedTuple):
    """The platform's clock dealing on: each seat now has ``step`` cards shown (1..17)."""

    step: int

    def __str__(self) -> str:
        return f"deal {self.step}"

    def to_json(self) -> dict[str, Any]:
        return {"deal": self.step}


class Show(NamedTuple):
    """明牌. Unresolved (``SHOW``) it names no moment; ``resolve`` gives it its moment:
    ``"start"`` before the first card (×5), ``"deal"`` at deal step 1..17 (×4 to step 8, then ×3),
    ``"bottom"`` the landlord after taking the bottom cards (×2)."""

    moment: str | None = None
    step: int | None = None

    @property
    def multiplier(self) -> int:
        if self.moment == "start":
            return 5
        if self.moment == "deal":
            assert self.step is not None
            return 4 if self.step <= 8 else 3
        return 2

    def __str__(self) -> str:
        if self.moment is None:
            return "show"
        if self.moment == "deal":
            return f"show deal {self.step}"
        return f"show {self.moment}"

    def to_json(self) -> dict[str, Any]:
        if self.moment is None:
            return {"show": True}
        if self.moment == "deal":
            return {"show": "deal", "step": self.step}
        return {"show": self.moment}


SHOW = Show()


class Bid(NamedTuple):
    """叫地主 (``call``), 不叫 (``no_call``), 抢地主 (``rob``) or 不抢 (``no_rob``)."""

    word: str

    def __str__(self) -> str:
        return self.word.replace("_", "-")

    def to_json(self) -> dict[str, Any]:
        return {"bid": self.word}


CALL = Bid("call")
NO_CALL = Bid("no_call")
ROB = Bid("rob")
NO_ROB = Bid("no_rob")
_BIDS = {bid.word: bid for bid in (CALL, NO_CALL, ROB, NO_ROB)}


class Double(NamedTuple):
    """加倍 (``True``) or 不加倍 (``False``)."""

    yes: bool

    def __str__(self) -> str:
        return "double" if self.yes else "no-double"

    def to_json(self) -> dict[str, Any]:
        return {"double": self.yes}


DOUBLE = Double(True)
NO_DOUBLE = Double(False)

Move = Pass | Play
Action = Pass | Play | DealOn | Show | Bid | Double

_WORDS: dict[str, Action] = {
    "pass": PASS,
    "show": SHOW,
    "call": CALL,
    "no-call": NO_CALL,
    "rob": ROB,
    "no-rob": NO_ROB,
    "double": DOUBLE,
    "no-double": NO_DOUBLE,
}


def parse_action(text: str) -> Action:
    """An action from its text form (see the module's table); cards otherwise."""
    if not isinstance(text, str):
        raise NotationError(f"an action must be written as a string, not {type(text).__name__}")
    words = text.strip().lower().replace("_", "-")
    found = _WORDS.get(words)
    if found is not None:
        return found
    parts = words.split()
    if len(parts) == 2 and parts[0] == "deal":
        return DealOn(_step(parts[1]))
    if len(parts) == 3 and parts[:2] == ["show", "deal"]:
        return Show("deal", _step(parts[2]))
    if len(parts) == 2 and parts[0] == "show" and parts[1] in ("start", "bottom"):
        return Show(parts[1])
    return Play.parse(text)


def _step(value: object) -> int:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if type(value) is not int or not 1 <= value <= 17:
        raise NotationError("a deal step is a whole number from 1 to 17")
    return value


def action_from_json(data: Mapping[str, Any]) -> Action:
    """An action from its JSON form; ``NotationError`` when it is none."""
    if not isinstance(data, Mapping) or len(data) == 0:
        raise NotationError("an action is a JSON object (see the record format)")
    keys = set(data)
    if keys == {"pass"}:
        if data["pass"] is not True:
            raise NotationError('a pass is written {"pass": true} and nothing else')
        return PASS
    if keys == {"play"}:
        if not isinstance(data["play"], str):
            raise NotationError('a play needs "play": a string of cards')
        return Play.parse(data["play"])
    if keys == {"bid"}:
        bid = _BIDS.get(data["bid"]) if isinstance(data["bid"], str) else None
        if bid is None:
            raise NotationError('"bid" is one of "call", "no_call", "rob", "no_rob"')
        return bid
    if keys == {"double"}:
        if type(data["double"]) is not bool:
            raise NotationError('"double" is true (加倍) or false (不加倍)')
        return Double(data["double"])
    if keys == {"deal"}:
        return DealOn(_step(data["deal"]))
    if "show" in keys and keys <= {"show", "step"}:
        show = data["show"]
        if show is True and keys == {"show"}:
            return SHOW
        if show in ("start", "bottom") and keys == {"show"}:
            return Show(show)
        if show == "deal" and keys == {"show", "step"}:
            return Show("deal", _step(data["step"]))
        raise NotationError(
            'a 明牌 is {"show": true}, {"show": "start"}, {"show": "deal", "step": N} '
            'or {"show": "bottom"}'
        )
    raise NotationError(f"not an action: {dict(data)!r}")


def action_to_json(action: Action) -> dict[str, Any]:
    return action.to_json()
