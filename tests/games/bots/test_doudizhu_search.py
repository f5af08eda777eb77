"""The 斗地主 search bot: built by name, only ever legal, blind to hidden cards, reproducible
without a time budget, within its iteration cap, and its worlds keep every public fact (its own
hand, the counts, the cards played, the landlord's bottom cards, 明牌 hands).

No test here times anything: the budget is checked as an iteration cap (``last_playouts``).
"""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from contextlib import redirect_stdout

import pytest

from games.bots import LORD_NAMES, DoudizhuPolicy, Policy, choose_for, make_policy
from games.bots.__main__ import main
from games.bots.determinized import DeterminizedPolicy
from games.bots.doudizhu_arena import play_game, role_duel
from games.bots.doudizhu_search import DoudizhuSearch, DoudizhuWorlds, make_doudizhu_search
from games.rules.cards import DECK_MASK, parse_cards
from games.rules.doudizhu import ENGINE, SHOW, Action, GameState, Pass, Play
from games.rules.doudizhu.simulate import play_phase_start


def small(seed: int = 0, iterations: int = 6) -> DeterminizedPolicy[Action, GameState, GameState]:
    """A search bot with no time limit and a small cap: the same answer on every run."""
    return make_doudizhu_search(seed, budget_ms=None, iterations=iterations)


def mask(texts: list[str] | str) -> int:
    return sum(
        card.bit for card in parse_cards(texts if isinstance(texts, str) else " ".join(texts))
    )


def play_states(seed: int, *, show: int | None = None, every: int = 3) -> Iterator[GameState]:
    """Play-phase positions of a whole game between sensible bots (with ``show``'s 明牌 before
    the deal when given): every ``every``-th one."""
    state = ENGINE.deal(seed, players=3, options=ENGINE.default_options)
    if show is not None:
        state = state.apply(show, SHOW)
    bot = DoudizhuPolicy()
    step = 0
    while (seat := state.to_move) is not None:
        if state.phase.value == "play" and step % every == 0:
            yield state
        state = state.apply(seat, choose_for(state, bot))
        step += 1


# Registration ----------------------------------------------------------------------------------


def test_make_policy_builds_the_search_bot() -> None:
    bot = make_policy("search", seed=4, game="doudizhu")
    assert isinstance(bot, DeterminizedPolicy) and isinstance(bot, Policy)
    assert bot.name == "doudizhu-search" and bot.seed == 4 and bot.budget_ms == 120.0
    capped = make_policy("search", game="doudizhu", budget_ms=None, iterations=9)
    assert isinstance(capped, DeterminizedPolicy)
    assert capped.budget_ms is None and capped.iterations == 9
    assert "search" in LORD_NAMES
    with pytest.raises(ValueError, match="search"):
        make_policy("clever", game="doudizhu")


# Legal actions ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seat", range(3))
def test_whole_games_with_bidding_use_legal_actions_only(seat: int) -> None:
    seats: list[Policy[Action]] = [make_policy("sensible", game="doudizhu") for _ in range(3)]
    seats[seat] = small(seat)
    end = play_game(ENGINE.deal(20 + seat, players=3, options=ENGINE.default_options), seats)
    assert end.is_terminal and sum(ENGINE.settle(end, base=1).payments) == 0


def test_search_bots_in_every_seat_finish_the_game() -> None:
    end = play_game(play_phase_start(7), [small(s, iterations=3) for s in range(3)])
    assert end.is_terminal


def test_a_time_budget_still_gives_a_legal_action() -> None:
    state = play_phase_start(3)
    bot = make_doudizhu_search(1, budget_ms=1.0)
    assert bot.choose(state.view(0), tuple(state.legal_actions(0))) in state.legal_actions(0)
    assert bot.last_playouts <= bot.iterations


# Reproducible and blind ------------------------------------------------------------------------


def test_deterministic_with_no_time_budget() -> None:
    for state in list(play_states(2, every=5))[:4]:
        seat = state.to_move
        assert seat is not None
        view, legal = state.view(seat), tuple(state.legal_actions(seat))
        one, two = small(5), small(5)
        assert one.choose(view, legal) == two.choose(view, legal)
        assert one.last_outcome == two.last_outcome
        assert one.choose(view, legal) == two.choose(view, legal)  # whatever it was asked before


def test_the_same_view_gives_the_same_choice_whatever_the_hidden_cards() -> None:
    one = GameState.play_position(["3s 4s 5s 6s 8h 9h Jd", "8s 9s Kd", "Ts Js Kc"], landlord=0)
    two = GameState.play_position(["3s 4s 5s 6s 8h 9h Jd", "Ts Js Kc", "8s 9s Kd"], landlord=0)
    assert one.view(0) == two.view(0)
    assert choose_for(one, small(2)) == choose_for(two, small(2))


@pytest.mark.parametrize("cap", [1, 4, 7])
def test_the_iteration_cap_is_never_exceeded(cap: int) -> None:
    state = play_phase_start(5)
    bot = small(1, iterations=cap)
    bot.choose(state.view(0), tuple(state.legal_actions(0)))
    assert bot.last_playouts <= cap


def test_it_goes_out_at_once_and_answers_one_action_without_searching() -> None:
    state = GameState.play_position(["3s 4s 5s 6s 7s", "8s 9s", "Ts Js"], landlord=0)
    bot = small()
    assert str(bot.choose(state.view(0), tuple(state.legal_actions(0)))) == "3s 4s 5s 6s 7s"
    assert bot.last_playouts == 0


def test_it_searches_the_sensible_bots_best_plays_and_the_pass() -> None:
    start = play_phase_start(9)
    state = start.apply(0, start.legal_moves()[0])  # its lowest single
    seat = state.to_move
    assert seat is not None
    view, legal = state.view(seat), tuple(state.legal_actions(seat))
    ranked = DoudizhuPolicy().rank(view, legal)
    assert ranked[0] == DoudizhuPolicy().choose(view, legal)
    assert sorted(map(str, ranked)) == sorted(map(str, legal))
    searched = DoudizhuSearch().rank(view, legal)
    assert all(isinstance(a, Play | Pass) for a in searched)


# The worlds ------------------------------------------------------------------------------------


def check_world(state: GameState, world: GameState) -> None:
    seat = state.to_move
    assert seat is not None
    view = state.view(seat)
    played = 0
    for action in view["history"]:
        if "play" in action:
            played |= mask(action["play"])
    assert world.hands[seat] == state.hands[seat]
    assert [h.bit_count() for h in world.hands] == [h.bit_count() for h in state.hands]
    everything = played
    for hand in world.hands:
        assert not hand & played  # never a card already played
        assert not hand & everything & ~played  # nor one in another hand
        everything |= hand
    assert everything == DECK_MASK  # every card somewhere: played or in a hand
    landlord = view["landlord"]
    assert mask(view["bottom"]) & ~played & ~world.hands[landlord] == 0
    for shown_seat, cards in view["shown"].items():
        assert world.hands[int(shown_seat)] == mask(cards)
    assert world.view(seat, history=False)["multiplier"] == view["multiplier"]
    assert world.table == state.table and world.to_move == state.to_move
    assert world.legal_moves() == state.legal_moves()


@pytest.mark.parametrize(("seed", "show"), [(1, None), (4, None), (6, 1), (8, 2)])
def test_worlds_keep_every_public_fact(seed: int, show: int | None) -> None:
    rng = random.Random(seed)
    for state in play_states(seed, show=show):
        seat = state.to_move
        assert seat is not None
        worlds = DoudizhuWorlds(state.view(seat))
        for _ in range(3):
            check_world(state, worlds.sample(rng))


def test_a_shown_hand_is_known_and_worlds_differ_otherwise() -> None:
    rng = random.Random(0)
    state = next(s for s in play_states(6, show=1) if s.to_move != 1)
    seat = state.to_move
    assert seat is not None
    worlds = DoudizhuWorlds(state.view(seat))
    assert worlds.missing[1] == 0  # 明牌: nothing of its hand is guessed, so nothing at all
    assert {worlds.sample(rng).hands for _ in range(4)} == {state.hands}
    state = next(play_states(6))
    hidden = DoudizhuWorlds(state.view(0))
    assert len({hidden.sample(rng).hands for _ in range(4)}) == 4


def test_worlds_are_made_for_the_play_only() -> None:
    state = ENGINE.deal(3, players=3, options=ENGINE.default_options)
    with pytest.raises(ValueError, match="play phase"):
        DoudizhuWorlds(state.view(0))


# The arena -------------------------------------------------------------------------------------


def test_the_arena_measures_the_search_bot_by_role() -> None:
    report = role_duel(lambda seed: small(seed, 3), "greedy", deals=1, seed=2)
    assert [row.games for row in report.rows] == [1, 1, 1]
    assert report.bot == "doudizhu-search"
    out = io.StringIO()
    with redirect_stdout(out):
        main(
            ["arena", "--game", "doudizhu", "--bot", "search", "--iterations", "3"]
            + ["--roles-only", "--games", "3", "--against", "greedy"]
        )
    text = out.getvalue()
    assert "doudizhu-search landlord vs 2 greedy" in text
    assert "whole games" not in text
