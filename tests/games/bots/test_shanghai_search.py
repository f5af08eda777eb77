"""The 上海斗地主 search bot: within its bomb limits, blind to hidden cards, and its worlds keep
every public fact (its own hand, the counts, the copies played, the landlord's bottom copies, no
card in more than two copies); what it shares with 斗地主's is tested in ``test_lord_search``.

No test here times anything: the budget is checked as an iteration cap (``last_playouts``).
"""

from __future__ import annotations

import io
import random
from contextlib import redirect_stdout

import pytest

from games.bots import choose_for
from games.bots.__main__ import main
from games.bots.determinized import DeterminizedPolicy
from games.bots.shanghai_arena import play_game, role_duel
from games.bots.shanghai_search import ShanghaiWorlds, make_shanghai_search
from games.rules.shanghai import ENGINE, Action, GameState
from games.rules.shanghai.cards import DECK_MASK, parse_cards
from games.rules.shanghai.simulate import play_phase_start
from tests.games.bots.test_lord_search import LORDS

SHANGHAI = next(lord for lord in LORDS if lord.game == "shanghai")


def small(seed: int = 0, iterations: int = 6) -> DeterminizedPolicy[Action, GameState, GameState]:
    """A search bot with no time limit and a small cap: the same answer on every run."""
    return make_shanghai_search(seed, budget_ms=None, iterations=iterations)


def mask(texts: list[str] | str) -> int:
    return sum(
        card.bit for card in parse_cards(texts if isinstance(texts, str) else " ".join(texts))
    )


# Legal actions ----------------------------------------------------------------------------------


def test_bomb_limited_seats_stay_within_their_allowance() -> None:
    # Every farmer may play one bomb: the search's playouts and its choices keep to it.
    start = GameState.play_position(
        [
            "3s 3h 3d 3c 4s 5s 6s 7s 9s Ts Js Qs Ks",
            "8s 8h 8d 8c 8s 2h 4h 5h",
            "9h 9d 9c 9h Th Jh 6d 7d",
            "Td Tc Td Tc 5d 6c 7c Ac",
        ],
        landlord=0,
    )
    end = play_game(start, [small(s, iterations=6) for s in range(4)])
    assert end.is_terminal
    assert all(end.bombs_played[s] <= 1 for s in (1, 2, 3))


# Reproducible and blind ------------------------------------------------------------------------


def test_the_same_view_gives_the_same_choice_whatever_the_hidden_cards() -> None:
    hand = "3s 4s 5s 6s 8h 9h Jd"
    one = GameState.play_position([hand, "8s 9s Kd", "Ts Js Kc", "Qh Qd"], landlord=0)
    two = GameState.play_position([hand, "Ts Js Kc", "8s 9s Kd", "Qh Qd"], landlord=0)
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
    copies = [0] * 54  # two decks: each card at most twice, played or held
    for index in range(108):
        if everything >> index & 1:
            copies[index >> 1] += 1
    assert max(copies) <= 2
    assert world.bid == state.bid and world.bombs_left == state.bombs_left
    assert world.table == state.table and world.to_move == state.to_move
    assert world.legal_moves() == state.legal_moves()


@pytest.mark.parametrize("seed", [1, 4, 6, 8])
def test_worlds_keep_every_public_fact(seed: int) -> None:
    rng = random.Random(seed)
    for state in SHANGHAI.play_states(seed, every=4):
        seat = state.to_move
        assert seat is not None
        worlds = ShanghaiWorlds(state.view(seat))
        for _ in range(3):
            check_world(state, worlds.sample(rng))


def test_the_landlords_bottom_is_known_and_worlds_differ_otherwise() -> None:
    rng = random.Random(0)
    state = play_phase_start(6)
    landlord = state.landlord
    assert landlord is not None
    worlds = ShanghaiWorlds(state.view((landlord + 1) % 4))
    bottom = sum(card.bit for card in state.bottom)
    assert worlds.known[landlord] == bottom and worlds.missing[landlord] == 25
    samples = [worlds.sample(rng) for _ in range(4)]
    assert all(world.hands[landlord] & bottom == bottom for world in samples)
    assert len({world.hands for world in samples}) == 4


def test_worlds_are_made_for_the_play_only() -> None:
    state = ENGINE.deal(3, players=4, options=ENGINE.default_options)
    with pytest.raises(ValueError, match="play phase"):
        ShanghaiWorlds(state.view(0))


# The arena -------------------------------------------------------------------------------------


def test_the_arena_measures_the_search_bot_by_role() -> None:
    report = role_duel(lambda seed: small(seed, 3), "greedy", deals=1, seed=2)
    assert [row.games for row in report.rows] == [1, 1, 1]
    assert report.bot == "shanghai-search"
    out = io.StringIO()
    with redirect_stdout(out):
        main(
            ["arena", "--game", "shanghai", "--bot", "search", "--iterations", "3"]
            + ["--roles-only", "--games", "3", "--against", "greedy"]
        )
    text = out.getvalue()
    assert "time per shanghai-search move" in text
    assert "shanghai-search landlord vs 3 greedy" in text
    assert "whole games" not in text
