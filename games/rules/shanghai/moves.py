"""The actions of 上海斗地主: small immutable values with a text and a JSON form that round-trip.

The pass is every game's ``PASS`` (``games.rules.moves``); the others are this game's own:

=============  ===========================  ======================================  =======
action         text                         JSON                                    phase
=============  ===========================  ======================================  =======
小地主         ``small``                    ``{"bid": "small"}``                    bid
大地主         ``big``                      ``{"bid": "big"}``                      bid
不叫           ``no-bid``                   ``{"bid": "pass"}``                     bid
a play         ``3s.1 3h.2 3d.1``           ``{"play": "3s.1 3h.2 3d.1"}``          play
不出           ``pass``                     ``{"pass": true}``                      play
=============  ===========================  ======================================  =======

While bidding, ``resolve`` takes the pass (``PASS``) as 不叫 (``NO_BID``), so that a table's
"pass" button and the timeout work in both phases; the record keeps the bid.

>>> str(parse_action("as 3s as"))
'3s.1 As.1 As.2'
>>> parse_action("no-bid") is NO_BID, parse_action("pass") is PASS
(True, True)
>>> action_from_json({"bid": "big"}) is BIG
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from ..errors import NotationError
from ..moves import PASS, Pass
from .cards import Card, cards_from_mask, format_mask, mask_of, parse_cards
from .combos import Combo, classify_mask

__all__ = [
    "BIG",
    "NO_BID",
    "PASS",
    "SMALL",
    "Action",
    "Bid",
    "Move",
    "Pass",
    "Play",
    "action_from_json",
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
        mask = mask_of(cards)
        if not mask:
            raise NotationError("a play needs at least one card")
        return _tuple_new(cls, (mask, classify_mask(mask)))

    @classmethod
    def from_mask(cls, mask: int) -> Play:
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
        return format_mask(self.mask)

    def __repr__(self) -> str:
        return f"Play.parse({str(self)!r})"

    def to_json(self) -> dict[str, Any]:
        return {"play": str(self)}


class Bid(NamedTuple):
    """小地主 (``small``), 大地主 (``big``) or 不叫 (``pass``)."""

    word: str

    @property
    def level(self) -> int:
        """0 for 不叫, 1 for 小地主, 2 for 大地主."""
        return _LEVELS[self.word]

    def __str__(self) -> str:
        return "no-bid" if self.word == "pass" else self.word

    def to_json(self) -> dict[str, Any]:
        return {"bid": self.word}


_LEVELS = {"pass": 0, "small": 1, "big": 2}
SMALL = Bid("small")
BIG = Bid("big")
NO_BID = Bid("pass")
_BIDS = {bid.word: bid for bid in (SMALL, BIG, NO_BID)}

Move = Pass | Play
Action = Pass | Play | Bid

_WORDS: dict[str, Action] = {"pass": PASS, "small": SMALL, "big": BIG, "no-bid": NO_BID}


def parse_action(text: str) -> Action:
    """An action from its text form (see the module's table); cards otherwise."""
    if not isinstance(text, str):
        raise NotationError(f"an action must be written as a string, not {type(text).__name__}")
    found = _WORDS.get(text.strip().lower().replace("_", "-"))
    if found is not None:
        return found
    return Play.parse(text)


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
            raise NotationError('"bid" is one of "small", "big", "pass"')
        return bid
    raise NotationError(f"not an action: {dict(data)!r}")
