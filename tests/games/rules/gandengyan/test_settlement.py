"""Settlement (rules §7): multiplier, spring, payments, and the three worked examples."""

from __future__ import annotations

import random

import pytest

from games.rules.cards import parse_cards, parse_ranks
from games.rules.gandengyan import ENGINE, GameState, GandengyanRules
from games.rules.gandengyan.combos import combo_from_ranks
from games.rules.gandengyan.moves import PASS, Move, Play
from games.rules.gandengyan.settlement import Settlement, settle

BASE = 400


def act(action: str) -> Move:
    if action == "pass":
        return PASS
    cards, _, meaning = action.partition("=")
    combo = combo_from_ranks(parse_ranks(meaning)) if meaning else None
    return Play(parse_cards(cards), combo)


def play_out(hands: list[str], actions: list[str], dealer: int = 0, stock: str = "") -> GameState:
    state = GameState.from_position(hands, stock, dealer)
    for action in actions:
        state = state.apply(state.to_move, act(action))
    return state


# §7 The three worked examples, played out --------------------------------------------------------

# (hands by seat, dealer, actions, winner, seat of loser A, seat of loser B)
EXAMPLE_1 = (
    ["3s 6s 9c", "4h 8h Th Qh", "5d 7d 9d Jd Kd 2d"],
    0,
    ["3s", "4h", "5d", "6s", "pass", "pass", "9c"],
)
EXAMPLE_2 = (
    ["4h 6d 8d Td Qd 2d", "3s 7s 7h 7d 9c", "5h Jh Kh"],
    1,
    ["3s", "pass", "4h", "7s 7h 7d", "pass", "pass", "9c"],
)
EXAMPLE_3 = (
    ["4h Jh Kh", "5h 5d 5c 6s Ts Qs 2s", "3s 8s 8h 8d 8c 9c"],
    2,
    ["3s", "4h", "5h 5d 5c", "8s 8h 8d 8c", "pass", "pass", "9c"],
)


def test_worked_example_1_no_bomb_no_spring():
    hands, dealer, actions = EXAMPLE_1
    end = play_out(hands, actions, dealer)
    winner, a, b = 0, 1, 2
    assert end.winner == winner
    assert end.hand_count(a) == 3 and end.hand_count(b) == 5
    result = settle(end, base=BASE)
    assert result.multiplier == 1
    assert result.spring == (False, False, False)
    assert result.cards_left == (0, 3, 5)
    assert -result.payments[a] == 1200
    assert -result.payments[b] == 2000
    assert result.payments[winner] == 3200
    assert result.payments == (3200, -1200, -2000)


def test_worked_example_2_one_soft_bomb_and_loser_a_is_spring():
    hands, dealer, actions = EXAMPLE_2
    end = play_out(hands, actions, dealer)
    winner, a, b = 1, 2, 0
    assert end.winner == winner
    assert end.hand_count(a) == 3 and end.hand_count(b) == 5
    result = settle(end, base=BASE)
    assert result.multiplier == 2
    assert result.spring[a] is True
    assert result.spring[b] is False
    assert -result.payments[a] == 4800
    assert -result.payments[b] == 4000
    assert result.payments[winner] == 8800
    assert result.payments == (-4000, 8800, -4800)


def test_worked_example_3_soft_and_hard_bomb():
    hands, dealer, actions = EXAMPLE_3
    end = play_out(hands, actions, dealer)
    winner, a, b = 2, 0, 1
    assert end.winner == winner
    assert end.hand_count(a) == 2 and end.hand_count(b) == 4
    result = settle(end, base=BASE)
    assert result.multiplier == 8
    assert result.spring == (False, False, False)
    assert -result.payments[a] == 6400
    assert -result.payments[b] == 12800
    assert result.payments[winner] == 19200
    assert result.payments == (-6400, -12800, 19200)


# §7 Multiplier -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hands", "actions", "multiplier"),
    [
        pytest.param(
            ["7s 8s 9c", "4h 5h", "6h Th"],
            ["7s", "pass", "pass", "8s", "pass", "pass", "9c"],
            1,
            id="no-bomb",
        ),
        pytest.param(
            ["7s 7h 7d 9c", "4h 5h", "6h 8h"], ["7s 7h 7d", "pass", "pass", "9c"], 2, id="soft"
        ),
        pytest.param(
            ["7s 7h BJ 9c", "4h 5h", "6h 8h"],
            ["7s 7h BJ", "pass", "pass", "9c"],
            2,
            id="wildcard-soft",
        ),
        pytest.param(
            ["7s 7h 7d 7c 9c", "4h 5h", "6h 8h"],
            ["7s 7h 7d 7c", "pass", "pass", "9c"],
            4,
            id="hard",
        ),
        pytest.param(
            ["7s 7h 7d RJ 9c", "4h 5h", "6h 8h"],
            ["7s 7h 7d RJ", "pass", "pass", "9c"],
            4,
            id="wildcard-hard",
        ),
        pytest.param(
            ["BJ RJ 9c", "4h 5h", "6h 8h"], ["BJ RJ", "pass", "pass", "9c"], 8, id="rocket"
        ),
        pytest.param(
            ["7s 7h 7d 9c", "8s 8h 8d 4h", "6h 5h"],
            ["7s 7h 7d", "8s 8h 8d", "pass", "pass", "4h"],
            4,
            id="soft-soft",
        ),
        pytest.param(
            ["7s 7h BJ 9c", "8s 8h RJ 4h", "6h 5h"],
            ["7s 7h BJ", "8s 8h RJ", "pass", "pass", "4h"],
            4,
            id="wildcard-soft-wildcard-soft",
        ),
        pytest.param(
            ["7s 7h 7d 9c", "3s 3h 3d 3c 4h", "6h 5h"],
            ["7s 7h 7d", "3s 3h 3d 3c", "pass", "pass", "4h"],
            8,
            id="soft-hard",
        ),
        pytest.param(
            ["7s 7h 7d 7c 9c", "8s 8h 8d 8c 4h", "6h"],
            ["7s 7h 7d 7c", "8s 8h 8d 8c", "pass", "pass", "4h"],
            16,
            id="hard-hard",
        ),
        pytest.param(
            ["7s 7h 7d 9c", "3s 3h 3d 3c 4h", "BJ RJ 5h"],
            ["7s 7h 7d", "3s 3h 3d 3c", "BJ RJ", "pass", "pass", "5h"],
            64,
            id="soft-hard-rocket",
        ),
        pytest.param(
            ["7s 7h 7d 9c Tc", "3s 3h 3d 3c 4h", "BJ RJ 5h 6h"],
            ["7s 7h 7d", "3s 3h 3d 3c", "BJ RJ", "pass", "pass", "5h", "pass", "pass", "6h"],
            64,
            id="bombs-by-winner-and-losers",
        ),
    ],
)
def test_multiplier_is_the_product_over_every_bomb_played(hands, actions, multiplier):
    end = play_out(hands, actions)
    assert end.winner is not None
    assert end.multiplier == multiplier
    result = settle(end, base=BASE)
    assert result.multiplier == multiplier
    for seat in range(3):
        if seat != end.winner:
            spring = 2 if result.spring[seat] else 1
            expected = BASE * end.hand_count(seat) * multiplier * spring
            assert result.payments[seat] == -expected


def test_multiplier_grows_as_bombs_are_played():
    state = GameState.from_position(
        ["7s 7h 7d 9c", "3s 3h 3d 3c 4h", "BJ RJ 5h"], stock="", dealer=0
    )
    seen = []
    for seat, action in enumerate(["7s 7h 7d", "3s 3h 3d 3c", "BJ RJ"]):
        state = state.apply(seat, act(action))
        seen.append(state.multiplier)
    assert seen == [2, 8, 64]


# §7 Spring --------------------------------------------------------------------------------------


def test_both_losers_who_never_played_are_spring():
    end = play_out(["3s", "4s 5s 6s", "7s 8s 9s Ts Js"], ["3s"])
    result = settle(end, base=BASE)
    assert result.spring == (False, True, True)
    assert result.payments == (6400, -2400, -4000)


def test_spring_is_judged_for_each_loser_alone():
    # seat 1 played, seat 2 only passed
    end = play_out(
        ["3s 9c", "4h 5h 6h", "Ks Kh"], ["3s", "4h", "pass", "pass", "5h", "pass", "pass", "6h"]
    )
    assert end.winner == 1
    result = settle(end, base=BASE)
    assert result.spring == (False, False, True)
    assert result.cards_left == (1, 0, 2)
    assert result.payments == (-400 * 1, 400 * 1 + 400 * 2 * 2, -400 * 2 * 2)


def test_passing_is_not_playing_for_spring():
    end = play_out(["3s 4s", "Ks Kh", "Qs Qh"], ["3s", "pass", "pass", "4s"])
    result = settle(end, base=BASE)
    assert result.spring == (False, True, True)
    assert result.payments == (2 * 400 * 2 * 2, -400 * 2 * 2, -400 * 2 * 2)


def test_dealer_who_played_once_is_not_spring():
    end = play_out(["3s 9c Tc", "4h 5h", "Ks"], ["3s", "4h", "pass", "pass", "5h"])
    assert end.winner == 1
    result = settle(end, base=BASE)
    assert result.spring == (False, False, True)
    assert result.payments == (-400 * 2, 400 * 2 + 400 * 1 * 2, -400 * 1 * 2)


def test_spring_doubles_on_top_of_the_multiplier():
    end = play_out(["7s 7h 7d 7c 9c", "4h 5h", "6h"], ["7s 7h 7d 7c", "pass", "pass", "9c"])
    result = settle(end, base=BASE)
    assert result.multiplier == 4
    assert result.payments == (400 * 4 * 2 * (2 + 1), -400 * 2 * 4 * 2, -400 * 1 * 4 * 2)


# §7 Payments -----------------------------------------------------------------------------------


def test_payment_is_base_times_cards_left_times_multiplier_times_spring():
    hands, dealer, actions = EXAMPLE_3
    end = play_out(hands, actions, dealer)
    for base in (1, 400, 1000, 30000, 80000):
        result = settle(end, base=base)
        assert result.base == base
        assert result.payments == (-base * 2 * 8, -base * 4 * 8, base * 6 * 8)


def test_payments_are_zero_sum_in_random_games():
    chooser = random.Random(11)
    for seed in range(30):
        state = GameState.deal(seed)
        while state.to_move is not None:
            moves = state.legal_moves()
            state = state.apply(state.to_move, moves[chooser.randrange(len(moves))])
        result = settle(state, base=BASE)
        assert sum(result.payments) == 0
        assert result.winner == state.winner
        assert result.payments[state.winner] > 0
        played = {seat for seat, move in state.history if isinstance(move, Play)}
        for seat in range(3):
            if seat == state.winner:
                continue
            spring = seat not in played
            assert result.spring[seat] is spring
            expected = BASE * state.hand_count(seat) * state.multiplier * (2 if spring else 1)
            assert result.payments[seat] == -expected
        assert result.payments[state.winner] == -sum(
            p for seat, p in enumerate(result.payments) if seat != state.winner
        )


def test_settle_refuses_a_game_that_is_not_over():
    state = GameState.from_position(["3s 9c", "4h", "Ks"], stock="", dealer=0)
    with pytest.raises(ValueError, match="not over"):
        settle(state, base=BASE)
    with pytest.raises(ValueError, match="not over"):
        settle(state.apply(0, act("3s")), base=BASE)
    with pytest.raises(ValueError, match="not over"):
        settle(GameState.deal(0), base=BASE)


@pytest.mark.parametrize("base", [0, -400, 1.5, "400", None, True])
def test_settle_refuses_a_base_that_is_not_a_positive_integer(base):
    end = play_out(["3s", "4h", "Ks"], ["3s"])
    with pytest.raises(ValueError):
        settle(end, base=base)


def test_settlement_to_json():
    hands, dealer, actions = EXAMPLE_2
    result = settle(play_out(hands, actions, dealer), base=BASE)
    assert isinstance(result, Settlement)
    assert result.to_json() == {
        "winner": 1,
        "multiplier": 2,
        "spring": [False, False, True],
        "payments": [-4000, 8800, -4800],
    }


def test_a_deal_with_no_winner_settles_to_nothing() -> None:
    """Two seats left with a lone joker each under ``lone_joker_last: false``: nobody can play,
    the deal ends with no winner, and nobody pays, whatever the other options say."""
    rules = GandengyanRules.from_dict(
        {
            "players": 2,
            "lone_joker_last": False,
            "loser_twos_jokers_double": True,
            "max_multiplier": 4,
        }
    )
    state = GameState.from_position(["3s 3h 3d BJ", "RJ"], stock="", dealer=0, rules=rules)
    end = state.apply(0, act("3s 3h 3d"))
    assert end.is_terminal and end.winner is None and end.multiplier == 2
    result = settle(end, base=BASE)
    assert result == Settlement(
        winner=None,
        base=BASE,
        multiplier=2,
        cards_left=(1, 1),
        spring=(False, False),
        payments=(0, 0),
    )
    assert ENGINE.pay(result, [0, 10]) == (0, 0)
    with pytest.raises(ValueError, match="not over"):
        settle(state, base=BASE)
