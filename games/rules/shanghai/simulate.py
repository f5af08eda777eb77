"""Seeded random playouts of the play phase: the engine's benchmark and a soak test.

Each game is dealt from its own seed (redealt as long as it would be); its first bidder says
小地主 and the others 不叫, so it leads with 33 cards against three farmers of 25 with one bomb
each; every move is then drawn uniformly from ``legal_moves()`` until a hand is empty
(``games.rules.simulate``), and the game is settled. The timings cover the public API
(``legal_moves`` + ``apply``); the ``legal_moves`` calls are also timed one by one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..simulate import Playouts, play_random_games
from .game import GameState
from .moves import NO_BID, SMALL
from .settlement import settle

__all__ = ["SimulationReport", "play_phase_start", "simulate"]


@dataclasses.dataclass(frozen=True, slots=True)
class SimulationReport(Playouts):
    bombs: int
    landlord_wins: int

    def to_json(self) -> dict[str, Any]:
        games = self.games or 1
        return {
            "game": "shanghai",
            **self.timing_json(),
            "actions_per_game": round(self.actions / games, 2),
            "bombs_per_game": round(self.bombs / games, 3),
            "landlord_wins": self.landlord_wins,
        }

    def to_text(self) -> str:
        data = self.to_json()
        return "\n".join(
            [
                *self.timing_lines(),
                f"actions per game     {data['actions_per_game']}",
                f"bombs per game       {data['bombs_per_game']}",
                f"landlord wins        {data['landlord_wins']}",
            ]
        )


def play_phase_start(seed: int) -> GameState:
    """The first lead of the game dealt from ``seed``: its first bidder the 小地主."""
    state = GameState.deal(seed)
    first = state.to_move
    assert first is not None
    state = state.apply(first, SMALL)
    for _ in range(3):
        seat = state.to_move
        assert seat is not None
        state = state.apply(seat, NO_BID)
    return state


def simulate(games: int, seed: int) -> SimulationReport:
    """Play ``games`` random games; game ``i`` is dealt from seed ``seed + i``."""
    bombs = landlord_wins = 0

    def finish(state: GameState) -> None:
        nonlocal bombs, landlord_wins
        bombs += sum(state.bombs_played)
        settlement = settle(state, base=1)
        assert sum(settlement.payments) == 0
        landlord_wins += settlement.landlord_won

    playouts = play_random_games(games, seed, play_phase_start, finish)
    return SimulationReport(
        **dataclasses.asdict(playouts), bombs=bombs, landlord_wins=landlord_wins
    )
