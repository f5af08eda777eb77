"""What the 斗地主 and 上海斗地主 search bots share: built by name, only ever legal, reproducible
without a time budget, within its iteration cap, at once when it goes out, and searching the
sensible bot's best plays and the pass. Each game's own module tests its worlds and its rules.

No test here times anything: the budget is checked as an iteration cap (``last_playouts``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from games.bots import LORD_NAMES, Policy, choose_for, make_policy
from games.bots.determinized import DeterminizedPolicy
from games.bots.doudizhu import DoudizhuPolicy
from games.bots.doudizhu_arena import play_game as doudizhu_game
from games.bots.doudizhu_search import DoudizhuSearch
from games.bots.shanghai import ShanghaiPolicy
from games.bots.shanghai_arena import play_game as shanghai_game
from games.bots.shanghai_search import ShanghaiSearch
from games.rules import doudizhu, shanghai
from games.rules.doudizhu.simulate import play_phase_start as doudizhu_start
from games.rules.shanghai.simulate import play_phase_start as shanghai_start


@dataclass(frozen=True)
class Lord:
    """One game of the landlord family, as these tests need it."""

    game: str
    seats: int
    engine: Any
    state_class: Any
    sensible: Callable[[], Any]
    search_game: Callable[[], Any]
    play_phase_start: Callable[[int], Any]
    play_game: Callable[[Any, list[Any]], Any]
    going_out: tuple[list[str], str]  # hands with seat 0 the landlord, and its play to go out
    searched_kinds: tuple[type, ...]  # the actions the search weighs: plays and the pass

    def small(self, seed: int = 0, iterations: int = 6) -> DeterminizedPolicy[Any, Any, Any]:
        """A search bot with no time limit and a small cap: the same answer on every run."""
        bot = make_policy(
            "search", seed=seed, game=self.game, budget_ms=None, iterations=iterations
        )
        assert isinstance(bot, DeterminizedPolicy)
        return bot

    def play_states(
        self, seed: int, *, every: int, first: Callable[[Any], Any] | None = None
    ) -> Iterator[Any]:
        """Play-phase positions of a whole game with bidding between sensible bots: every
        ``every``-th one (``first`` acts on the state just dealt, such as a 明牌)."""
        state = self.engine.deal(seed, players=self.seats, options=self.engine.default_options)
        if first is not None:
            state = first(state)
        bot = self.sensible()
        step = 0
        while (seat := state.to_move) is not None:
            if state.phase.value == "play" and step % every == 0:
                yield state
            state = state.apply(seat, choose_for(state, bot))
            step += 1

    def first_lead(self, seed: int) -> tuple[Any, int]:
        """The first lead of a seeded game and the landlord, who makes it."""
        state = self.play_phase_start(seed)
        assert state.landlord is not None and state.to_move == state.landlord
        return state, state.landlord


LORDS = [
    Lord(
        "doudizhu",
        3,
        doudizhu.ENGINE,
        doudizhu.GameState,
        DoudizhuPolicy,
        DoudizhuSearch,
        doudizhu_start,
        doudizhu_game,
        (["3s 4s 5s 6s 7s", "8s 9s", "Ts Js"], "3s 4s 5s 6s 7s"),
        (doudizhu.Play, doudizhu.Pass),
    ),
    Lord(
        "shanghai",
        4,
        shanghai.ENGINE,
        shanghai.GameState,
        ShanghaiPolicy,
        ShanghaiSearch,
        shanghai_start,
        shanghai_game,
        (["3s 4s 5s 6s 7s", "8s 9s", "Ts Js", "Qs Ks"], "3s.1 4s.1 5s.1 6s.1 7s.1"),
        (shanghai.Play, shanghai.Pass),
    ),
]


@pytest.fixture(params=LORDS, ids=[lord.game for lord in LORDS])
def lord(request: pytest.FixtureRequest) -> Lord:
    return request.param  # type: ignore[no-any-return]


def test_make_policy_builds_the_search_bot(lord: Lord) -> None:
    bot = make_policy("search", seed=4, game=lord.game)
    assert isinstance(bot, DeterminizedPolicy) and isinstance(bot, Policy)
    assert bot.name == f"{lord.game}-search" and bot.seed == 4 and bot.budget_ms == 120.0
    capped = make_policy("search", game=lord.game, budget_ms=None, iterations=9)
    assert isinstance(capped, DeterminizedPolicy)
    assert capped.budget_ms is None and capped.iterations == 9
    assert "search" in LORD_NAMES
    with pytest.raises(ValueError, match="search"):
        make_policy("clever", game=lord.game)


@pytest.mark.parametrize(
    ("lord", "seat"),
    [(lord, seat) for lord in LORDS for seat in range(lord.seats)],
    ids=[f"{lord.game}-{seat}" for lord in LORDS for seat in range(lord.seats)],
)
def test_whole_games_with_bidding_use_legal_actions_only(lord: Lord, seat: int) -> None:
    seats: list[Policy[Any]] = [make_policy("sensible", game=lord.game) for _ in range(lord.seats)]
    seats[seat] = lord.small(seat)
    start = lord.engine.deal(20 + seat, players=lord.seats, options=lord.engine.default_options)
    end = lord.play_game(start, seats)
    assert end.is_terminal and sum(lord.engine.settle(end, base=1).payments) == 0


def test_search_bots_in_every_seat_finish_the_game(lord: Lord) -> None:
    bots = [lord.small(s, iterations=3) for s in range(lord.seats)]
    assert lord.play_game(lord.play_phase_start(7), bots).is_terminal


def test_a_time_budget_still_gives_a_legal_action(lord: Lord) -> None:
    state, seat = lord.first_lead(3)
    bot = make_policy("search", seed=1, game=lord.game, budget_ms=1.0)
    assert isinstance(bot, DeterminizedPolicy)
    legal = tuple(state.legal_actions(seat))
    assert bot.choose(state.view(seat), legal) in legal
    assert bot.last_playouts <= bot.iterations


def test_deterministic_with_no_time_budget(lord: Lord) -> None:
    for state in list(lord.play_states(2, every=5))[:4]:
        seat = state.to_move
        view, legal = state.view(seat), tuple(state.legal_actions(seat))
        one, two = lord.small(5), lord.small(5)
        assert one.choose(view, legal) == two.choose(view, legal)
        assert one.last_outcome == two.last_outcome
        assert one.choose(view, legal) == two.choose(view, legal)  # whatever it was asked before


@pytest.mark.parametrize("cap", [1, 4, 7])
def test_the_iteration_cap_is_never_exceeded(lord: Lord, cap: int) -> None:
    state, seat = lord.first_lead(5)
    bot = lord.small(1, iterations=cap)
    bot.choose(state.view(seat), tuple(state.legal_actions(seat)))
    assert bot.last_playouts <= cap


def test_it_goes_out_at_once_and_answers_one_action_without_searching(lord: Lord) -> None:
    hands, going_out = lord.going_out
    state = lord.state_class.play_position(hands, landlord=0)
    bot = lord.small()
    assert str(bot.choose(state.view(0), tuple(state.legal_actions(0)))) == going_out
    assert bot.last_playouts == 0


def test_it_searches_the_sensible_bots_best_plays_and_the_pass(lord: Lord) -> None:
    start, landlord = lord.first_lead(9)
    state = start.apply(landlord, start.legal_moves()[0])  # its lowest single
    seat = state.to_move
    view, legal = state.view(seat), tuple(state.legal_actions(seat))
    ranked = lord.sensible().rank(view, legal)
    assert ranked[0] == lord.sensible().choose(view, legal)
    assert sorted(map(str, ranked)) == sorted(map(str, legal))
    searched = lord.search_game().rank(view, legal)
    assert searched and all(isinstance(action, lord.searched_kinds) for action in searched)
