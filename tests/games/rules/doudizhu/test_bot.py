"""The 斗地主 bot: what it does in the positions that matter, and that it beats random play."""

from __future__ import annotations

import random

from games.bots.doudizhu import DoudizhuPolicy, hand_cost, hand_strength
from games.bots.policy import choose_for
from games.rules.doudizhu import (
    CALL,
    DOUBLE,
    ENGINE,
    NO_CALL,
    DealOn,
    GameState,
    Phase,
    Play,
)
from games.rules.doudizhu.combos import ComboKind, counts_of_ranks
from tests.games.rules.doudizhu.helpers import HANDS, fresh, run

BOT = DoudizhuPolicy()


def choose(state: GameState) -> str:
    return str(choose_for(state, BOT))


def test_the_deal_runs_to_its_end_and_the_bot_bids_by_strength() -> None:
    state = fresh(2)
    assert choose_for(state, BOT) == DealOn(17)
    state = state.apply(2, DealOn(17))
    # Seat 2 holds the K-high hand without a 2 or a joker: no call. Seat 0 holds four 2s.
    assert choose_for(state, BOT) == NO_CALL
    state = state.apply(2, NO_CALL)
    assert choose_for(state, BOT) == CALL
    assert hand_strength(counts_of_ranks("2 2 2 2 BJ RJ A")) > hand_strength(
        counts_of_ranks("3 5 7 9 J")
    )


def test_it_goes_out_at_once() -> None:
    state = GameState.play_position(["3s 3h 3d 4s", "5s", "6s"], landlord=0)
    assert choose(state) == "3s 3h 3d 4s"


def test_it_leads_chains_and_airplanes() -> None:
    state = GameState.play_position(["3s 4h 5d 6c 7s 9s 9h 9d Ts Th Td Kd", "Ks", "As"], landlord=0)
    play = choose_for(state, BOT)
    assert isinstance(play, Play) and play.combo is not None
    assert play.combo.kind in (ComboKind.STRAIGHT, ComboKind.AIRPLANE, ComboKind.AIRPLANE_SINGLES)


def test_a_farmer_lets_its_partners_play_run() -> None:
    state = GameState.play_position(["3s 4s 2s", "8s 9s", "Ks As 2h"], landlord=0)
    state = run(state, (0, "3s"), (1, "8s"))
    assert choose(state) == "pass"  # seat 2 could beat its partner's 8 but does not


def test_it_bombs_a_landlord_about_to_go_out() -> None:
    state = GameState.play_position(["Ks As", "5s 5h 5d 5c 3s 4s 6s 7s 9s", "Qd"], landlord=0)
    state = state.apply_text(0, "As")
    assert choose(state) == "5s 5h 5d 5c"
    # ... but not on a far-off landlord's card
    state = GameState.play_position(
        ["Ks As 3c 4c 6c 8c Tc", "5s 5h 5d 5c 3s 4s 6s 7s 9s", "Qd"], landlord=0
    )
    assert choose(state.apply_text(0, "As")) == "pass"


def test_against_a_landlord_with_one_card_it_leads_no_single_it_can_avoid() -> None:
    state = GameState.play_position(["3c Ks", "4h 4d 9c 2s", "Qd"], landlord=0)
    state = run(state, (0, "3c"), (1, "2s"), (2, "pass"), (0, "pass"))
    assert state.to_move == 1 and state.hand_count(0) == 1
    assert choose(state) == "4h 4d"


def test_doubling_and_costs() -> None:
    state = run(fresh(0), (0, "deal 17"), (0, "call"), (1, "no-rob"), (2, "no-rob"))
    assert state.phase is Phase.DOUBLE
    assert choose_for(state, BOT) in (DOUBLE, ENGINE.timeout_action(state, 1))
    assert hand_cost(counts_of_ranks("3 4 5 6 7")) == 1
    assert hand_cost(counts_of_ranks("3 5 7")) == 3
    assert hand_cost(counts_of_ranks("3 3 3 4 4 4 5 9")) == 1
    assert hand_cost(counts_of_ranks("2 BJ")) == 1
    assert HANDS  # the fixed deal the helpers use


def test_it_wins_most_games_against_random_play() -> None:
    wins = 0
    games = 60
    for seed in range(games):
        rng = random.Random(seed)
        state = ENGINE.deal(seed, players=3, options=ENGINE.default_options)
        bot_seat = seed % 3
        while not state.is_terminal:
            seat = state.to_move
            assert seat is not None
            if seat == bot_seat or state.phase is not Phase.PLAY:
                action = choose_for(state, BOT)
            else:
                moves = state.legal_moves()
                action = moves[rng.randrange(len(moves))]
            state = state.apply(seat, action)
        result = ENGINE.settle(state, base=1)
        wins += result.payments[bot_seat] > 0
    assert wins / games > 0.7
