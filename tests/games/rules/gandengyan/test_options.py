"""The rules object: the standard game, and the house-rule options the engine can play."""

from __future__ import annotations

import pytest

from games.rules import RulesError
from games.rules.gandengyan import PASS, GameState, GandengyanRules, parse_move, settle
from games.rules.gandengyan.options import STANDARD


def test_empty_options_are_the_standard_game() -> None:
    assert GandengyanRules.from_dict({}) is STANDARD
    assert GandengyanRules.from_dict(None) is STANDARD
    assert STANDARD.to_dict() == {}
    assert STANDARD.deal_sizes == (6, 5, 5)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"playerz": 4}, "unknown rules option 'playerz'"),
        ({"players": 7}, "'players' must be a whole number from 2 to 6"),
        ({"players": "3"}, "'players' must be a whole number from 2 to 6"),
        ({"players": True}, "'players' must be a whole number from 2 to 6"),
        ({"draw": "everyone"}, "'draw' must be"),
        ({"rocket_multiplier": 5}, "'rocket_multiplier' must be 4 or 8"),
        ({"max_multiplier": 0}, "'max_multiplier' must be a whole number from 1 to 1000000"),
        ({"max_multiplier": 10**4000}, "'max_multiplier' must be a whole number from 1 to"),
        ({"one_card_free": "yes"}, "'one_card_free' must be true or false"),
        ({"bombs_any_higher": 1}, "'bombs_any_higher' must be true or false"),
        ({"joker_not_two": "yes"}, "'joker_not_two' must be true or false"),
        ({"pair_straights": None}, "'pair_straights' must be true or false"),
        ({"max_straight": 0}, "'max_straight' must be a whole number from 1 to 54 or null"),
        ({"max_straight": 55}, "'max_straight' must be a whole number from 1 to 54 or null"),
        ({"max_pair_straight": 4.0}, "'max_pair_straight' must be a whole number from 1 to"),
        ({"standard_play": False}, "unknown rules option 'standard_play'"),
    ],
)
def test_bad_options_are_refused_by_name(options: dict, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        GandengyanRules.from_dict(options)


PLAY_OPTIONS = {
    "twos_jump_pairs": True,
    "twos_top_bombs": True,
    "pair_straights": False,
    "max_straight": 6,
    "max_pair_straight": 6,
    "lone_joker_last": False,
    "natural_over_wild": True,
    "bombs_any_higher": True,
    "joker_not_two": True,
}


@pytest.mark.parametrize(("name", "value"), sorted(PLAY_OPTIONS.items()))
def test_every_house_rule_option_is_playable(name: str, value: object) -> None:
    rules = GandengyanRules.from_dict({name: value})
    assert rules.to_dict() == {name: value}
    assert GandengyanRules.from_dict(rules.to_dict()) == rules
    assert not rules.standard_play
    assert GameState.deal(3, rules=rules).legal_moves()


def test_dealing_and_settlement_options_keep_the_standard_plays() -> None:
    rules = GandengyanRules.from_dict({"players": 5, "draw": "winner", "one_card_free": True})
    assert rules.standard_play and "standard_play" not in rules.to_dict()


@pytest.mark.parametrize(
    ("options", "straight", "pair_straight"),
    [
        ({}, 12, 24),
        ({"max_straight": 5}, 5, 24),
        ({"max_straight": 40}, 12, 24),
        ({"max_pair_straight": 7}, 12, 6),
        ({"max_pair_straight": 1}, 12, 0),
        ({"pair_straights": False, "max_pair_straight": 8}, 12, 0),
    ],
)
def test_straight_limits(options: dict, straight: int, pair_straight: int) -> None:
    rules = GandengyanRules.from_dict(options)
    assert (rules.straight_limit, rules.pair_straight_limit) == (straight, pair_straight)


def test_options_round_trip_through_their_dict() -> None:
    rules = GandengyanRules.from_dict({"players": 4, "draw": "winner", "max_multiplier": 64})
    assert rules.to_dict() == {"players": 4, "draw": "winner", "max_multiplier": 64}
    assert GandengyanRules.from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_players_option_deals_six_to_the_dealer_and_five_to_the_others(players: int) -> None:
    rules = GandengyanRules.from_dict({"players": players})
    state = GameState.deal(11, rules=rules)
    counts = [state.hand_count(seat) for seat in range(players)]
    assert counts[state.dealer] == 6
    assert sorted(counts) == [5] * (players - 1) + [6]
    assert state.stock_count == 54 - 6 - 5 * (players - 1)


def test_with_four_players_a_round_ends_after_three_passes() -> None:
    rules = GandengyanRules.from_dict({"players": 4})
    state = GameState.from_position(
        ["3s 4s", "5h 6h", "7d 8d", "9c Tc"], stock="Js Qs Ks As", dealer=0, rules=rules
    )
    state = state.apply(0, parse_move("3s")).apply(1, PASS).apply(2, PASS)
    assert state.to_move == 3 and state.table is not None
    state = state.apply(3, PASS)
    assert state.table is None and state.to_move == 0
    # everyone drew one card, the round winner first
    assert [str(c) for c in state.hand(0)] == ["4s", "Js"]
    assert [str(c) for c in state.hand(3)] == ["9c", "Tc", "As"]


def test_draw_winner_option_lets_only_the_round_winner_draw() -> None:
    rules = GandengyanRules.from_dict({"draw": "winner"})
    state = GameState.from_position(["3s 4s", "5h 6h", "7d 8d"], "Js Qs Ks", dealer=0, rules=rules)
    state = state.apply(0, parse_move("3s")).apply(1, PASS).apply(2, PASS)
    assert [str(c) for c in state.hand(0)] == ["4s", "Js"]
    assert state.hand_count(1) == 2 and state.hand_count(2) == 2
    assert state.stock_count == 2


def _rocket_then_out(rules: GandengyanRules) -> GameState:
    """Seat 0 plays a rocket, then goes out with its last card."""
    state = GameState.from_position(
        ["BJ RJ 3s", "4h 5h 6h 2h", "7d"], stock="", dealer=0, rules=rules
    )
    return (
        state.apply(0, parse_move("BJ RJ")).apply(1, PASS).apply(2, PASS).apply(0, parse_move("3s"))
    )


def test_rocket_multiplier_option() -> None:
    standard = settle(_rocket_then_out(STANDARD), base=10)
    four = settle(_rocket_then_out(GandengyanRules.from_dict({"rocket_multiplier": 4})), base=10)
    assert standard.multiplier == 8 and four.multiplier == 4
    # both losers never played: spring doubles each
    assert standard.payments == (8 * 10 * 2 * 5, -8 * 10 * 2 * 4, -8 * 10 * 2 * 1)
    assert four.payments == (4 * 10 * 2 * 5, -4 * 10 * 2 * 4, -4 * 10 * 2 * 1)


def test_max_multiplier_caps_the_product() -> None:
    capped = settle(_rocket_then_out(GandengyanRules.from_dict({"max_multiplier": 2})), base=10)
    assert capped.multiplier == 2
    assert sum(capped.payments) == 0


def test_one_card_free_and_twos_jokers_double() -> None:
    free = settle(_rocket_then_out(GandengyanRules.from_dict({"one_card_free": True})), base=10)
    assert free.payments[2] == 0 and free.payments[1] == -8 * 10 * 2 * 4
    doubled = settle(
        _rocket_then_out(GandengyanRules.from_dict({"loser_twos_jokers_double": True})), base=10
    )
    # seat 1 holds one 2: its payment doubles once
    assert doubled.payments[1] == -8 * 10 * 2 * 4 * 2
    assert sum(doubled.payments) == 0


def test_dealer_one_play_spring() -> None:
    rules = GandengyanRules.from_dict({"dealer_one_play_spring": True})
    state = GameState.from_position(["3s 9s", "4h", "7d 8d"], stock="", dealer=0, rules=rules)
    state = state.apply(0, parse_move("3s")).apply(1, parse_move("4h"))
    result = settle(state, base=1)
    assert result.winner == 1
    assert result.spring == (True, False, True)
    assert settle(
        GameState.from_position(["3s 9s", "4h", "7d 8d"], "", 0)
        .apply(0, parse_move("3s"))
        .apply(1, parse_move("4h")),
        base=1,
    ).spring == (False, False, True)
