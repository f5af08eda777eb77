"""The bot protocol: what a bot is shown, and what ``choose_for`` checks."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from typing import Any

import pytest

from games.bots import (
    POLICY_NAMES,
    GreedyPolicy,
    Policy,
    RandomPolicy,
    SensiblePolicy,
    choose_for,
    make_policy,
    play_game,
)
from games.rules import IllegalMoveError
from games.rules.cards import cards_from_mask
from games.rules.gandengyan import PASS, GameState, Move, Play, parse_move

CARD_TOKEN = re.compile(r"\b(?:[2-9TJQKA][shdc]|BJ|RJ)\b")


class Spy:
    """Wraps a policy and keeps every argument it was given."""

    def __init__(self, inner: Policy) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls: list[tuple[Any, Any]] = []

    def choose(self, state_view: dict[str, Any], legal: Sequence[Move]) -> Move:
        self.calls.append((state_view, legal))
        return self.inner.choose(state_view, legal)


def only_plain_data(value: object) -> bool:
    """JSON-like data only: nothing that could carry the game state along."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, dict):
        return all(isinstance(k, str) and only_plain_data(v) for k, v in value.items())
    if isinstance(value, list):
        return all(only_plain_data(item) for item in value)
    return False


def test_the_three_policies_follow_the_protocol() -> None:
    policies = [RandomPolicy(1), GreedyPolicy(), SensiblePolicy()]
    assert all(isinstance(policy, Policy) for policy in policies)
    assert [policy.name for policy in policies] == list(POLICY_NAMES)
    assert [make_policy(name).name for name in POLICY_NAMES] == list(POLICY_NAMES)
    with pytest.raises(ValueError, match="no bot is called"):
        make_policy("clever")


@pytest.mark.parametrize("name", POLICY_NAMES)
def test_a_bot_is_shown_its_own_view_and_nothing_hidden(name: str) -> None:
    for seed in range(4):
        state = GameState.deal(seed)
        spies = [Spy(make_policy(name, seed=seed + seat)) for seat in range(3)]
        while state.to_move is not None:
            seat = state.to_move
            spy = spies[seat]
            move = choose_for(state, spy)
            view, legal = spy.calls[-1]
            assert type(view) is dict and only_plain_data(view)
            assert view == state.view_for(seat)
            assert view["seat"] == seat and "hands" not in view
            assert tuple(legal) == tuple(state.legal_moves())
            assert all(m is PASS or isinstance(m, Play) for m in legal)
            # No card another seat holds, nor any card of the stock, appears anywhere in it.
            hidden = {str(c) for s in range(3) if s != seat for c in state.hand(s)}
            hidden |= {str(c) for c in state.stock_cards()}
            shown = set(CARD_TOKEN.findall(json.dumps(view)))
            assert not shown & hidden, (seed, seat, shown & hidden)
            assert {str(c) for c in state.hand(seat)} <= shown
            state = state.apply(seat, move)


class Cheater:
    name = "cheater"

    def choose(self, state_view: dict[str, Any], legal: Sequence[Move]) -> Move:
        return parse_move("3s 3h 3d 3c")


def test_choose_for_refuses_a_move_that_is_not_legal() -> None:
    state = GameState.from_position(["4s 5s 6s", "7s 8s", "9s Ts"], stock="", dealer=0)
    with pytest.raises(IllegalMoveError) as refused:
        choose_for(state, Cheater())
    assert refused.value.code == "bot_illegal_move"


def test_choose_for_refuses_a_finished_game() -> None:
    state = GameState.from_position(["4s", "7s 8s", "9s Ts"], stock="", dealer=0)
    state = state.apply_text(0, "4s")
    with pytest.raises(IllegalMoveError) as refused:
        choose_for(state, GreedyPolicy())
    assert refused.value.code == "game_over"


def test_a_policy_without_moves_to_choose_from_says_so() -> None:
    view = GameState.deal(3).view_for(0)
    for policy in (RandomPolicy(), GreedyPolicy(), SensiblePolicy()):
        with pytest.raises(ValueError, match="no legal moves"):
            policy.choose(view, [])


def test_random_policy_is_uniform_and_repeatable() -> None:
    state = GameState.deal(11)
    view, legal = state.view_for(state.to_move), state.legal_moves()
    by_seed, by_generator = RandomPolicy(5), RandomPolicy(random.Random(5))
    assert [by_seed.choose(view, legal) for _ in range(20)] == [
        by_generator.choose(view, legal) for _ in range(20)
    ]
    counts = dict.fromkeys(range(len(legal)), 0)
    policy = RandomPolicy(9)
    for _ in range(200 * len(legal)):
        counts[legal.index(policy.choose(view, legal))] += 1
    assert min(counts.values()) > 140 and max(counts.values()) < 260


def test_greedy_plays_its_lowest_combination_and_passes_only_when_it_cannot_beat() -> None:
    state = GameState.from_position(["5s 5h 9d Kc", "6d 6c 2s", "Th Jh Qh"], stock="", dealer=0)
    assert str(choose_for(state, GreedyPolicy())) == "5s"
    state = state.apply_text(0, "5s 5h")
    assert str(choose_for(state, GreedyPolicy())) == "6d 6c"
    state = state.apply_text(1, "6d 6c")
    assert choose_for(state, GreedyPolicy()) is PASS


def test_play_game_plays_to_the_end_through_the_views() -> None:
    spies = [Spy(SensiblePolicy()), Spy(GreedyPolicy()), Spy(RandomPolicy(2))]
    end = play_game(GameState.deal(21), spies)
    assert end.is_terminal and end.winner is not None
    assert sum(len(spy.calls) for spy in spies) == len(end.history)
    assert cards_from_mask(end.hands[end.winner]) == ()
    with pytest.raises(ValueError, match="3 policies"):
        play_game(GameState.deal(21), spies[:2])
