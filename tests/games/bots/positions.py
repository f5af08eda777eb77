"""Positions made by hand for the bot tests: our cards are given, everyone else's are filler.

A bot sees only the number of cards the others hold and the stock count, so which filler cards
they get does not matter: they are the lowest cards left, jokers apart.
"""

from __future__ import annotations

from games.rules import parse_cards
from games.rules.cards import CARDS, Card
from games.rules.gandengyan import GameState, parse_move


def make_position(
    mine: str,
    *,
    lead: str | None = None,
    leader_left: int = 5,
    other: int = 5,
    stock: int = 20,
) -> GameState:
    """A position where the seat to move holds ``mine``.

    Without ``lead``, we are seat 0 and lead the round; seat 1 holds ``other`` cards and seat 2
    ``leader_left``. With ``lead``, seat 0 has just led those cards and keeps ``leader_left``,
    we are seat 1 and answer, and seat 2 holds ``other`` cards. ``stock`` cards are left to draw.
    """
    used = set(parse_cards(mine)) | (set(parse_cards(lead)) if lead else set())
    pool = [card for card in CARDS if card not in used and not card.is_joker]

    def take(count: int) -> list[Card]:
        taken = pool[:count]
        del pool[:count]
        return taken

    ours = list(parse_cards(mine))
    if lead is None:
        hands = [ours, take(other), take(leader_left)]
        return GameState.from_position(hands, stock=take(stock), dealer=0)
    hands = [list(parse_cards(lead)) + take(leader_left), ours, take(other)]
    state = GameState.from_position(hands, stock=take(stock), dealer=0)
    return state.apply(0, parse_move(lead))
