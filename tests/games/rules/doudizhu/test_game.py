"""The state machine: the deal and its 明牌, 叫地主 / 抢地主 (§2), 明牌's moments (§3), 加倍
(§4), the play (§6), the errors' codes, and the engine's protocol."""

from __future__ import annotations

import pytest

from games.rules.doudizhu import (
    CALL,
    DOUBLE,
    ENGINE,
    NO_CALL,
    NO_DOUBLE,
    NO_ROB,
    PASS,
    ROB,
    SHOW,
    DealOn,
    DoudizhuRules,
    GameState,
    IllegalMoveError,
    Phase,
    Play,
    Show,
    deal_from_seed,
)
from games.rules.protocol import GameEngine, GameStateProtocol
from tests.games.rules.doudizhu.helpers import fresh, run, to_play


def code(state: GameState, seat: int, text: str) -> str:
    with pytest.raises(IllegalMoveError) as info:
        state.apply_text(seat, text)
    return info.value.code


# The deal -------------------------------------------------------------------------------------


def test_seeded_deal_is_reproducible_and_complete() -> None:
    deal = deal_from_seed(7)
    assert deal == deal_from_seed(7)
    cards = [c for hand in deal.hands for c in hand] + list(deal.bottom)
    assert len(set(cards)) == 54 and [len(h) for h in deal.hands] == [17, 17, 17]
    assert deal_from_seed(7, first_bidder=2).next_seed == deal.next_seed
    assert deal_from_seed(8).hands != deal.hands


def test_the_deal_goes_on_by_steps_and_ends_at_17() -> None:
    state = fresh(1)
    assert state.phase is Phase.DEAL and state.to_move == 1 and state.dealt == 0
    assert state.legal_actions(1)[:2] == [DealOn(1), DealOn(2)]
    assert state.legal_actions(0) == [Show("start")]
    state = state.apply(1, DealOn(5))
    assert state.dealt == 5 and state.phase is Phase.DEAL
    assert code(state, 1, "deal 5") == "bad_step"
    assert code(state, 0, "deal 6") == "not_your_turn"
    assert code(state, 1, "call") == "wrong_phase"
    state = state.apply(1, DealOn(17))
    assert state.phase is Phase.BID and state.legal_actions(1) == [CALL, NO_CALL, Show("deal", 17)]


# Bidding --------------------------------------------------------------------------------------


def bid(first: int, *words: str) -> GameState:
    state = fresh(first).apply(first, DealOn(17))
    for word in words:
        state = state.apply_text(state.to_move, word)  # type: ignore[arg-type]
    return state


def test_a_call_nobody_robs() -> None:
    state = bid(1, "call", "no-rob", "no-rob")
    assert (state.landlord, state.robs, state.phase) == (1, 0, Phase.DOUBLE)
    assert state.hand_count(1) == 20 and state.hand_count(0) == 17


def test_robbing_in_seat_order_then_the_caller_robs_back() -> None:
    state = bid(0, "call")
    assert state.to_move == 1 and state.legal_actions(1) == [ROB, NO_ROB]
    state = run(state, (1, "rob"), (2, "no-rob"))
    assert state.to_move == 0  # the caller's last chance
    state = state.apply(0, ROB)
    assert (state.landlord, state.robs) == (0, 2)


def test_the_last_to_rob_is_landlord() -> None:
    state = bid(0, "call", "rob", "rob", "no-rob")
    assert (state.landlord, state.robs) == (2, 2)
    state = bid(0, "call", "no-rob", "rob", "no-rob")
    assert (state.landlord, state.robs) == (2, 1)


def test_a_seat_that_said_no_call_may_not_rob() -> None:
    state = bid(0, "no-call", "call")
    assert state.to_move == 2  # seat 0 said 不叫: only seat 2 may rob
    state = state.apply(2, ROB)
    assert state.to_move == 1  # the caller's last chance
    state = state.apply(1, NO_ROB)
    assert (state.landlord, state.robs) == (2, 1)


def test_the_last_caller_has_nobody_to_rob_it() -> None:
    state = bid(0, "no-call", "no-call", "call")
    assert (state.landlord, state.robs, state.to_move) == (2, 0, 0)


def test_all_no_call_deals_again_from_the_next_seed() -> None:
    state = ENGINE.deal(5, players=3, options=ENGINE.default_options)
    first = state.to_move
    state = state.apply(first, DealOn(17))  # type: ignore[arg-type]
    for _ in range(3):
        state = state.apply(state.to_move, NO_CALL)  # type: ignore[arg-type]
    again = deal_from_seed(deal_from_seed(5).next_seed)
    assert state.phase is Phase.DEAL and state.dealt == 0 and len(state.deals) == 2
    assert state.current_deal == again and state.to_move == again.first_bidder
    assert state.hand(0) == tuple(sorted(again.hands[0]))


def test_all_no_call_with_a_show_makes_the_first_shower_landlord() -> None:
    state = run(fresh(0), (0, "deal 10"), (2, "show"), (1, "show"))
    assert state.first_bidder == 2 and state.to_move == 2  # the first shower bids first
    state = run(state, (2, "deal 17"), (2, "no-call"), (0, "no-call"), (1, "no-call"))
    assert (state.landlord, state.robs, state.show_multiplier) == (2, 0, 3)


def test_wrong_bids() -> None:
    state = bid(0)
    assert code(state, 0, "rob") == "wrong_bid"
    state = state.apply(0, CALL)
    assert code(state, 1, "call") == "wrong_bid"
    assert code(state, 2, "rob") == "not_your_turn"


# 明牌 -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "moment", "multiplier"),
    [(0, Show("start"), 5), (1, Show("deal", 1), 4), (8, Show("deal", 8), 4),
     (9, Show("deal", 9), 3), (17, Show("deal", 17), 3)],
)  # fmt: skip
def test_show_moments_during_the_deal(step: int, moment: Show, multiplier: int) -> None:
    state = fresh(0)
    if step:
        state = state.apply(0, DealOn(step))
    state = state.apply(1, SHOW)  # out of turn
    assert state.shows == ((1, moment),) and state.show_multiplier == multiplier
    assert state.history[-1] == (1, moment)


def test_show_rules() -> None:
    state = run(fresh(0), (0, "deal 4"), (1, "show"))
    assert code(state, 1, "show") == "already_shown"
    assert code(state, 1, "show deal 9") == "already_shown"
    assert code(state, 2, "show deal 9") == "wrong_moment"
    state = run(state, (2, "show deal 4"), (1, "deal 12"), (0, "show"))
    assert state.show_multiplier == 4  # the largest, once
    state = run(fresh(0), (0, "deal 17"), (0, "call"))
    assert code(state, 1, "show") == "show_too_late"
    state = run(state, (1, "no-rob"), (2, "no-rob"))
    assert code(state, 1, "show") == "landlord_only"
    assert Show("bottom") in state.legal_actions(0)
    state = state.apply(0, SHOW)
    assert state.show_multiplier == 2 and state.shows == ((0, Show("bottom")),)
    state = run(fresh(0), (0, "deal 17"), (0, "call"), (1, "no-rob"), (2, "no-rob"),
                (1, "no-double"), (2, "no-double"), (0, "no-double"))  # fmt: skip
    assert state.phase is Phase.PLAY and Show("bottom") in state.legal_actions(0)
    state = state.apply_text(0, "3s")
    assert code(state, 0, "show") == "show_too_late"


# 加倍 -------------------------------------------------------------------------------------------


def doubling(coins: tuple[int, int, int] | None, threshold: int | None) -> GameState:
    state = fresh(0, rules=DoudizhuRules(double_threshold=threshold), coins=coins)
    return run(state, (0, "deal 17"), (0, "call"), (1, "no-rob"), (2, "no-rob"))


def test_doubling_order_and_out_of_turn_choices() -> None:
    state = doubling(None, None)
    assert state.to_move == 1 and state.legal_actions(2) == [NO_DOUBLE, DOUBLE]
    state = state.apply(2, DOUBLE)  # out of turn
    assert state.to_move == 1
    assert code(state, 2, "no-double") == "already_chose"
    state = run(state, (1, "no-double"), (0, "double"))
    assert state.phase is Phase.PLAY and state.to_move == 0
    assert state.doubles == (True, False, True)
    assert code(state, 1, "double") == "wrong_phase"


@pytest.mark.parametrize(
    ("coins", "may"),
    [
        ((1000, 1000, 1000), [True, True, True]),
        ((1000, 100, 1000), [False, False, True]),  # landlord needs everyone above
        ((100, 1000, 1000), [False, False, False]),  # farmers need the landlord above
        ((101, 101, 100), [False, True, False]),
        ((100, 100, 100), [False, False, False]),  # strictly above
    ],
)
def test_doubling_threshold(coins: tuple[int, int, int], may: list[bool]) -> None:
    state = doubling(coins, 100)
    assert [state.may_double(s) for s in range(3)] == may
    for seat in range(3):
        assert (DOUBLE in state.legal_actions(seat)) is may[seat]
    if not may[1]:
        assert code(state, 1, "double") == "may_not_double"


def test_no_coins_no_doubling_in_a_room_with_a_threshold() -> None:
    state = doubling(None, 100)
    assert not any(state.may_double(s) for s in range(3))
    state = fresh(0, rules=DoudizhuRules(double_threshold=0)).with_coins((5, 5, 5))
    state = run(state, (0, "deal 17"), (0, "call"), (1, "no-rob"), (2, "no-rob"))
    assert all(state.may_double(s) for s in range(3))


# The play ---------------------------------------------------------------------------------------


def test_play_errors() -> None:
    state = to_play(0)
    assert code(state, 0, "pass") == "leader_must_play"
    assert code(state, 0, "3d") == "cards_not_in_hand"
    assert code(state, 0, "3s 5s") == "not_a_combination"
    assert code(state, 1, "3d") == "not_your_turn"
    assert code(state, 0, "call") == "wrong_phase"
    state = state.apply_text(0, "5s")
    assert code(state, 1, "4h") == "does_not_beat"
    state = run(state, (1, "pass"), (2, "pass"))
    assert state.to_move == 0 and state.table is None
    assert state.legal_actions(1) == [] and state.legal_actions(2) == []


def test_the_game_ends_when_a_hand_is_empty() -> None:
    state = GameState.play_position(["3s 3h 9s", "5s 8s", "6s 7s"], landlord=0)
    state = run(state, (0, "9s"), (1, "pass"), (2, "pass"), (0, "3s 3h"))
    assert state.is_terminal and state.winner == 0 and state.phase is Phase.OVER
    assert state.spring == "spring"
    assert code(state, 1, "5s") == "game_over"
    assert state.legal_actions(1) == [] and state.legal_moves() == [] and state.to_move is None


def test_bombs_and_the_rocket_double_the_game() -> None:
    state = GameState.play_position(["3s 3h 3d 3c 4s", "BJ RJ 5s", "6s"], landlord=0)
    state = run(state, (0, "3s 3h 3d 3c"), (1, "BJ RJ"))
    assert state.bombs == 2 and state.multiplier == 4


# Timeouts and the protocol ------------------------------------------------------------------------


def test_timeouts() -> None:
    state = fresh(0)
    assert ENGINE.timeout_action(state, 0) == DealOn(17)
    with pytest.raises(IllegalMoveError):
        ENGINE.timeout_action(state, 1)
    state = state.apply(0, DealOn(17))
    assert ENGINE.timeout_action(state, 0) == NO_CALL
    state = state.apply(0, CALL)
    assert ENGINE.timeout_action(state, 1) == NO_ROB
    state = run(state, (1, "no-rob"), (2, "no-rob"))
    assert ENGINE.timeout_action(state, 2) == NO_DOUBLE  # out of turn too
    state = run(state, (1, "no-double"), (2, "no-double"), (0, "no-double"))
    assert str(ENGINE.timeout_action(state, 0)) == "3s"  # the smallest lead
    state = state.apply_text(0, "3s")
    assert ENGINE.timeout_action(state, 1) is PASS


def test_engine_follows_the_protocol() -> None:
    assert isinstance(ENGINE, GameEngine)
    assert (ENGINE.key, ENGINE.title, ENGINE.player_counts) == ("doudizhu", "斗地主", (3,))
    state = ENGINE.deal(3, players=3, options=ENGINE.default_options, dealer=2)
    assert isinstance(state, GameStateProtocol) and state.to_move == 2
    with pytest.raises(ValueError):
        ENGINE.deal(3, players=4, options=ENGINE.default_options)
    assert ENGINE.options_to_json(ENGINE.options_from_json({})) == {}
    rules = ENGINE.options_from_json({"double_threshold": 500})
    assert ENGINE.options_to_json(rules) == {"double_threshold": 500}
    from games.rules.errors import NotationError, RulesError

    with pytest.raises(RulesError):
        ENGINE.options_from_json({"players": 4})
    with pytest.raises(RulesError):
        ENGINE.options_from_json({"double_threshold": -1})
    with pytest.raises(RulesError):
        ENGINE.options_from_json({"double_threshold": 10**4000})
    assert ENGINE.options_from_json({"double_threshold": 10**12}).double_threshold == 10**12
    for action in (CALL, NO_ROB, DOUBLE, NO_DOUBLE, DealOn(3), Show("deal", 3), SHOW, PASS,
                   Play.parse("3s 3h")):  # fmt: skip
        assert ENGINE.action_from_json(ENGINE.action_to_json(action)) == action
    bad_actions = [
        {},
        {"bid": "maybe"},
        {"deal": 0},
        {"deal": 18},
        {"double": 1},
        {"show": "deal"},
        {"play": 3},
        {"pass": False},
        {"play": "3s", "as": "3"},
    ]
    for bad in bad_actions:
        with pytest.raises(NotationError):
            ENGINE.action_from_json(bad)
    assert ENGINE.deal_from_json(ENGINE.deal_to_json(state), ENGINE.default_options) == state


def test_states_are_immutable_values() -> None:
    state = fresh(0)
    after = state.apply(0, DealOn(17))
    assert state.dealt == 0 and after.dealt == 17
    assert after == fresh(0).apply(0, DealOn(17)) and hash(after) == hash(
        fresh(0).apply(0, DealOn(17))
    )
    assert after != state


def test_the_round_being_played_starts_with_the_play_that_led_it() -> None:
    state = GameState.play_position(["3s 4s 9s", "5h 6h", "7d 8d"], landlord=0)
    state = state.apply_text(0, "3s").apply_text(1, "5h").apply_text(2, "pass")
    assert [(seat, str(action)) for seat, action in state.round_actions] == [
        (0, "3s"),
        (1, "5h"),
        (2, "pass"),
    ]
    state = state.apply_text(0, "pass")  # two passes: seat 1 leads a new round
    assert state.round_actions == ()
    state = state.apply_text(1, "6h")
    assert [(seat, str(action)) for seat, action in state.round_actions] == [(1, "6h")]
