"""Seeded random playouts of the play phase: the engine's benchmark and a soak test.

Each game is dealt from its own seed; seat 0 is the landlord with the three bottom cards (20,
17 and 17 cards), nobody robbed, showed or doubled, and every move is drawn uniformly from
``legal_moves()`` until a hand is empty; the game is then settled. The timings cover the public
API (``legal_moves`` + ``apply``); the ``legal_moves`` calls are also timed one by one.
"""

from __future__ import annotations

import dataclasses
import random
import statistics
import time
from typing import Any

from .game import GameState, deal_from_seed
from .moves import Play
from .settlement import settle

__all__ = ["SimulationReport", "play_phase_start", "simulate"]


@dataclasses.dataclass(frozen=True, slots=True)
class SimulationReport:
    games: int
    seconds: float
    actions: int
    legal_calls: int
    legal_seconds: float
    legal_median_us: float
    bombs: int
    landlord_wins: int
    springs: int
    anti_springs: int

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict[str, Any]:
        games = self.games or 1
        return {
            "game": "doudizhu",
            "games": self.games,
            "seconds": round(self.seconds, 4),
            "games_per_second": round(self.games_per_second, 1),
            "legal_calls": self.legal_calls,
            "legal_calls_per_second": round(self.legal_calls / self.legal_seconds, 1)
            if self.legal_seconds
            else 0.0,
            "legal_median_us": round(self.legal_median_us, 2),
            "actions_per_game": round(self.actions / games, 2),
            "bombs_per_game": round(self.bombs / games, 3),
            "landlord_wins": self.landlord_wins,
            "springs": self.springs,
            "anti_springs": self.anti_springs,
        }

    def to_text(self) -> str:
        data = self.to_json()
        return "\n".join(
            [
                f"games                {data['games']} in {data['seconds']} s",
                f"games per second     {data['games_per_second']}",
                f"legal_moves() calls  {data['legal_calls']}, "
                f"{data['legal_calls_per_second']} per second, median {data['legal_median_us']} us",
                f"actions per game     {data['actions_per_game']}",
                f"bombs per game       {data['bombs_per_game']}",
                f"landlord wins        {data['landlord_wins']}",
                f"spring / anti-spring {data['springs']} / {data['anti_springs']}",
            ]
        )


def play_phase_start(seed: int) -> GameState:
    """The first lead of the game dealt from ``seed``: seat 0 the landlord with the bottom."""
    deal = deal_from_seed(seed)
    hands = [list(hand) for hand in deal.hands]
    hands[0] += deal.bottom
    return GameState.play_position(hands, landlord=0, bottom=deal.bottom)


def simulate(games: int, seed: int) -> SimulationReport:
    """Play ``games`` random games; game ``i`` is dealt from seed ``seed + i``."""
    pick = random.Random(seed).random
    perf = time.perf_counter
    legal_times: list[float] = []
    actions = bombs = landlord_wins = springs = anti_springs = 0
    started = perf()
    for i in range(games):
        state = play_phase_start(seed + i)
        while (seat := state.to_move) is not None:
            before = perf()
            moves = state.legal_moves()
            legal_times.append(perf() - before)
            move = moves[int(pick() * len(moves))]
            state = state.apply(seat, move)
            actions += 1
            if isinstance(move, Play) and move.combo is not None and move.combo.is_bomb:
                bombs += 1
        settlement = settle(state, base=1)
        assert sum(settlement.payments) == 0
        landlord_wins += settlement.landlord_won
        springs += settlement.spring == "spring"
        anti_springs += settlement.spring == "anti_spring"
    seconds = perf() - started
    return SimulationReport(
        games=games,
        seconds=seconds,
        actions=actions,
        legal_calls=len(legal_times),
        legal_seconds=sum(legal_times),
        legal_median_us=statistics.median(legal_times) * 1e6 if legal_times else 0.0,
        bombs=bombs,
        landlord_wins=landlord_wins,
        springs=springs,
        anti_springs=anti_springs,
    )
