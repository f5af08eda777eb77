"""Every bot answers with a legal move: in odd random positions and through whole games."""

from __future__ import annotations

import random

import pytest

from games.bots import GreedyPolicy, Policy, RandomPolicy, SensiblePolicy, choose_for, play_game
from games.rules.cards import CARDS
from games.rules.gandengyan import GameState

POLICIES: list[Policy] = [RandomPolicy(1), GreedyPolicy(), SensiblePolicy()]


def random_position(rng: random.Random) -> GameState:
    """Hands of 1 to 20 cards (jokers included), a stock of 0 to 20, then 0 to 6 random actions:
    leads, follows, passes, drawing, lone jokers and empty stocks all turn up."""
    while True:
        deck = list(CARDS)
        rng.shuffle(deck)
        sizes = [rng.randint(1, 20) for _ in range(3)]
        hands, position = [], 0
        for size in sizes:
            hands.append(deck[position : position + size])
            position += size
        stock = deck[position : position + rng.randint(0, 20)]
        try:
            state = GameState.from_position(hands, stock=stock, dealer=rng.randrange(3))
        except ValueError:  # a dealer holding a lone joker while the stock has cards
            continue
        for _ in range(rng.randint(0, 6)):
            moves = state.legal_moves()
            if not moves:
                break
            state = state.apply(state.to_move, moves[rng.randrange(len(moves))])
        if not state.is_terminal:
            return state


def test_every_answer_is_legal_in_random_positions() -> None:
    rng = random.Random(2024)
    for _ in range(400):
        state = random_position(rng)
        legal = state.legal_moves()
        for policy in POLICIES:
            move = policy.choose(state.view_for(state.to_move), legal)
            assert move in legal, (policy.name, state, move)
            state.apply(state.to_move, move)


@pytest.mark.parametrize("block", range(4))
def test_whole_games_between_all_three_end_with_legal_moves_only(block: int) -> None:
    """200 games in all (50 per block), each policy in each seat in turn."""
    for game in range(block * 50, block * 50 + 50):
        policies = [RandomPolicy(game), GreedyPolicy(), SensiblePolicy()]
        seats = [policies[(seat + game) % 3] for seat in range(3)]
        state = GameState.deal(game)
        actions = 0
        while state.to_move is not None:
            legal = state.legal_moves()
            move = choose_for(state, seats[state.to_move])
            assert move in legal
            state = state.apply(state.to_move, move)
            actions += 1
            assert actions < 2000, f"game {game} does not end"
        assert state.winner is not None and state.hand_count(state.winner) == 0


def test_games_between_bots_replay_identically() -> None:
    def games() -> list[GameState]:
        policies = [SensiblePolicy(), RandomPolicy(7), GreedyPolicy()]
        return [play_game(GameState.deal(game), policies) for game in range(12)]

    first, second = games(), games()
    assert [end.history for end in first] == [end.history for end in second]
