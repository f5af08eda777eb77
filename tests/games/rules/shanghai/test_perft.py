"""Counted positions: distinct legal plays of fixed hands (one per multiset of ranks, and the
pass when following), each count checked against the oracle's brute force (every sub-multiset
of the hand, read by the rules' definitions), and perft: the number of action sequences a few
moves deep from small four-seat positions, counted by the engine and by a brute-force search
built on the oracle alone."""

from __future__ import annotations

from collections import Counter

import pytest

from games.rules.shanghai import GameState, Pass, Play
from games.rules.shanghai.cards import parse_cards
from games.rules.shanghai.combos import classify, counts_of_cards
from tests.games.rules.shanghai.helpers import counts_of_text, follow_position, lead_position
from tests.games.rules.shanghai.oracle import Key, best, legal_multisets
from tests.games.rules.shanghai.oracle import beats as oracle_beats

# (hand, table or "", bombs allowed, total count with the pass, {kind: count}, reasoning)
POSITIONS = [
    ("3s 5h 7d 9c Js Kh", "", True, 6, {"single": 6}, "6 singles"),
    ("3s 3s 4h", "", True, 3, {"single": 2, "pair": 1}, "3, 4; 33 (two 3s of a suit: two decks)"),
    ("BJ BJ RJ", "", True, 3, {"single": 2, "pair": 1}, "BJ, RJ; BJ BJ; BJ RJ is nothing"),
    (
        "BJ BJ RJ RJ",
        "",
        True,
        5,
        {"single": 2, "pair": 2, "joker_bomb": 1},
        "BJ, RJ; BJ BJ, RJ RJ; the four-joker bomb",
    ),
    (
        "3s 3h 3d 3c 3s",
        "",
        True,
        5,
        {"single": 1, "pair": 1, "triple": 1, "bomb": 2},
        "3; 33; 333; 3333, 33333 (a bomb, not a full house)",
    ),
    (
        "3s 3h 3d BJ BJ RJ",
        "",
        True,
        7,
        {"single": 3, "pair": 2, "triple": 1, "full_house": 1},
        "3, BJ, RJ; 33, BJ BJ; 333; 333 BJ BJ (never 333 BJ RJ)",
    ),
    (
        "As 2s 3s 4s 5s 6s",
        "",
        True,
        9,
        {"single": 6, "straight": 3},
        "6 singles; A2345, 23456, A23456",
    ),
    (
        "Js Qs Ks As 2s",
        "",
        True,
        5,
        {"single": 5},
        "JQKA2 is no straight",
    ),
    (
        "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As",
        "",
        True,
        13 + 53,
        {"single": 13, "straight": 53},
        "13 singles; a straight of n = 5..12 cards is one of the 15 - n windows of the places "
        "A 2 ... K A (10 + 9 + ... + 3 = 52), and the 13-card straight once (A..K is 2..A)",
    ),
    (
        "As As Ah 2s 2s 2h 3s 3h",
        "",
        True,
        3 + 3 + 2 + 4 + 1 + 1,
        {
            "single": 3,
            "pair": 3,
            "triple": 2,
            "full_house": 4,
            "sister_pairs": 1,
            "airplane": 1,
        },
        "A, 2, 3; AA, 22, 33; AAA, 222; AAA+22, AAA+33, 222+AA, 222+33; AA2233; AAA222",
    ),
    (
        "3s 3h 3d 4s 4h 4d 5s 5h 6s 6h",
        "",
        True,
        4 + 4 + 2 + 6 + 3 + 1 + 1,
        {
            "single": 4,
            "pair": 4,
            "triple": 2,
            "full_house": 6,
            "sister_pairs": 3,
            "airplane": 1,
            "airplane_cannons": 1,
        },
        "4 singles, 4 pairs, 2 triples; 333 and 444 each with one of the 3 other pairs; "
        "334455, 445566, 33445566; 333444; 333444+5566",
    ),
    ("9s 9h Ts Th 2s 2h", "8s 8h", True, 4, {"pair": 3}, "pass; 99, TT, 22"),
    (
        "5s 5h 5d 5c 6s 6h 6d 6c 6s BJ BJ RJ RJ",
        "As Ah Ad Ac",
        True,
        3,
        {"bomb": 1, "joker_bomb": 1},
        "pass; 66666 (5 cards beat 4; 5555 and 6666 do not beat AAAA); four jokers",
    ),
    (
        "5s 5h 5d 5c 6s 6h 6d 6c 6s BJ BJ RJ RJ",
        "As Ah Ad Ac",
        False,
        1,
        {},
        "pass only: no bombs left",
    ),
    (
        "As 2s 3s 4s 5s 6s 7s",
        "As 2s 3s 4s 5s",
        True,
        3,
        {"straight": 2},
        "pass; 23456, 34567 (A2345 itself does not beat A2345)",
    ),
    (
        "9s 9h 9d Ts Th Td 3s 3h 4s 4h",
        "5s 5h 5d 6s 6h 6d 8s 8h 9s 9h",
        True,
        2,
        {"airplane_cannons": 1},
        "pass; 999TTT+3344",
    ),
]


def kinds(plays: list[Play]) -> dict[str, int]:
    return dict(Counter(p.combo.kind.value for p in plays if p.combo is not None))


def position(hand: str, table: str, bombs: bool) -> GameState:
    left = (None, None if bombs else 0, 1, 1)
    if table:
        return follow_position(hand, table, bombs_left=left)
    return lead_position(hand, bombs_left=(None if bombs else 0, 1, 1, 1))


@pytest.mark.parametrize(
    ("hand", "table", "bombs", "total", "by_kind", "why"), POSITIONS, ids=[p[5] for p in POSITIONS]
)
def test_counted_positions(
    hand: str, table: str, bombs: bool, total: int, by_kind: dict[str, int], why: str
) -> None:
    state = position(hand, table, bombs)
    moves = state.legal_moves()
    plays = [m for m in moves if isinstance(m, Play)]
    assert isinstance(moves[0], Pass) == bool(table)
    keys = [tuple(counts_of_cards(p.cards)) for p in plays]
    assert len(set(keys)) == len(keys), "one play per multiset of ranks"
    oracle = legal_multisets(counts_of_text(hand), counts_of_text(table) if table else None, bombs)
    assert set(keys) == oracle
    assert len(moves) == total
    assert kinds(plays) == by_kind
    for play in plays:
        assert state.is_legal(state.to_move, play)  # type: ignore[arg-type]


def test_lead_order_is_kind_length_rank_then_kicker() -> None:
    state = lead_position("3s 3h 3d 4s 4h 4d 5s 5h 6s 6h As 2s 7s 8s BJ BJ RJ RJ 9s 9h 9d 9c")
    plays = [m for m in state.legal_moves() if isinstance(m, Play)]
    order = [k.value for k in type(plays[0].combo.kind)]  # type: ignore[union-attr]
    keys = []
    for play in plays:
        combo = play.combo
        assert combo is not None
        keys.append((order.index(combo.kind.value), combo.length, combo.rank))
    assert keys == sorted(keys)


# Perft --------------------------------------------------------------------------------------------

PERFT = [
    # (hands, landlord, bombs_left, depth, count)
    (["3s 3h 4s 5s 6s 7s", "3d 4h 4d", "9s 9h 9d 9c", "As 2s 2h BJ"], 0, (None, 1, 1, 1), 5),
    (["5s 5h 5d 5c 5s", "6s 6h", "7s 8s 9s Ts Js", "BJ BJ RJ RJ Qs"], 1, (1, None, 0, 2), 5),
    (["As 2s 3s 4s 5s 6s", "2h 3h 4h 5h 6h 7h", "Ks Kh Kd Qs Qh", "8s 8h 8d 8c"], 2, None, 5),
]


def engine_perft(state: GameState, depth: int) -> int:
    if depth == 0 or state.is_terminal:
        return 1
    seat = state.to_move
    assert seat is not None
    return sum(engine_perft(state.apply(seat, m), depth - 1) for m in state.legal_moves())


def oracle_perft(
    hands: list[Key],
    seat: int,
    table: tuple[int, Key] | None,
    passes: int,
    bombs_left: list[int | None],
    depth: int,
) -> int:
    """The same count from the oracle's readings, with the rules of play written out again."""
    if depth == 0 or any(sum(h) == 0 for h in hands):
        return 1
    total = 0
    nxt = (seat + 1) % 4
    if table is not None:  # the pass
        if passes == 2:
            total += oracle_perft(hands, table[0], None, 0, bombs_left, depth - 1)
        else:
            total += oracle_perft(hands, nxt, table, passes + 1, bombs_left, depth - 1)
    allowed = bombs_left[seat] != 0
    for key in legal_multisets(hands[seat], None if table is None else table[1], allowed):
        reading = best(key)
        assert reading is not None
        if table is not None:
            on_table = best(table[1])
            assert on_table is not None and oracle_beats(reading, on_table)
        left = list(bombs_left)
        if reading[0] in ("bomb", "joker_bomb") and left[seat] is not None:
            left[seat] = left[seat] - 1  # type: ignore[operator]
        after = list(hands)
        after[seat] = tuple(a - b for a, b in zip(hands[seat], key, strict=True))
        total += oracle_perft(after, nxt, (seat, key), 0, left, depth - 1)
    return total


@pytest.mark.parametrize(("hands", "landlord", "bombs_left", "depth"), PERFT)
def test_perft(
    hands: list[str], landlord: int, bombs_left: tuple[int | None, ...] | None, depth: int
) -> None:
    state = GameState.play_position(hands, landlord=landlord, bombs_left=bombs_left)
    keys = [tuple(counts_of_cards(parse_cards(h))) for h in hands]
    left = list(state.bombs_left)
    for d in range(1, depth + 1):
        assert engine_perft(state, d) == oracle_perft(keys, landlord, None, 0, left, d), d


def test_perft_figures() -> None:
    """The counts themselves, so that a change to either side shows."""
    hands, landlord, bombs_left, _ = PERFT[0]
    state = GameState.play_position(hands, landlord=landlord, bombs_left=bombs_left)
    assert [engine_perft(state, d) for d in range(1, 5)] == PERFT_FIGURES


PERFT_FIGURES = [7, 9, 26, 66]


def test_classify_of_every_play_is_its_combo() -> None:
    for hand, table, bombs, *_ in POSITIONS:
        for move in position(hand, table, bombs).legal_moves():
            if isinstance(move, Play):
                assert classify(counts_of_cards(move.cards)) == move.combo
