"""Seeded random playouts: the engine's benchmark and a soak test of its invariants.

Each game is dealt from its own seed and played to the end by players that pick uniformly among
``legal_moves()`` (``games.rules.simulate``). The timings cover the whole public API
(``legal_moves`` + ``apply``); the ``legal_moves`` calls are also timed one by one for their
median. Each function takes the rules to play under (the standard game by default); the
20-card benchmarks always seat three.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from ..cards import CARDS
from ..simulate import Playouts, median_legal_us, play_random_games
from .game import GameState
from .moves import Play
from .options import STANDARD, GandengyanRules
from .settlement import settle

__all__ = ["SimulationReport", "follow_benchmark", "simulate"]


@dataclasses.dataclass(frozen=True, slots=True)
class SimulationReport(Playouts):
    bombs: int
    rockets: int
    stock_ran_out: int
    wins_by_seat: tuple[int, ...]
    no_winner: int
    follow20_median_us: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            **self.timing_json(),
            "follow20_median_us": (
                None if self.follow20_median_us is None else round(self.follow20_median_us, 2)
            ),
            "actions_per_game": round(self.actions / self.games, 2) if self.games else 0,
            "bombs_per_game": round(self.bombs / self.games, 3) if self.games else 0,
            "rockets": self.rockets,
            "stock_ran_out": self.stock_ran_out,
            "stock_ran_out_share": round(self.stock_ran_out / self.games, 3) if self.games else 0,
            "wins_by_seat": list(self.wins_by_seat),
            "no_winner": self.no_winner,
        }

    def to_text(self) -> str:
        data = self.to_json()
        lines = self.timing_lines()
        if self.follow20_median_us is not None:
            lines.append(
                f"legal_moves(), 20-card hand following a play: median "
                f"{data['follow20_median_us']} us"
            )
        lines += [
            f"actions per game     {data['actions_per_game']}",
            f"bombs per game       {data['bombs_per_game']} (rockets {data['rockets']})",
            f"stock ran out        {data['stock_ran_out']} games "
            f"({data['stock_ran_out_share']:.1%})",
            f"wins by seat         {data['wins_by_seat']}",
        ]
        if self.no_winner:
            lines.append(f"no winner            {self.no_winner} games")
        return "\n".join(lines)


def simulate(
    games: int, seed: int, *, follow20: int = 0, rules: GandengyanRules = STANDARD
) -> SimulationReport:
    """Play ``games`` random games under ``rules``; game ``i`` is dealt from seed ``seed + i``."""
    bombs = rockets = ran_out = no_winner = 0
    wins = [0] * rules.players

    def finish(state: GameState) -> None:
        nonlocal bombs, rockets, ran_out, no_winner
        for _, move in state.history:
            if isinstance(move, Play) and move.combo is not None and move.combo.bomb_class:
                bombs += 1
                rockets += move.combo.bomb_class == 3
        if state.winner is None:  # two unplayable lone jokers: no winner
            no_winner += 1
        else:
            wins[state.winner] += 1
        ran_out += state.stock_count == 0
        settlement = settle(state, base=1)
        assert sum(settlement.payments) == 0

    def deal(game_seed: int) -> GameState:
        return GameState.deal(game_seed, rules=rules)

    playouts = play_random_games(games, seed, deal, finish)
    return SimulationReport(
        **dataclasses.asdict(playouts),
        bombs=bombs,
        rockets=rockets,
        stock_ran_out=ran_out,
        wins_by_seat=tuple(wins),
        no_winner=no_winner,
        follow20_median_us=follow_benchmark(follow20, seed, rules=rules) if follow20 else None,
    )


def follow_positions(
    count: int, seed: int, hand_size: int = 20, rules: GandengyanRules = STANDARD
) -> list[GameState]:
    """Positions where a ``hand_size``-card hand (seat 1) must answer a random lead of seat 0."""
    rules = dataclasses.replace(rules, players=3)
    rng = random.Random(seed)
    positions: list[GameState] = []
    while len(positions) < count:
        deck = list(CARDS)
        rng.shuffle(deck)
        leader, follower = deck[:6], deck[6 : 6 + hand_size]
        third = deck[6 + hand_size : 11 + hand_size]
        state = GameState.from_position(
            [leader, follower, third], deck[11 + hand_size :], dealer=0, rules=rules
        )
        leads = state.legal_moves()
        state = state.apply(0, leads[rng.randrange(len(leads))])
        if state.to_move == 1:
            positions.append(state)
    return positions


def lead_positions(
    count: int, seed: int, hand_size: int = 20, rules: GandengyanRules = STANDARD
) -> list[GameState]:
    """Positions where a ``hand_size``-card hand leads a round."""
    rules = dataclasses.replace(rules, players=3)
    rng = random.Random(seed)
    positions: list[GameState] = []
    for _ in range(count):
        deck = list(CARDS)
        rng.shuffle(deck)
        hands = [
            deck[:hand_size],
            deck[hand_size : hand_size + 5],
            deck[hand_size + 5 : hand_size + 10],
        ]
        positions.append(
            GameState.from_position(hands, deck[hand_size + 10 :], dealer=0, rules=rules)
        )
    return positions


def follow_benchmark(
    count: int, seed: int, repeats: int = 5, *, rules: GandengyanRules = STANDARD
) -> float:
    """Median microseconds of ``legal_moves()`` over ``count`` 20-card following positions."""
    return median_legal_us(follow_positions(count, seed, rules=rules), repeats)


def lead_benchmark(
    count: int, seed: int, repeats: int = 5, *, rules: GandengyanRules = STANDARD
) -> float:
    """Median microseconds of ``legal_moves()`` over ``count`` 20-card leading positions."""
    return median_legal_us(lead_positions(count, seed, rules=rules), repeats)
