"""Settlement (§7): the multiplier's parts, 春天 and 反春, 加倍 per farmer-landlord pair, and the
coins a ledger can move."""

from __future__ import annotations

import pytest

from games.rules.doudizhu import ENGINE, GameState
from games.rules.doudizhu.settlement import pay_coins, settle
from tests.games.rules.doudizhu.helpers import run

# A deal where seat 0 holds a straight and little else, written out in deal order.
HANDS = [
    "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks 3h 4h 5h 6h 7h 8h",
    "3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd 3c 4c 5c 6c 7c 8c",
    "9h Th Jh Qh Kh Ah 9c Tc Jc Qc Kc Ac As 2s 2h 2d 2c",
]
BOTTOM = "Ad BJ RJ"


def bid_to_play(*steps: tuple[int, str]) -> GameState:
    state = GameState.from_position(HANDS, BOTTOM, 0)
    return run(state, (0, "deal 17"), *steps)


def test_spring_with_robs_show_and_doubles() -> None:
    # Seat 0 calls, seat 1 robs, seat 2 passes, seat 0 robs back: ×4; seat 0 shows: ×2.
    state = bid_to_play((0, "call"), (1, "rob"), (2, "no-rob"), (0, "rob"), (0, "show"),
                        (1, "double"), (2, "no-double"), (0, "double"))  # fmt: skip
    assert state.landlord == 0 and state.multiplier == 8
    # 20 cards: 3..K straight (11), then 3-8 hearts straight (6), then Ad BJ RJ.
    state = run(state, (0, "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks"), (1, "pass"), (2, "pass"),
                (0, "3h 4h 5h 6h 7h 8h"), (1, "pass"), (2, "pass"),
                (0, "BJ RJ"), (1, "pass"), (2, "pass"), (0, "Ad"))  # fmt: skip
    result = settle(state, base=10)
    assert result.spring == "spring" and result.landlord_won
    # 2^2 robs × 2 show × 2 (rocket) × 2 spring = 32
    assert result.multiplier == 32
    assert result.multipliers == {"rob": 4, "show": 2, "bombs": 2, "spring": 2}
    # farmer 1 doubled, the landlord doubled: 10 × 32 × 2 × 2; farmer 2: 10 × 32 × 1 × 2
    assert result.payments == (1280 + 640, -1280, -640)
    assert sum(result.payments) == 0
    assert result.to_json()["doubles"] == [True, True, False]


def test_anti_spring() -> None:
    state = GameState.play_position(["3s 9s", "4s 5s", "6s"], landlord=0)
    state = run(state, (0, "3s"), (1, "4s"), (2, "6s"))
    result = ENGINE.settle(state, base=100)
    assert result.spring == "anti_spring" and not result.landlord_won
    assert result.winner == 2 and result.multiplier == 2
    assert result.payments == (-400, 200, 200)


def test_no_anti_spring_when_the_landlord_played_twice() -> None:
    state = GameState.play_position(["3s 9s Ks", "4s 5s", "6s 8s"], landlord=0)
    state = run(state, (0, "3s"), (1, "4s"), (2, "pass"), (0, "9s"), (1, "pass"), (2, "pass"),
                (0, "Ks"))  # fmt: skip
    assert state.is_terminal and state.spring is None


def test_farmers_win_without_spring_and_bombs_count() -> None:
    state = GameState.play_position(["3s 4s 9s", "5s 5h 5d 5c 6s 7h", "7s"], landlord=0)
    state = run(state, (0, "3s"), (1, "6s"), (2, "pass"), (0, "9s"), (1, "5s 5h 5d 5c"),
                (2, "pass"), (0, "pass"), (1, "7h"))  # fmt: skip
    result = settle(state, base=5)
    assert (result.winner, result.landlord_won, result.spring) == (1, False, None)
    assert result.multiplier == 2 and result.payments == (-20, 10, 10)


def test_settling_an_unfinished_game_is_an_error() -> None:
    state = GameState.play_position(["3s", "4s", "5s"], landlord=0)
    with pytest.raises(ValueError):
        settle(state, base=1)
    with pytest.raises(ValueError):
        settle(state.apply_text(0, "3s"), base=0)


def test_coins_nobody_below_zero() -> None:
    state = GameState.play_position(["3s", "4s", "5s"], landlord=0).apply_text(0, "3s")
    result = settle(state, base=100)  # spring: each farmer owes 200
    assert pay_coins(result, (0, 1000, 1000)) == (400, -200, -200)
    assert pay_coins(result, (0, 150, 0)) == (150, -150, 0)


def test_coins_a_short_landlord_splits_what_it_has() -> None:
    state = GameState.play_position(["3s 9s", "4s 5s", "6s"], landlord=1)
    state = run(state, (1, "4s"), (2, "6s"))  # 反春: the landlord played only the first lead
    # landlord 1 owes seat 2 and seat 0: doubles differ to make the shares unequal
    result = settle(state, base=1)
    assert result.payments == (2, -4, 2)
    assert pay_coins(result, (0, 3, 0)) == (1, -3, 2)  # 1.5 each, the odd coin to seat 2
    assert pay_coins(result, (0, 100, 0)) == (2, -4, 2)
