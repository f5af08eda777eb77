"""Perft: positions whose distinct legal plays were counted by hand from the rules.

A count is of distinct plays, one per multiset of ranks (suits never matter), and the pass when
following. Each entry gives the count by kind and the reasoning behind it.
"""

from __future__ import annotations

from collections import Counter

import pytest

from games.rules.doudizhu import Pass
from tests.games.rules.doudizhu.helpers import follow_position, keys, lead_position

# (name, hand, table or None, {kind: count}, reasoning)
POSITIONS = [
    ("six lone cards", "3s 5h 7d 9c Js Kh", None, {"single": 6}, "6 singles"),
    ("a pair and one", "3s 3h 4s", None, {"single": 2, "pair": 1}, "3, 4; 33"),
    (
        "a triple and one",
        "3s 3h 3d 4s",
        None,
        {"single": 2, "pair": 1, "triple": 1, "triple_single": 1},
        "3, 4; 33; 333; 333+4",
    ),
    (
        "four of a kind alone",
        "3s 3h 3d 3c",
        None,
        {"single": 1, "pair": 1, "triple": 1, "bomb": 1},
        "3; 33; 333; 3333 (333+3 is no triple with one)",
    ),
    ("the jokers", "BJ RJ", None, {"single": 2, "rocket": 1}, "BJ, RJ; the rocket (no pair)"),
    ("one straight", "3s 4s 5s 6s 7s", None, {"single": 5, "straight": 1}, "5 singles; 3-7"),
    (
        "a straight of six",
        "3s 4s 5s 6s 7s 8s",
        None,
        {"single": 6, "straight": 3},
        "6 singles; 3-7, 4-8, 3-8",
    ),
    (
        "no 2 in a straight",
        "Ts Js Qs Ks As 2s",
        None,
        {"single": 6, "straight": 1},
        "6 singles; T-A only",
    ),
    (
        "one pair straight",
        "3s 3h 4s 4h 5s 5h",
        None,
        {"single": 3, "pair": 3, "pair_straight": 1},
        "3 singles, 3 pairs, 33-55",
    ),
    (
        "two triples",
        "3s 3h 3d 4s 4h 4d",
        None,
        {
            "single": 2,
            "pair": 2,
            "triple": 2,
            "triple_single": 2,
            "triple_pair": 2,
            "airplane": 1,
        },
        "2 + 2 + 2; 333+4, 444+3; 333+44, 444+33; 333444",
    ),
    (
        "an airplane with wings",
        "3s 3h 3d 4s 4h 4d 5c 9s",
        None,
        {
            "single": 4,
            "pair": 2,
            "triple": 2,
            "triple_single": 6,
            "triple_pair": 2,
            "airplane": 1,
            "airplane_singles": 1,
        },
        "3 4 5 9; 33 44; 333 444; 333+4/5/9, 444+3/5/9; 333+44, 444+33; 333444; 333444+5 9",
    ),
    (
        "four with two singles",
        "3s 3h 3d 3c 5s 7s",
        None,
        {"single": 3, "pair": 1, "triple": 1, "triple_single": 2, "bomb": 1, "four_two_singles": 1},
        "3 5 7; 33; 333; 333+5, 333+7; 3333; 3333+5 7",
    ),
    (
        "four with two, both ways",
        "3s 3h 3d 3c 5s 5h 7s 7h",
        None,
        {
            "single": 3,
            "pair": 3,
            "triple": 1,
            "triple_single": 2,
            "triple_pair": 2,
            "bomb": 1,
            "four_two_singles": 3,
            "four_two_pairs": 1,
        },
        "3 5 7; 33 55 77; 333; 333+5/7; 333+55/77; 3333; 3333+55, +57, +77; 3333+55 77",
    ),
    (
        "the rocket is never kickers",
        "3s 3h 3d 3c BJ RJ",
        None,
        {"single": 3, "pair": 1, "triple": 1, "triple_single": 2, "bomb": 1, "rocket": 1},
        "3 BJ RJ; 33; 333; 333+BJ/RJ; 3333; rocket; no 3333+BJ RJ",
    ),
    (
        "four triples in a row",
        "3s 3h 3d 4s 4h 4d 5s 5h 5d 6s 6h 6d",
        None,
        {
            "single": 4,
            "pair": 4,
            "triple": 4,
            "triple_single": 12,
            "triple_pair": 12,
            "pair_straight": 3,
            "airplane": 6,
            "airplane_singles": 9,
            "airplane_pairs": 3,
        },
        "4 + 4 + 4; 4x3 + 4x3 with one or a pair; 33-55, 44-66, 33-66; chains 34 45 56 345 "
        "456 3456; wings: 34+55/56/66, 45+33/36/66, 56+33/34/44 (a wing triple next to the "
        "chain would lengthen it, so 345+666 is the chain 3456 and not counted twice); "
        "34+55 66, 45+33 66, 56+33 44",
    ),
    (
        "queens to aces with 2s",
        "Qs Qh Qd Ks Kh Kd As Ah Ad 2s 2h 2d",
        None,
        {
            "single": 4,
            "pair": 4,
            "triple": 4,
            "triple_single": 12,
            "triple_pair": 12,
            "pair_straight": 1,
            "airplane": 3,
            "airplane_singles": 7,
            "airplane_pairs": 2,
        },
        "4 + 4 + 4; 4x3 + 4x3; QQ-AA; QK KA QKA; QK+AA/A2/22, KA+QQ/Q2/22, QKA+222; "
        "QK+AA 22, KA+QQ 22",
    ),
    (
        "pairs over a pair",
        "5s 5h 9s 9h 2s 2h BJ RJ",
        "8s 8h",
        {"pass": 1, "pair": 2, "rocket": 1},
        "pass; 99 22 (55 is lower); rocket",
    ),
    (
        "jokers over a 2",
        "3s 2h BJ RJ",
        "2c",
        {"pass": 1, "single": 2, "rocket": 1},
        "pass; BJ RJ (2 does not beat 2); rocket",
    ),
    (
        "a higher bomb",
        "3s 3h 3d 3c 8s 8h 8d 8c BJ",
        "7s 7h 7d 7c",
        {"pass": 1, "bomb": 1},
        "pass; 8888 (3333 is lower, no rocket)",
    ),
    ("nothing beats the rocket", "2s 2h 2d 2c", "BJ RJ", {"pass": 1}, "pass only"),
    (
        "straights of five",
        "4s 5s 6s 7h 8h 9h",
        "3d 4h 5d 6c 7s",
        {"pass": 1, "straight": 2},
        "pass; 4-8, 5-9 (no six-card straight)",
    ),
    (
        "an airplane over an airplane",
        "5s 5h 5d 6s 6h 6d 7s 7h 9s",
        "3s 3h 3d 4s 4h 4d 5c 6c",
        {"pass": 1, "airplane_singles": 2},
        "pass; 555666 + 77 or 79",
    ),
    (
        "pair wings",
        "5s 5h 5d 6s 6h 6d 7s 7h Ts Th Js Jh",
        "3s 3h 3d 4s 4h 4d 8s 8h 9s 9h",
        {"pass": 1, "airplane_pairs": 3},
        "pass; 555666 + two of 77 TT JJ",
    ),
    (
        "bombs over anything",
        "4s 4h 4d 4c 6s BJ RJ",
        "As",
        {"pass": 1, "single": 2, "bomb": 1, "rocket": 1},
        "pass; BJ RJ; 4444; rocket",
    ),
    (
        "four with two over four with two",
        "9s 9h 9d 9c 3s 4s",
        "5s 5h 5d 5c 2s 2h",
        {"pass": 1, "four_two_singles": 1, "bomb": 1},
        "pass; 9999+3 4; 9999",
    ),
]


@pytest.mark.parametrize(
    ("name", "hand", "table", "kinds", "why"), POSITIONS, ids=[p[0] for p in POSITIONS]
)
def test_perft_position(
    name: str, hand: str, table: str | None, kinds: dict[str, int], why: str
) -> None:
    state = lead_position(hand) if table is None else follow_position(hand, table)
    moves = state.legal_moves()
    found = Counter("pass" if isinstance(m, Pass) else m.combo.kind.value for m in moves)
    assert dict(found) == kinds, why
    assert len(set(keys(moves))) == len(moves)  # one play per multiset of ranks


def test_order_is_by_kind_length_rank_then_kickers() -> None:
    moves = lead_position("3s 3h 3d 4s 4h 4d 5c 9s").legal_moves()
    assert [str(m) for m in moves] == [
        "3s", "4s", "5c", "9s",
        "3s 3h", "4s 4h",
        "3s 3h 3d", "4s 4h 4d",
        "3s 3h 3d 4s", "3s 3h 3d 5c", "3s 3h 3d 9s", "3s 4s 4h 4d", "4s 4h 4d 5c", "4s 4h 4d 9s",
        "3s 3h 3d 4s 4h", "3s 3h 4s 4h 4d",
        "3s 3h 3d 4s 4h 4d",
        "3s 3h 3d 4s 4h 4d 5c 9s",
    ]  # fmt: skip
    follow = follow_position("5s 5h 9s 9h 2s 2h BJ RJ", "8s 8h").legal_moves()
    assert [str(m) for m in follow] == ["pass", "9s 9h", "2s 2h", "BJ RJ"]


def perft(state, depth: int) -> int:  # type: ignore[no-untyped-def]
    if depth == 0 or state.is_terminal:
        return 1
    return sum(perft(state.apply(state.to_move, m), depth - 1) for m in state.legal_moves())


def test_perft_depth_two() -> None:
    """Seat 0 leads from 3 3 4 (3 plays: 3, 4, 33); seat 1 holds 5 5 and answers each with a
    5 or 55, or passes (2 each): 2 + 2 + 2 = 6 at depth 2."""
    from games.rules.doudizhu import GameState

    state = GameState.play_position(["3s 3h 4s", "5s 5h", "Ks"], landlord=0)
    assert perft(state, 1) == 3
    assert perft(state, 2) == 6
