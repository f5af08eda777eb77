"""The sensible bot's choices in positions made by hand."""

from __future__ import annotations

import pytest

from games.bots import SensiblePolicy, choose_for
from games.rules import PASS, GameState, Play
from games.rules.combos import ComboKind
from tests.games.bots.positions import make_position


def choice(state: GameState) -> str:
    return str(choose_for(state, SensiblePolicy()))


def passes(state: GameState) -> bool:
    return choose_for(state, SensiblePolicy()) is PASS


# Going out -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mine", "lead", "stock", "expected"),
    [
        ("5s 6h 7d", None, 20, "5s 6h 7d"),  # a whole hand that is a straight
        ("9s 9h", None, 20, "9s 9h"),
        ("5c", "4d", 20, "5c"),
        ("2s", "9d", 30, "2s"),  # a 2, early: it goes out, so it is spent
        ("Jh Jd Jc", "8s 8h", 30, "Jh Jd Jc"),  # a bomb, early: it goes out
        ("Qs Kh BJ", "Js Qd Kd", 20, "Qs Kh BJ = Q K A"),  # the joker as the A
        ("BJ", "8s", 0, "BJ = 9"),  # a lone joker, the last card with the stock empty
    ],
)
def test_it_goes_out_whenever_it_can(
    mine: str, lead: str | None, stock: int, expected: str
) -> None:
    assert choice(make_position(mine, lead=lead, stock=stock)) == expected


# Leading ---------------------------------------------------------------------------------------


def test_it_leads_its_lowest_lone_single_not_a_bomb_or_a_2() -> None:
    assert choice(make_position("3s 7h 9d 9c 9s 2h Kd")) == "3s"
    assert choice(make_position("8s 9h 9d 9c 9s 2h 2d Kd")) == "8s"


def test_it_leads_a_straight_of_low_cards_rather_than_breaking_it() -> None:
    assert choice(make_position("3s 4h 5d 6c 7s Kd")) == "3s 4h 5d 6c 7s"
    assert choice(make_position("3s 3h 4d 4c 5s 5h 9d")) == "3s 3h 4d 4c 5s 5h"


def test_it_leads_a_2_only_when_anything_else_would_break_up_its_hand() -> None:
    assert choice(make_position("Ks Kh 2c")) == "Ks Kh"
    # A 7 or a pair of 7s would break the bomb: the 2s go first, and the bomb stays whole.
    assert choice(make_position("7s 7h 7d 2c")) == "2c"
    assert choice(make_position("7s 7h 7d 7c 2c 2d")) == "2d 2c"


def test_it_gives_a_straight_with_the_joker_the_meaning_that_cannot_be_beaten() -> None:
    # Q K and the joker lead as Q-K-A, which no straight beats, rather than J-Q-K.
    assert choice(make_position("Qs Kh BJ 2c")) == "Qs Kh BJ = Q K A"


def test_against_a_single_last_card_it_leads_no_single_when_it_can_help_it() -> None:
    state = make_position("5s 9h Kd Kc", other=1)
    assert choice(state) == "Kd Kc"
    calm = make_position("5s 9h Kd Kc", other=5)
    assert choice(calm) == "5s"
    # Only singles: the A, which nothing but a 2 answers, or the 2, which nothing single does.
    assert choice(make_position("5s 9h Ad", other=1)) == "Ad"
    assert choice(make_position("5s 9h 2d", other=1)) == "2d"
    assert choice(make_position("5s 9h 2d", other=5)) == "5s"


# Following -------------------------------------------------------------------------------------


def test_it_follows_with_a_lone_single_and_keeps_its_pair_of_2s() -> None:
    # A 5 is led: the lone 6 answers it; the pair of 2s stays a pair, early or late.
    assert choice(make_position("6s 2h 2d 9c Jd", lead="5d", stock=30)) == "6s"
    assert choice(make_position("6s 2h 2d 9c Jd", lead="5d", stock=4)) == "6s"


def test_it_does_not_break_a_pair_or_a_straight_to_follow_a_single() -> None:
    assert passes(make_position("6s 6h 9c Jd Kd", lead="5d"))
    assert passes(make_position("5s 6h 7d Jc Kd", lead="4d"))


def test_it_keeps_its_2_early_and_spends_it_late() -> None:
    assert passes(make_position("2s 4d 6c Qh Kd", lead="9d", stock=30))
    assert choice(make_position("2s 4d 6c Qh Kd", lead="9d", stock=5)) == "2s"


@pytest.mark.parametrize(("leader_left", "other"), [(1, 5), (2, 5), (5, 1)])
def test_it_spends_a_2_early_when_an_opponent_is_about_to_go_out(
    leader_left: int, other: int
) -> None:
    state = make_position("2s 4d 6c Qh Kd", lead="9d", leader_left=leader_left, other=other)
    assert choice(state) == "2s"


def test_it_bombs_when_an_opponent_has_one_card_left() -> None:
    # Seat 0 leads a pair of Ks and keeps one card: if nobody answers, it leads that card and wins.
    threat = make_position("7s 7h 7d 3s 5d 9c", lead="Ks Kh", leader_left=1)
    move = choose_for(threat, SensiblePolicy())
    assert isinstance(move, Play) and move.combo is not None
    assert move.combo.kind is ComboKind.SOFT_BOMB
    # The same hand keeps its bomb when nobody is close to going out.
    calm = make_position("7s 7h 7d 3s 5d 9c", lead="Ks Kh", leader_left=5)
    assert passes(calm)


def test_it_keeps_a_bomb_that_would_not_win_the_game() -> None:
    state = make_position("Jh Jd Jc 4s 6h 8c Ts", lead="8s 8h", stock=0)
    assert passes(state)


def test_it_plays_a_bomb_that_leaves_it_one_play_from_going_out() -> None:
    state = make_position("Jh Jd Jc 4s 5h 6c", lead="8s 8h", stock=0)
    assert choice(state) == "Jh Jd Jc"


def test_it_does_not_waste_the_joker_on_a_follow() -> None:
    # 6 + joker would answer the pair of 5s, but the joker is worth more than that.
    state = make_position("6s 9h Jd Kc BJ", lead="5s 5h", stock=30)
    assert passes(state)
