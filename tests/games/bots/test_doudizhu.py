"""The 斗地主 bot: registered as the engine's bot and by name, shown only its seat's view, and
playing as the issue asks (bids by strength, keeps bombs and the rocket, leads chains and
airplanes, leaves a partner's winning play alone, stops a landlord about to go out); and the
plain 斗地主 players and the arena."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

from games.bots import (
    DoudizhuGreedyPolicy,
    DoudizhuPolicy,
    DoudizhuRandomPolicy,
    GreedyPolicy,
    Policy,
    choose_for,
    make_policy,
)
from games.bots.doudizhu_arena import format_role_report, full_duel, play_game, role_duel
from games.rules.doudizhu import (
    CALL,
    ENGINE,
    NO_CALL,
    NO_ROB,
    PASS,
    ROB,
    Action,
    ComboKind,
    DealOn,
    GameState,
    Play,
)
from games.rules.doudizhu.simulate import play_phase_start

BOT = DoudizhuPolicy()

# Three hands of 17 and the bottom: seat 0 strong (the rocket, two 2s, a bomb of 9s), seat 1
# middling (two 2s, three As), seat 2 weak (nothing above a K).
STRONG = "BJ RJ 2s 2h 9s 9h 9d 9c 3s 4s 5s 6s 7s Ts Js Qs Ks"
MIDDLE = "2d 2c As Ah Ad 3h 4h 5h 5d 7h 8h 8s Jh Qh Kh 3d 4d"
WEAK = "6d 7d 8d Td Jd Qd Kd 3c 4c 5c 6c 7c 8c Tc Jc Qc Kc"
BOTTOM = "Ac 6h Th"


class Spy:
    def __init__(self, inner: Policy[Action]) -> None:
        self.inner = inner
        self.name = inner.name
        self.views: list[dict[str, Any]] = []

    def choose(self, state_view: dict[str, Any], legal: Sequence[Action]) -> Action:
        self.views.append(state_view)
        return self.inner.choose(state_view, legal)


def choose(state: GameState) -> str:
    return str(choose_for(state, BOT))


def bidding(hands: list[str], first_bidder: int) -> GameState:
    state = GameState.from_position(hands, BOTTOM, first_bidder)
    return state.apply(first_bidder, DealOn(17))


# Registration ----------------------------------------------------------------------------------


def test_the_engine_and_make_policy_give_the_doudizhu_bots() -> None:
    assert isinstance(ENGINE.bot_policy(), DoudizhuPolicy)
    assert isinstance(make_policy("sensible", game="doudizhu"), DoudizhuPolicy)
    assert isinstance(make_policy("greedy", game="doudizhu"), DoudizhuGreedyPolicy)
    assert isinstance(make_policy("random", seed=3, game="doudizhu"), DoudizhuRandomPolicy)
    assert isinstance(make_policy("greedy"), GreedyPolicy)  # 干瞪眼 unless told
    for policy in (BOT, DoudizhuGreedyPolicy(), DoudizhuRandomPolicy(1)):
        assert isinstance(policy, Policy)
    with pytest.raises(ValueError, match="no bots play"):
        make_policy("sensible", game="chess")
    with pytest.raises(ValueError, match="no bot is called"):
        make_policy("clever", game="doudizhu")


def test_the_bot_is_shown_only_its_seats_view() -> None:
    spies = [Spy(make_policy(name, seed=1, game="doudizhu")) for name in ("sensible",) * 3]
    end = play_game(ENGINE.deal(5, players=3, options=ENGINE.default_options), spies)
    assert end.is_terminal
    for seat, spy in enumerate(spies):
        assert spy.views
        for view in spy.views:
            assert view["seat"] == seat and "hands" not in view
            json.dumps(view)  # plain data: nothing that could carry the state along
            # Another seat's cards appear only when that seat declared 明牌.
            assert {int(s) for s in view["shown"]} <= {show["seat"] for show in view["shows"]}


def test_the_same_view_gives_the_same_choice_whatever_the_hidden_cards() -> None:
    # The opponents' cards differ, the bot's view does not: its choice cannot differ.
    one = GameState.play_position(["3s 4s 5s 6s 7s 9h", "8s 9s", "Ts Js"], landlord=0)
    two = GameState.play_position(["3s 4s 5s 6s 7s 9h", "Ts Js", "8s 9s"], landlord=0)
    assert one.view(0) == two.view(0)
    assert choose_for(one, BOT) == choose_for(two, BOT)


# Bidding ---------------------------------------------------------------------------------------


def test_it_bids_by_the_strength_of_its_hand() -> None:
    state = bidding([STRONG, MIDDLE, WEAK], first_bidder=2)
    assert choose_for(state, BOT) == NO_CALL  # the weak hand
    state = state.apply(2, NO_CALL)
    assert choose_for(state, BOT) == CALL  # the strong hand
    state = bidding([STRONG, MIDDLE, WEAK], first_bidder=1)
    assert choose_for(state, BOT) == CALL  # middling: it calls, and no more
    state = state.apply(1, CALL)
    assert choose_for(state, BOT) == NO_ROB  # seat 2, weak
    state = state.apply(2, NO_ROB)
    assert choose_for(state, BOT) == ROB  # seat 0, strong: it takes the hand from the caller


# Play ------------------------------------------------------------------------------------------


def test_it_keeps_its_bomb_and_rocket_when_leading() -> None:
    state = GameState.play_position(["3s 5h 5d 5c 5s 9c Jd", "4s 6h 7h 8d Td Qs Ks", "As 2s"])
    play = choose_for(state, BOT)
    assert isinstance(play, Play) and play.combo is not None
    assert not play.combo.is_bomb and play.combo.kind is not ComboKind.FOUR_TWO_SINGLES
    state = GameState.play_position(["3s 7h 9d BJ RJ Jd", "4s 6h 7s 8d Td Qs Ks", "4h 4d 6c"])
    assert choose(state) == "3s"


def test_it_spends_no_bomb_on_a_small_card_early() -> None:
    state = GameState.play_position(
        ["3s 4c 6d 8s 9s Tc Qc Kc", "5s 5h 5d 5c BJ RJ 7h", "Ah 2d 7d"], landlord=0
    )
    state = state.apply_text(0, "3s")
    play = choose_for(state, BOT)
    assert play is PASS or (isinstance(play, Play) and not play.combo.is_bomb)  # type: ignore[union-attr]


def test_it_leads_chains_and_airplanes() -> None:
    straight = GameState.play_position(["3s 4h 5d 6c 7s 8s Jh Kd", "5h", "6h"])
    assert choose(straight) == "3s 4h 5d 6c 7s 8s"
    airplane = GameState.play_position(["3s 3h 3d 4s 4h 4d 7c 9h Kd", "5s", "6s"])
    assert choose(airplane) == "3s 3h 3d 4s 4h 4d 7c 9h"
    pairs = GameState.play_position(["5s 5h 6s 6h 7s 7h 9c Qd", "3s", "4s"])
    assert choose(pairs) == "5s 5h 6s 6h 7s 7h"


def test_a_farmer_does_not_beat_its_partners_winning_play() -> None:
    state = GameState.play_position(["3s 4s 2s Kd", "8s 9s Qh", "Ks As 2h 6d"], landlord=0)
    assert choose(state.apply_text(0, "3s").apply_text(1, "Qh")) == "pass"
    state = GameState.play_position(["3s 3h 2s Kd", "8s 8h 9s", "Ks Kh As 2h"], landlord=0)
    assert choose(state.apply_text(0, "3s 3h").apply_text(1, "8s 8h")) == "pass"
    # ... unless the answer empties its hand
    state = GameState.play_position(["3s 4s 2s Kd", "8s 9s Qh", "Ks"], landlord=0)
    assert choose(state.apply_text(0, "3s").apply_text(1, "8s")) == "Ks"


def test_it_stops_a_landlord_about_to_go_out() -> None:
    # The landlord plays a single with one card left: the farmer beats it, high.
    state = GameState.play_position(["9s Ks", "5s Ah 3d 3c", "6s 7s"], landlord=0)
    assert choose(state.apply_text(0, "9s")) == "Ah"
    # A pair with one card left, and only a bomb beats it: the bomb goes.
    state = GameState.play_position(["9s 9h Ks", "5s 5h 5d 5c 3d 4c 6c 7c 8c", "6s 7s"], landlord=0)
    assert choose(state.apply_text(0, "9s 9h")) == "5s 5h 5d 5c"
    # The landlord far from out: no bomb on its pair.
    state = GameState.play_position(
        ["9s 9h Ks 3s 4s 6h 8h Th Jh", "5s 5h 5d 5c 3d 4c 6c 7c 8c", "6s 7s"], landlord=0
    )
    assert choose(state.apply_text(0, "9s 9h")) == "pass"


# The plain players and the arena ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["random", "greedy", "sensible"])
def test_whole_games_end_with_only_legal_actions(name: str) -> None:
    for seed in range(6):
        seats = [make_policy(name, seed=seed * 3 + s, game="doudizhu") for s in range(3)]
        end = play_game(ENGINE.deal(seed, players=3, options=ENGINE.default_options), seats)
        assert end.is_terminal and sum(ENGINE.settle(end, base=1).payments) == 0
        shows = [a for _, a in end.history if type(a).__name__ == "Show"]
        assert name == "sensible" or not shows  # the plain players never show their hand


def test_greedy_plays_its_lowest_and_random_is_seeded() -> None:
    state = play_phase_start(4)
    legal = tuple(state.legal_actions(0))
    first_play = next(a for a in legal if isinstance(a, Play))
    assert DoudizhuGreedyPolicy().choose(state.view(0), legal) == first_play
    picks = [DoudizhuRandomPolicy(random.Random(9)).choose(state.view(0), legal) for _ in "ab"]
    assert picks[0] == picks[1] and picks[0] in legal


def test_the_arena_plays_each_role_and_repeats_itself() -> None:
    report = role_duel("sensible", "random", deals=4, seed=2)
    assert [row.role for row in report.rows] == ["landlord", "farmers", "baseline"]
    assert all(row.games == 4 and 0 <= row.wins <= 4 for row in report.rows)
    assert format_role_report(report) == format_role_report(
        role_duel("sensible", "random", deals=4, seed=2)
    )
    full = full_duel("sensible", "greedy", deals=2, seed=2)
    assert [row.games for row in full.rows] == [6, 6]
    assert abs(full.row("full baseline").coins_mean) < 1e-9  # zero-sum over the three seats
    assert "whole games" in format_role_report(full)


def test_the_sensible_bot_beats_the_plain_players_in_both_roles() -> None:
    for opponent in ("random", "greedy"):
        report = role_duel("sensible", opponent, deals=30, seed=11)
        baseline = report.row("baseline").win_rate
        assert report.row("landlord").win_rate > max(baseline, 0.6)
        assert report.row("farmers").win_rate > max(1 - baseline, 0.6)
