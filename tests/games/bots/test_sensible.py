"""The sensible bot's choices in positions made by hand."""

from __future__ import annotations

import pytest

from games.bots import SensiblePolicy, choose_for
from games.bots.sensible import _counts, _hand_cost, _one_play_left, _shape
from games.rules.cards import mask_of, parse_cards
from games.rules.gandengyan import PASS, GameState, GandengyanRules, Play
from games.rules.gandengyan.combos import ComboKind
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


def test_it_leads_an_isolated_low_single_before_a_straight_of_high_cards() -> None:
    assert choice(make_position("4s 8h 8d Jc Qs Kd")) == "4s"


@pytest.mark.parametrize(
    ("mine", "expected"),
    [
        ("5s Ah Ad", "Ah Ad"),  # only a bomb beats a pair of As; then the 5 goes out
        ("5s 2h", "2h"),  # no single beats a 2
        ("3s 8h 8d", "8h 8d"),  # the pair first, and the 3 is the last card
    ],
)
def test_with_the_stock_empty_it_leads_what_holds_and_goes_out_with_the_rest(
    mine: str, expected: str
) -> None:
    assert choice(make_position(mine, stock=0)) == expected
    # With cards still to draw it would not be its last play: the awkward card goes first.
    assert choice(make_position(mine, stock=20)) != expected


def test_against_a_single_last_card_it_leads_no_single_when_it_can_help_it() -> None:
    state = make_position("5s 9h Kd Kc", other=1)
    assert choice(state) == "Kd Kc"
    calm = make_position("5s 9h Kd Kc", other=5)
    assert choice(calm) == "5s"
    # Only singles: the A, which nothing but a 2 answers, or the 2, which nothing single does.
    assert choice(make_position("5s 9h Ad", other=1)) == "Ad"
    assert choice(make_position("5s 9h 2d", other=1)) == "2d"
    assert choice(make_position("5s 9h 2d", other=5)) == "5s"


def test_with_the_stock_empty_it_does_not_lead_a_bomb_that_only_puts_off_a_last_card() -> None:
    # Seat 1 holds one card. Leading the bomb would keep the lead, but then a single must go
    # anyway: the bomb is kept, for the rounds it can still win.
    move = choose_for(make_position("5s 9h Jd Kc 7s 7h 7d", other=1, stock=0), SensiblePolicy())
    assert isinstance(move, Play) and move.size == 1


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


@pytest.mark.parametrize(
    ("leader_left", "other", "stock"),
    [
        (1, 5, 0),  # the stock is empty: the leader of the 9 leads its last card next
        (2, 5, 0),  # or its last two, which may be a pair
        (5, 1, 30),  # the next player could beat the 9 with its last card, even early
    ],
)
def test_it_spends_a_2_early_when_an_opponent_is_about_to_go_out(
    leader_left: int, other: int, stock: int
) -> None:
    state = make_position(
        "2s 4d 6c Qh Kd", lead="9d", leader_left=leader_left, other=other, stock=stock
    )
    assert choice(state) == "2s"


@pytest.mark.parametrize("leader_left", [1, 2])
def test_it_keeps_its_2_early_when_a_small_hand_must_draw_before_leading(leader_left: int) -> None:
    # With cards left to draw, the leader of the 9 draws one before it leads again.
    state = make_position("2s 4d 6c Qh Kd", lead="9d", leader_left=leader_left, stock=30)
    assert passes(state)


def _is_soft_bomb(move: object) -> bool:
    return (
        isinstance(move, Play) and move.combo is not None and move.combo.kind is ComboKind.SOFT_BOMB
    )


def test_it_bombs_when_an_opponent_has_one_card_left() -> None:
    # Seat 0 leads a pair of Ks and keeps one card: if nobody answers, it leads that card and wins.
    threat = make_position("7s 7h 7d 3s 5d 9c", lead="Ks Kh", leader_left=1, stock=0)
    assert _is_soft_bomb(choose_for(threat, SensiblePolicy()))
    # The same hand keeps its bomb when nobody is close to going out.
    calm = make_position("7s 7h 7d 3s 5d 9c", lead="Ks Kh", leader_left=5, stock=0)
    assert passes(calm)
    # And while cards are left to draw: seat 0 would draw before it leads again.
    drawing = make_position("7s 7h 7d 3s 5d 9c", lead="Ks Kh", leader_left=1, stock=20)
    assert passes(drawing)


def test_it_bombs_a_single_that_the_next_player_could_go_out_on() -> None:
    # Seat 2 holds one card and answers the 8 after us: a 9 or a 2 would end the game.
    state = make_position("7s 7h 7d 3s 5d Jc", lead="8s", other=1, stock=20)
    assert _is_soft_bomb(choose_for(state, SensiblePolicy()))
    calm = make_position("7s 7h 7d 3s 5d Jc", lead="8s", other=5, stock=20)
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


# House rules -------------------------------------------------------------------------------------


def test_the_bot_splits_its_hand_by_the_house_rules() -> None:
    """Its plan of a hand only uses what the rules allow: no pair straight when they are off,
    no straight longer than the limit, no joker standing for a 2 under joker_not_two."""

    def cost(cards: str, **options: object) -> float:
        mask = mask_of(parse_cards(cards))
        shape = _shape(GandengyanRules.from_dict(options))
        return _hand_cost(_counts(mask), (mask >> 52).bit_count(), shape)

    assert cost("5s 5h 6s 6h 7s 7h", pair_straights=False) > cost("5s 5h 6s 6h 7s 7h")
    assert cost("3s 4s 5s 6s 7s 8s", max_straight=3) > cost("3s 4s 5s 6s 7s 8s")
    assert cost("2s 2h BJ", joker_not_two=True) > cost("2s 2h BJ")
    assert cost("9s 9h BJ", joker_not_two=True) == cost("9s 9h BJ")
    off = GandengyanRules.from_dict({"pair_straights": False})
    pairs = mask_of(parse_cards("5s 5h 6s 6h"))
    assert _one_play_left(pairs, 0, GandengyanRules()) and not _one_play_left(pairs, 0, off)
    joker = mask_of(parse_cards("BJ"))
    no_lone = GandengyanRules.from_dict({"lone_joker_last": False})
    assert _one_play_left(joker, 0, GandengyanRules()) and not _one_play_left(joker, 0, no_lone)


def test_the_bot_reads_the_rules_from_the_view_and_plays_only_legal_moves() -> None:
    rules = GandengyanRules.from_dict({"pair_straights": False, "joker_not_two": True})
    state = GameState.from_position(
        ["5s 5h 6s 6h 2s 2h BJ", "9s", "Ts"], stock="", dealer=0, rules=rules
    )
    legal = state.legal_moves()
    assert all(m.combo.kind is not ComboKind.PAIR_STRAIGHT for m in legal if isinstance(m, Play))
    move = SensiblePolicy().choose(state.view_for(0), legal)
    assert move in legal
