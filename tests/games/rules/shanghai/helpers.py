"""Position builders for the 上海斗地主 engine's tests."""

from __future__ import annotations

from collections.abc import Sequence

from games.rules.shanghai import GameState, Play
from games.rules.shanghai.cards import CARDS, Card, parse_cards
from games.rules.shanghai.combos import counts_of_cards


def fixed_deal() -> tuple[list[str], str]:
    """A deal written out by hand: the 108 cards in canonical order, seat ``s`` dealt cards
    ``s, s + 4 ...`` of the first 100 (in that order) and the last 8 at the bottom."""
    hands = [" ".join(str(CARDS[s + 4 * i]) for i in range(25)) for s in range(4)]
    bottom = " ".join(str(card) for card in CARDS[100:])
    return hands, bottom


def fresh(first_bidder: int = 0, **kwargs: object) -> GameState:
    hands, bottom = fixed_deal()
    return GameState.from_position(hands, bottom, first_bidder, **kwargs)  # type: ignore[arg-type]


def run(state: GameState, *steps: tuple[int, str]) -> GameState:
    for seat, text in steps:
        state = state.apply_text(seat, text)
    return state


def fillers(used: set[Card], count: int) -> list[Card]:
    return [card for card in CARDS if card not in used][:count]


def lead_position(hand: str | Sequence[Card], **kwargs: object) -> GameState:
    """Seat 0 (the landlord) leads with ``hand``; the others hold one filler card each."""
    cards = list(parse_cards(hand) if isinstance(hand, str) else hand)
    fill = fillers(set(cards), 3)
    return GameState.play_position(
        [cards, [fill[0]], [fill[1]], [fill[2]]],
        landlord=0,
        **kwargs,  # type: ignore[arg-type]
    )


def follow_position(hand: str | Sequence[Card], table: str, **kwargs: object) -> GameState:
    """Seat 1 answers seat 0's ``table`` holding ``hand``."""
    text = hand if isinstance(hand, str) else " ".join(map(str, hand))
    both = parse_cards(f"{text} {table}")  # the table takes the copies the hand does not
    cards, table_cards = list(both[: len(text.split())]), list(both[len(text.split()) :])
    fill = fillers(set(cards) | set(table_cards), 3)
    state = GameState.play_position(
        [[*table_cards, fill[0]], cards, [fill[1]], [fill[2]]],
        landlord=0,
        **kwargs,  # type: ignore[arg-type]
    )
    return state.apply(0, Play(table_cards))


def counts_of_text(text: str) -> tuple[int, ...]:
    return tuple(counts_of_cards(parse_cards(text)))
