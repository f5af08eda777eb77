"""干瞪眼's moves: a pass (every game's ``PASS``, from ``games.rules.moves``), or a play of
cards with the combination it means.

A move is a small immutable value whose text form round-trips:

>>> str(parse_move("5s 6h bj = 4 5 6"))
'5s 6h BJ = 4 5 6'
>>> parse_move("pass") is PASS
True
>>> str(parse_move("7h 7s"))   # one meaning only: no need to name it
'7s 7h'

After ``=`` comes the meaning, as the ranks the cards represent (a record's ``as``); it is written
only when the cards could mean something else. (Not the word ``as``: that is also the ace of
spades.) A play without a meaning (``combo`` None) is resolved by the position.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from ..cards import CARDS, Card, cards_from_mask, format_cards, mask_of, parse_cards, parse_ranks
from ..errors import NotationError
from ..moves import PASS, Pass
from .combos import Combo, combo_from_ranks, interpretations

__all__ = ["PASS", "Move", "Pass", "Play", "move_from_json", "parse_move"]


class _PlayFields(NamedTuple):
    mask: int  # the cards, as a bit mask of card indexes
    combo: Combo | None


class Play(_PlayFields):
    """Cards put on the table, and the combination they mean.

    Cards with exactly one meaning get it at once; ``combo`` stays None only for cards that could
    mean several things (or nothing), and the position decides.
    """

    __slots__ = ()

    def __new__(cls, cards: Iterable[Card], combo: Combo | None = None) -> Play:
        mask = mask_of(cards)
        if mask == 0:
            raise NotationError("a play needs at least one card")
        if combo is None:
            meanings = interpretations(mask)
            if len(meanings) == 1:
                combo = meanings[0]
        return _tuple_new(cls, (mask, combo))

    def __reduce__(self) -> tuple[object, tuple[int, Combo | None]]:
        return (_play_from_mask, (self.mask, self.combo))

    @property
    def cards(self) -> tuple[Card, ...]:
        return cards_from_mask(self.mask)

    @property
    def size(self) -> int:
        return self.mask.bit_count()

    def with_combo(self, combo: Combo) -> Play:
        return _play_from_mask(self.mask, combo)

    def rank_key(self) -> tuple[tuple[int, ...], Combo | None]:
        """What makes two plays the same action: the ranks used (jokers apart) and the meaning."""
        return (tuple(sorted(CARDS[i].rank for i in _indexes(self.mask))), self.combo)

    def names_meaning(self) -> bool:
        """Whether the text form must name the meaning: the cards alone do not fix it."""
        if self.combo is None:
            return False
        return interpretations(self.mask) != (self.combo,)

    def __str__(self) -> str:
        text = format_cards(self.cards)
        if self.names_meaning():
            assert self.combo is not None
            text += " = " + self.combo.ranks_text()
        return text

    def __repr__(self) -> str:
        return f"parse_move({str(self)!r})"

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"play": format_cards(self.cards)}
        if self.combo is not None:
            data["as"] = self.combo.ranks_text()
        return data


_tuple_new = tuple.__new__


def _play_from_mask(mask: int, combo: Combo | None) -> Play:
    """Fast constructor for the engine's move generator; the mask must be non-zero."""
    play: Play = _tuple_new(Play, (mask, combo))
    return play


def _indexes(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


Move = Pass | Play


def parse_move(text: str) -> Move:
    """Parse ``pass``, ``"5s 6h BJ"`` or ``"5s 6h BJ = 4 5 6"`` (the cards, then the meaning)."""
    if not isinstance(text, str):
        raise NotationError(f"a move must be written as a string, not {type(text).__name__}")
    stripped = text.strip()
    if stripped.lower() == "pass":
        return PASS
    cards_text, sep, meaning = stripped.partition("=")
    if sep and not meaning.strip():
        raise NotationError(f"{text!r} has '=' but names no ranks after it")
    cards = parse_cards(cards_text)
    if not cards:
        raise NotationError("a play needs at least one card")
    combo = combo_from_ranks(parse_ranks(meaning)) if sep else None
    return Play(cards, combo)


def move_from_json(data: dict[str, object]) -> Move:
    """A move from its JSON form: ``{"pass": true}`` or ``{"play": "...", "as": "..."}``."""
    if "pass" in data:
        if data.get("pass") is not True or "play" in data or "as" in data:
            raise NotationError('a pass is written {"pass": true} and nothing else')
        return PASS
    cards_text = data.get("play")
    if not isinstance(cards_text, str):
        raise NotationError('a play needs "play": a string of cards')
    cards = parse_cards(cards_text)
    if not cards:
        raise NotationError("a play needs at least one card")
    meaning = data.get("as")
    if meaning is None:
        return Play(cards)
    if not isinstance(meaning, str):
        raise NotationError('"as" must be a string of ranks, like "4 5 6"')
    return Play(cards, combo_from_ranks(parse_ranks(meaning)))
