"""Position builders for the 斗地主 engine's tests."""

from __future__ import annotations

from collections.abc import Sequence

from games.rules.cards import CARDS, Card, parse_cards
from games.rules.doudizhu import GameState, Play
from games.rules.doudizhu.movegen import rank_counts
from games.rules.doudizhu.moves import Action, Move, Pass

# A fixed deal written out by hand: seat 0 has the low cards, seat 2 the high ones.
HANDS = [
    "3s 3h 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s 2h 2d 2c",
    "3d 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah 3c 4d 5d 6d 7d",
    "8d 9d Td Jd Qd Kd Ad 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc",
]
BOTTOM = "Ac BJ RJ"


def fresh(first_bidder: int = 0, **kwargs: object) -> GameState:
    return GameState.from_position(HANDS, BOTTOM, first_bidder, **kwargs)  # type: ignore[arg-type]


def run(state: GameState, *steps: tuple[int, str]) -> GameState:
    for seat, text in steps:
        state = state.apply_text(seat, text)
    return state


def to_play(landlord_bidder: int = 0) -> GameState:
    """The fixed deal with ``landlord_bidder`` calling, nobody robbing or doubling."""
    state = fresh(landlord_bidder)
    state = run(state, (landlord_bidder, "deal 17"), (landlord_bidder, "call"))
    for offset in (1, 2):
        state = state.apply_text((landlord_bidder + offset) % 3, "no-rob")
    for offset in (1, 2, 0):
        state = state.apply_text((landlord_bidder + offset) % 3, "no-double")
    return state


def fillers(used: set[Card], count: int) -> list[Card]:
    free = [card for card in CARDS if card not in used]
    return free[:count]


def lead_position(hand: str | Sequence[Card]) -> GameState:
    """Seat 0 (the landlord) leads with ``hand``; the others hold one filler card each."""
    cards = list(parse_cards(hand) if isinstance(hand, str) else hand)
    fill = fillers(set(cards), 2)
    return GameState.play_position([cards, [fill[0]], [fill[1]]], landlord=0)


def follow_position(hand: str | Sequence[Card], table: str) -> GameState:
    """Seat 1 answers seat 0's ``table`` holding ``hand``."""
    cards = list(parse_cards(hand) if isinstance(hand, str) else hand)
    table_cards = list(parse_cards(table))
    fill = fillers(set(cards) | set(table_cards), 2)
    state = GameState.play_position([[*table_cards, fill[0]], cards, [fill[1]]], landlord=0)
    return state.apply(0, Play(table_cards))


def key(move: Action) -> tuple[int, ...]:
    """What makes two plays the same: the multiset of ranks (a pass: empty)."""
    if isinstance(move, Pass):
        return ()
    assert isinstance(move, Play)
    return tuple(rank_counts(move.mask))


def keys(moves: Sequence[Move]) -> list[tuple[int, ...]]:
    return [key(move) for move in moves]
