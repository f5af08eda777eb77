"""The cards a seat of 斗地主 or 上海斗地主 has not seen, dealt at random into the hands that hide
them: what the two games' search worlds (``doudizhu_search``, ``shanghai_search``) share.

A seat knows its own hand, every card played in this deal, the hands shown by 明牌 and the
bottom cards the landlord took and has not played; each other seat holds as many of the rest as
its count says. Nothing more is inferred (a pass may be a choice).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from .determinized import mask_indexes

__all__ = ["HiddenHands"]


class HiddenHands:
    """Everything a play-phase view says of who holds what, read once (``deal_hands`` deals).

    ``known[s]`` is the mask of cards seat ``s`` surely holds (its own hand for the view's seat,
    a 明牌 hand, the landlord's unplayed bottom cards), ``hidden`` the cards the view's seat has
    not seen anywhere, ``missing[s]`` how many of those seat ``s`` holds. ``mask_of`` turns the
    view's card texts into a mask of the game's deck (``deck_mask``)."""

    def __init__(
        self,
        view: dict[str, Any],
        *,
        mask_of: Callable[[Sequence[str] | str], int],
        deck_mask: int,
    ) -> None:
        if view.get("phase") != "play" or view.get("landlord") is None:
            raise ValueError("worlds are made for the play phase only")
        self.seat: int = view["seat"]
        self.landlord: int = view["landlord"]
        self.counts: list[int] = list(view["hand_counts"])
        deal_number = view.get("deal_number", 1)
        played = 0
        for action in view.get("history") or ():
            cards = action.get("play")
            if cards and action.get("deal_number", deal_number) == deal_number:
                played |= mask_of(cards)
        self.played = played
        known = [0] * len(self.counts)
        known[self.seat] = mask_of(view.get("hand") or ())
        for seat_text, cards in (view.get("shown") or {}).items():
            known[int(seat_text)] |= mask_of(cards)
        known[self.landlord] |= mask_of(view.get("bottom") or ()) & ~played
        self.known = tuple(known)
        seen = played
        for mask in known:
            seen |= mask
        self.hidden = deck_mask & ~seen
        self.missing = tuple(
            count - known[s].bit_count() if s != self.seat else 0
            for s, count in enumerate(self.counts)
        )
        if any(n < 0 for n in self.missing) or sum(self.missing) > self.hidden.bit_count():
            raise ValueError("the view's card counts do not agree with the cards it shows")
        self._hidden_indexes = mask_indexes(self.hidden)

    def deal_hands(self, rng: random.Random) -> tuple[int, ...]:
        """Every seat's hand in a world: the known cards and the hidden ones dealt at random."""
        cards = self._hidden_indexes[:]
        rng.shuffle(cards)
        hands = list(self.known)
        position = 0
        for seat, count in enumerate(self.missing):
            for index in cards[position : position + count]:
                hands[seat] |= 1 << index
            position += count
        return tuple(hands)
