"""The 斗地主 search bot: blind to hidden cards, and its worlds keep every public fact (its own
hand, the counts, the cards played, the landlord's bottom cards, 明牌 hands); what it shares with
上海斗地主's is tested in ``test_lord_search``.

No test here times anything: the budget is checked as an iteration cap (``last_playouts``).
"""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from contextlib import redirect_stdout

import pytest

from games.bots import choose_for
from games.bots.__main__ import main
from games.bots.determinized import DeterminizedPolicy
from games.bots.doudizhu_arena import role_duel
from games.bots.doudizhu_search import DoudizhuWorlds, make_doudizhu_search
from games.rules.cards import DECK_MASK, parse_cards
from games.rules.doudizhu import ENGINE, SHOW, Action, GameState
from tests.games.bots.test_lord_search import LORDS

DOUDIZHU = next(lord for lord in LORDS if lord.game == "doudizhu")


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
    first = None if show is None else (lambda state: state.apply(show, SHOW))
    return DOUDIZHU.play_states(seed, every=every, first=first)


# Reproducible and blind ------------------------------------------------------------------------


def test_the_same_view_gives_the_same_choice_whatever_the_hidden_cards() -> None:
    one = GameState.play_position(["3s 4s 5s 6s 8h 9h Jd", "8s 9s Kd", "Ts Js Kc"], landlord=0)
    two = GameState.play_position(["3s 4s 5s 6s 8h 9h Jd", "Ts Js Kc", "8s 9s Kd"], landlord=0)
    assert one.view(0) == two.view(0)
    assert choose_for(one, small(2)) == choose_for(two, small(2))


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
