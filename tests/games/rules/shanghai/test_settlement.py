"""Settlement (§12): 小地主 6/2, 大地主 9/3, times the base; zero-sum; paid in coins that exist."""

from __future__ import annotations

import pytest

from games.rules.shanghai import GameState, pay_coins, settle
from tests.games.rules.shanghai.helpers import run


def finished(level: int, landlord_wins: bool) -> GameState:
    state = GameState.play_position(["3s 9s", "4s", "5s", "6s"], landlord=0, level=level)
    if landlord_wins:
        state = run(state, (0, "9s"), (1, "pass"), (2, "pass"), (3, "pass"), (0, "3s"))
    else:
        state = run(state, (0, "3s"), (1, "4s"))
    assert state.is_terminal
    return state


@pytest.mark.parametrize(
    ("level", "landlord_wins", "payments"),
    [
        (1, True, (600, -200, -200, -200)),
        (1, False, (-600, 200, 200, 200)),
        (2, True, (900, -300, -300, -300)),
        (2, False, (-900, 300, 300, 300)),
    ],
)
def test_points(level: int, landlord_wins: bool, payments: tuple[int, ...]) -> None:
    result = settle(finished(level, landlord_wins), base=100)
    assert result.payments == payments and sum(result.payments) == 0
    assert result.landlord_won is landlord_wins
    assert result.bid == ("small" if level == 1 else "big")
    assert result.points == (6 if level == 1 else 9)
    assert result.to_json()["payments"] == list(payments)


def test_landlord_elsewhere() -> None:
    state = GameState.play_position(["4s", "3s 9s", "5s", "6s"], landlord=1, level=2)
    state = run(state, (1, "3s"), (2, "5s"))
    result = settle(state, base=7)
    assert result.payments == (21, -63, 21, 21) and result.winner == 2


def test_not_over() -> None:
    with pytest.raises(ValueError):
        settle(GameState.deal(0), base=1)
    with pytest.raises(ValueError):
        settle(finished(1, True), base=0)


def test_pay_a_winning_landlord_what_the_farmers_have() -> None:
    result = settle(finished(1, True), base=100)
    assert pay_coins(result, (0, 1000, 50, 0)) == (250, -200, -50, 0)


def test_a_losing_landlord_short_of_coins_splits_what_it_has() -> None:
    result = settle(finished(2, False), base=100)
    assert pay_coins(result, (10_000, 0, 0, 0)) == (-900, 300, 300, 300)
    assert pay_coins(result, (500, 0, 0, 0)) == (-500, 167, 167, 166)
    assert pay_coins(result, (301, 0, 0, 0)) == (-301, 101, 100, 100)
    assert pay_coins(result, (0, 0, 0, 0)) == (0, 0, 0, 0)
    state = GameState.play_position(["4s", "5s", "3s 9s", "6s"], landlord=2)
    result = settle(run(state, (2, "3s"), (3, "6s")), base=1)
    assert pay_coins(result, (0, 0, 4, 0)) == (1, 1, -4, 2)
