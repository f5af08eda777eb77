"""Seeded random playouts of the play phase: the engine's benchmark and a soak test.

Each game is dealt from its own seed; seat 0 is the landlord with the three bottom cards (20,
17 and 17 cards), nobody robbed, showed or doubled, and every move is drawn uniformly from
``legal_moves()`` until a hand is empty (``games.rules.simulate``); the game is then settled.
The timings cover the public API (``legal_moves`` + ``apply``); the ``legal_moves`` calls are
also timed one by one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..simulate import Playouts, play_random_games
from .game import GameState, deal_from_seed
from .settlement import settle

__all__ = ["SimulationReport", "play_phase_start", "simulate"]


@dataclasses.dataclass(frozen=True, slots=True)
class SimulationReport(Playouts):
    bombs: int
    landlord_wins: int
    springs: int
    anti_springs: int

    def to_json(self) -> dict[str, Any]:
        games = self.games or 1
        return {
            "game": "doudizhu",
            **self.timing_json(),
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
                *self.timing_lines(),
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
    bombs = landlord_wins = springs = anti_springs = 0

    def finish(state: GameState) -> None:
        nonlocal bombs, landlord_wins, springs, anti_springs
        bombs += state.bombs  # the game's bombs and rockets: it starts at the first lead
        settlement = settle(state, base=1)
        assert sum(settlement.payments) == 0
        landlord_wins += settlement.landlord_won
        springs += settlement.spring == "spring"
        anti_springs += settlement.spring == "anti_spring"

    playouts = play_random_games(games, seed, play_phase_start, finish)
    return SimulationReport(
        **dataclasses.asdict(playouts),
        bombs=bombs,
        landlord_wins=landlord_wins,
        springs=springs,
        anti_springs=anti_springs,
    )
