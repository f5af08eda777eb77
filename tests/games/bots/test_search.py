"""The search bot: legal, blind to hidden cards, reproducible, and its worlds agree with its view.

No test here times anything: the budget is checked as an iteration cap (``last_playouts``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from games.bots import (
    GreedyPlusPolicy,
    Policy,
    SearchPolicy,
    SensiblePolicy,
    choose_for,
    make_policy,
)
from games.bots.search import (
    _disagreements,
    _Known,
    _lean_view,
    _playout,
    sample_world,
    unseen_cards,
)
from games.bots.sensible import ALT_WEIGHTS
from games.rules.cards import CARDS, DECK_MASK
from games.rules.gandengyan import GameState, parse_move
from games.rules.gandengyan.moves import Move, Play
from games.rules.gandengyan.options import GandengyanRules
from tests.games.bots.test_legality import random_position


def small(seed: int = 0, iterations: int = 12) -> SearchPolicy:
    """A search bot with no time limit and a small iteration cap: the same answer every run."""
    return SearchPolicy(seed, budget_ms=None, iterations=iterations)


def play_out(state: GameState, policies: Sequence[Policy[Move]]) -> GameState:
    while (seat := state.to_move) is not None:
        move = choose_for(state, policies[seat])  # raises on an illegal move
        state = state.apply(seat, move)
    return state


def mid_game_states(
    seed: int, rules: GandengyanRules | None = None, every: int = 7
) -> Iterator[GameState]:
    """Positions of a game between sensible bots: every ``every``-th one on the way."""
    state = GameState.deal(seed, rules=rules or GandengyanRules())
    sensible = SensiblePolicy()
    step = 0
    while (seat := state.to_move) is not None:
        if step % every == 0:
            yield state
        state = state.apply(seat, choose_for(state, sensible))
        step += 1


# Legal moves ----------------------------------------------------------------------------------


@pytest.mark.parametrize("game", range(3))
def test_whole_games_against_sensible_bots_use_legal_moves_only(game: int) -> None:
    seats: list[Policy[Move]] = [SensiblePolicy(), SensiblePolicy(), SensiblePolicy()]
    seats[game % 3] = small(game)
    end = play_out(GameState.deal(100 + game), seats)
    assert end.winner is not None


@pytest.mark.parametrize(
    "options",
    [
        {"players": 2},
        {"players": 4, "pair_straights": False},
        {"players": 5, "draw": "winner", "max_straight": 6},
        {"players": 6, "lone_joker_last": False, "joker_not_two": True},
        {"twos_jump_pairs": True, "bombs_any_higher": True, "rocket_multiplier": 4},
    ],
)
def test_house_rules_games_use_legal_moves_only(options: dict[str, Any]) -> None:
    rules = GandengyanRules.from_dict(options)
    seats: list[Policy[Move]] = [small(seat, iterations=8) for seat in range(rules.players)]
    seats[0] = SensiblePolicy()
    end = play_out(GameState.deal(7, rules=rules), seats)
    assert end.is_terminal


def test_odd_positions_get_legal_answers() -> None:
    """Made-up positions (fewer than 54 cards, lone jokers, empty stocks) as well."""
    rng = random.Random(5)
    bot = small(3, iterations=8)
    for _ in range(40):
        state = random_position(rng)
        legal = state.legal_moves()
        assert bot.choose(state.view_for(state.to_move), legal) in legal


# What it may see ------------------------------------------------------------------------------


def swapped_hidden_cards(state: GameState, rng: random.Random) -> GameState:
    """The same position with the others' hands and the stock dealt again from their cards: the
    seat to move sees exactly the same view."""
    seat = state.to_move
    hidden = [i for s, hand in enumerate(state.hands) if s != seat for i in _bits(hand)]
    hidden += list(state.stock[state.stock_position :])
    rng.shuffle(hidden)
    hands = list(state.hands)
    position = 0
    for s, hand in enumerate(state.hands):
        if s == seat:
            continue
        count = hand.bit_count()
        hands[s] = sum(1 << i for i in hidden[position : position + count])
        position += count
    stock = state.stock[: state.stock_position] + tuple(hidden[position:])
    return state._replace(hands=tuple(hands), stock=stock)


def _bits(mask: int) -> list[int]:
    return [card.index for card in CARDS if mask & card.bit]


def test_same_view_same_choice_whatever_the_hidden_cards() -> None:
    rng = random.Random(11)
    checked = 0
    for seed in (1, 2, 3):
        for state in mid_game_states(seed):
            other = swapped_hidden_cards(state, rng)
            seat = state.to_move
            assert other.view_for(seat) == state.view_for(seat)
            assert other.hands != state.hands or state.stock_count == 0
            first = small(9).choose(state.view_for(seat), state.legal_moves())
            second = small(9).choose(other.view_for(seat), other.legal_moves())
            assert first == second
            checked += 1
    assert checked >= 10


# Reproducible, trivial cases, budget ----------------------------------------------------------


def test_deterministic_for_a_seed_and_an_iteration_cap() -> None:
    states = [s for seed in (4, 5) for s in mid_game_states(seed, every=5)]
    bot, again = small(21), small(21)
    first = [bot.choose(s.view_for(s.to_move), s.legal_moves()) for s in states]
    # The same bot again (its past choices change nothing) and a fresh one agree.
    assert first == [bot.choose(s.view_for(s.to_move), s.legal_moves()) for s in states]
    assert first == [again.choose(s.view_for(s.to_move), s.legal_moves()) for s in states]
    built = make_policy("search", seed=21, budget_ms=None, iterations=12)
    assert first == [built.choose(s.view_for(s.to_move), s.legal_moves()) for s in states]


def test_goes_out_when_it_can_without_searching() -> None:
    state = GameState.from_position(["7s 8h 9d", "3s 4s", "Qs Kd"], stock="5s", dealer=0)
    bot = small(1)
    assert bot.choose(state.view_for(0), state.legal_moves()) == parse_move("7s 8h 9d")
    assert bot.last_playouts == 0
    # Following: a pair that empties the hand beats the table's pair.
    state = GameState.from_position(["5s 5h 9c", "6s 6h", "Qs Kd Ac"], stock="3s", dealer=0)
    state = state.apply(0, parse_move("5s 5h"))
    move = bot.choose(state.view_for(1), state.legal_moves())
    assert move == parse_move("6s 6h") and bot.last_playouts == 0


def test_one_legal_move_answers_at_once() -> None:
    state = GameState.from_position(["3s 9h", "Qs Kd", "5s 6c"], stock="7s", dealer=0)
    state = state.apply(0, parse_move("9h"))  # seat 1 cannot beat a 9 with Q or K: pass only
    bot = small(1)
    assert bot.choose(state.view_for(1), state.legal_moves()) == state.legal_moves()[0]
    assert bot.last_playouts == 0


@pytest.mark.parametrize("cap", [1, 5, 12, 40])
def test_iteration_cap_is_never_exceeded(cap: int) -> None:
    bot = small(2, iterations=cap)
    searched = 0
    for state in mid_game_states(6, every=3):
        legal = state.legal_moves()
        move = bot.choose(state.view_for(state.to_move), legal)
        assert move in legal
        assert bot.last_playouts <= cap
        searched += bot.last_playouts > 0
    if cap >= 4:
        assert searched


def test_time_budget_still_gives_a_legal_move() -> None:
    """A budget too small for any playout falls back to the sensible bot's choice."""
    bot = SearchPolicy(1, budget_ms=0.0, iterations=1000)
    for state in mid_game_states(8, every=4):
        view, legal = state.view_for(state.to_move), state.legal_moves()
        move = bot.choose(view, legal)
        assert move in legal
        if bot.last_playouts == 0 and len(legal) > 1:
            assert move == SensiblePolicy().rank(view, legal)[0]


# The sampler ----------------------------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, {"players": 2}, {"players": 5, "draw": "winner"}])
def test_sampled_worlds_agree_with_the_view(options: dict[str, Any]) -> None:
    rules = GandengyanRules.from_dict(options)
    rng = random.Random(3)
    for seed in (1, 2):
        for state in mid_game_states(seed, rules, every=4):
            seat = state.to_move
            assert seat is not None
            view = state.view_for(seat)
            played = DECK_MASK & ~unseen_cards(view) & ~state.hands[seat]
            for _ in range(3):
                world = sample_world(view, rng)
                # Everything public is the same, and its seat sees the very same view.
                assert world.view_for(seat) == view
                assert world.hands[seat] == state.hands[seat]
                assert [h.bit_count() for h in world.hands] == view["hand_counts"]
                assert world.stock_count == view["stock"]
                # No card twice, none seen (own or played) among the hidden ones, all 54 there.
                hidden = [h for s, h in enumerate(world.hands) if s != seat]
                stock = sum(1 << i for i in world.stock[world.stock_position :])
                total = 0
                for mask in [*world.hands, stock]:
                    assert not total & mask
                    total |= mask
                assert not (total & ~state.hands[seat]) & played
                assert total | played == DECK_MASK
                assert sum(h.bit_count() for h in hidden) + world.stock_count == len(
                    [c for c in CARDS if unseen_cards(view) & c.bit]
                )
                # The world goes on like a game: the seat to move has the same legal moves.
                assert world.legal_moves() == state.legal_moves()


def test_worlds_differ_from_one_another() -> None:
    state = GameState.deal(12)
    view = state.view_for(state.to_move)
    rng = random.Random(0)
    worlds = {sample_world(view, rng).hands for _ in range(5)}
    assert len(worlds) == 5


# The stronger opponents ---------------------------------------------------------------------


def test_greedy_plus_goes_out_and_keeps_its_bombs() -> None:
    bot = GreedyPlusPolicy()
    assert make_policy("greedy-plus").name == "greedy-plus"
    # Leading 7s 7h: the plain greedy bot plays the 7s, this one goes out with the pair.
    state = GameState.from_position(["7s 7h", "3s 3h 9d", "Qs Kd"], stock="5s", dealer=0)
    assert bot.choose(state.view_for(0), state.legal_moves()) == parse_move("7s 7h")
    # A J led, seat 2 cannot beat it, seat 0 could only with its bomb of 4s: it keeps it...
    hands = ["4s 4h 4d 9c 6c", "3s 3h 8d Jh", "Ks Kd Ts 7h"]
    state = GameState.from_position(hands, stock="5s", dealer=1)
    state = state.apply(1, parse_move("Jh")).apply(2, parse_move("pass"))
    assert bot.choose(state.view_for(0), state.legal_moves()) == parse_move("pass")
    # ...unless the leader is down to two cards.
    hands = ["4s 4h 4d 9c 6c", "3s 8d Jh", "Ks Kd Ts 7h"]
    state = GameState.from_position(hands, stock="5s", dealer=1)
    state = state.apply(1, parse_move("Jh")).apply(2, parse_move("pass"))
    assert bot.choose(state.view_for(0), state.legal_moves()) == parse_move("4s 4h 4d")


def test_sensible_alt_differs_only_by_its_weights() -> None:
    alt = make_policy("sensible-alt")
    assert alt.name == "sensible-alt"
    assert isinstance(alt, SensiblePolicy) and alt.weights == ALT_WEIGHTS
    differ = 0
    for seed in range(1, 6):
        for state in mid_game_states(seed, every=1):
            view, legal = state.view_for(state.to_move), state.legal_moves()
            differ += alt.choose(view, legal) != SensiblePolicy().choose(view, legal)
    assert differ


def test_rank_puts_the_sensible_choice_first_and_lists_every_move() -> None:
    policy = SensiblePolicy()
    for state in mid_game_states(9, every=2):
        view, legal = state.view_for(state.to_move), state.legal_moves()
        ranked = policy.rank(view, legal)
        assert ranked[0] == policy.choose(view, legal)
        assert sorted(map(str, ranked)) == sorted(map(str, legal)) and len(ranked) == len(legal)


# The playouts' views ----------------------------------------------------------------------------


def test_playout_views_lead_the_sensible_bot_to_its_own_choices() -> None:
    """A playout's lean view (masks worked out once, no history) gets the same move from the
    sensible bot as the seat's whole view does, at every position of whole games."""
    policy = SensiblePolicy()
    checked = 0
    for seed in (1, 2, 3):
        for state in mid_game_states(seed, every=1):
            seat = state.to_move
            assert seat is not None
            legal = state.legal_moves()
            others = 0
            for s, hand in enumerate(state.hands):
                if s != seat:
                    others |= hand
            unseen = others | sum(1 << i for i in state.stock[state.stock_position :])
            lean = _lean_view(state, seat, unseen)
            assert policy.choose(lean, legal) == policy.choose(state.view_for(seat), legal)
            assert policy.rank(lean, legal) == policy.rank(state.view_for(seat), legal)
            checked += 1
    assert checked > 60


def test_playout_reports_the_payment_and_the_winner() -> None:
    state = GameState.from_position(["3s 9h", "Qs Kd", "5s 6c"], stock="", dealer=0)
    for seat in range(3):
        paid, won = _playout(state, seat, SensiblePolicy())
        assert won == (paid > 0)
    assert sum(_playout(state, seat, SensiblePolicy())[1] for seat in range(3)) == 1


# Worlds that agree with the others' moves --------------------------------------------------------


def _cards(move: Move) -> int | None:
    """A play's cards (whatever the meaning it is given), None for a pass."""
    return move.mask if isinstance(move, Play) else None


def _sensible_would_repeat(world: GameState, view: dict[str, Any], seat: int) -> bool:
    """Whether sensible bots holding ``world``'s hands (as they were when the round began) make
    the round's moves the view shows, each judged from the engine's own view of that moment."""
    round_actions = view["history"][view["round_start"] :]
    hands = list(world.hands)
    for action in round_actions:
        if "play" in action:
            hands[action["seat"]] |= parse_move(action["play"]).mask
    texts = [" ".join(str(c) for c in CARDS if hand & c.bit) for hand in hands]
    stock = " ".join(str(CARDS[i]) for i in world.stock[world.stock_position :])
    state = GameState.from_position(texts, stock=stock, dealer=round_actions[0]["seat"])
    for action in round_actions:
        move = parse_move(action.get("play") or "pass")
        if action["seat"] != seat:
            choice = SensiblePolicy().choose(state.view_for(action["seat"]), state.legal_moves())
            if _cards(choice) != _cards(move):
                return False
        state = state.apply(action["seat"], move)
    return True


def test_consistent_worlds_never_give_a_seat_a_hand_it_showed_it_lacks() -> None:
    """Seat 1, a sensible bot, passed on a lone 3: it holds no single it would have played on
    it. Every world the consistent sampler deals gives it such a hand."""
    hands = ["3s 8c 8d", "4h 9s Tc Jd 5c", "6d 6h Ks Kd Qc"]
    state = GameState.from_position(hands, stock="2s 7s 7h Ah", dealer=0)
    state = state.apply(0, parse_move("3s")).apply(1, parse_move("pass"))
    assert state.to_move == 2
    view = state.view_for(2)
    known = _Known(view)
    bot = SearchPolicy(4, budget_ms=None, consistent_tries=200)
    rng = random.Random(7)
    plain = [sample_world(view, rng, known) for _ in range(200)]
    assert not all(_sensible_would_repeat(world, view, 2) for world in plain)
    sample = bot.game.sampler(view)
    for _ in range(30):
        world = sample(rng)
        assert world.view_for(2) == view
        assert _sensible_would_repeat(world, view, 2)
        assert _disagreements(world, known, bot.judge) == 0


def test_the_true_world_always_agrees_with_the_others_moves() -> None:
    """In sensible games, the real hidden cards agree with every move of the round, so the
    sampler's preference never rules the truth out."""
    checked = 0
    for seed in (1, 2):
        for state in mid_game_states(seed, every=1):
            seat = state.to_move
            assert seat is not None
            view = state.view_for(seat)
            known = _Known(view)
            truth = state._replace(stock=state.stock[state.stock_position :], stock_position=0)
            assert _disagreements(truth, known, SensiblePolicy()) == 0
            checked += bool(known.round)
    assert checked > 30


def test_deterministic_with_every_option() -> None:
    states = [s for s in mid_game_states(4, every=6)]

    def bot() -> SearchPolicy:
        return SearchPolicy(5, budget_ms=None, iterations=12, win_bonus=5.0, consistent_tries=6)

    first, second = bot(), bot()
    assert [first.choose(s.view_for(s.to_move), s.legal_moves()) for s in states] == [
        second.choose(s.view_for(s.to_move), s.legal_moves()) for s in states
    ]
