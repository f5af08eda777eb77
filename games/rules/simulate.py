"""Seeded random playouts, the same way for every game: its benchmark and a soak test.

Game ``i`` of a run starts from seed ``seed + i`` (the game says how: ``start``), and every move
is drawn uniformly from ``legal_moves()`` by one ``random.Random(seed)`` until the game is over;
``finish`` then sees the final state (to settle it and count what the game's report shows). The
timings cover the public API (``legal_moves`` + ``apply``) and ``finish``; the ``legal_moves``
calls are also timed one by one for their median.
"""

from __future__ import annotations

import dataclasses
import random
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

__all__ = ["Playouts", "median_legal_us", "play_random_games", "positions_played_on"]


_S = TypeVar("_S", bound="_Playable")


class _Playable(Protocol):
    """A game's state, as far as the playouts read it."""

    @property
    def to_move(self) -> int | None: ...

    def legal_moves(self) -> Sequence[Any]: ...

    def apply(self: _S, seat: int, move: Any, /) -> _S: ...


StateT = TypeVar("StateT", bound=_Playable)


@dataclasses.dataclass(frozen=True, slots=True)
class Playouts:
    """What every game's playouts measure. A game's report adds its own counts to these."""

    games: int
    seconds: float
    actions: int
    legal_calls: int
    legal_seconds: float
    legal_median_us: float

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def legal_calls_per_second(self) -> float:
        return self.legal_calls / self.legal_seconds if self.legal_seconds else 0.0

    def timing_json(self) -> dict[str, Any]:
        """The games and the timings, as a report's JSON starts."""
        return {
            "games": self.games,
            "seconds": round(self.seconds, 4),
            "games_per_second": round(self.games_per_second, 1),
            "legal_calls": self.legal_calls,
            "legal_calls_per_second": round(self.legal_calls_per_second, 1),
            "legal_median_us": round(self.legal_median_us, 2),
        }

    def timing_lines(self) -> list[str]:
        """The games and the timings, as a report's text starts."""
        data = self.timing_json()
        return [
            f"games                {data['games']} in {data['seconds']} s",
            f"games per second     {data['games_per_second']}",
            f"legal_moves() calls  {data['legal_calls']}, "
            f"{data['legal_calls_per_second']} per second, median {data['legal_median_us']} us",
        ]


def play_random_games(
    games: int,
    seed: int,
    start: Callable[[int], StateT],
    finish: Callable[[StateT], object],
) -> Playouts:
    """Play ``games`` random games; game ``i`` is ``start(seed + i)``, and ``finish`` is given
    each at its end."""
    pick = random.Random(seed).random
    perf = time.perf_counter
    legal_times: list[float] = []
    actions = 0
    started = perf()
    for i in range(games):
        state = start(seed + i)
        while (seat := state.to_move) is not None:
            before = perf()
            moves = state.legal_moves()
            legal_times.append(perf() - before)
            state = state.apply(seat, moves[int(pick() * len(moves))])
            actions += 1
        finish(state)
    seconds = perf() - started
    return Playouts(
        games=games,
        seconds=seconds,
        actions=actions,
        legal_calls=len(legal_times),
        legal_seconds=sum(legal_times),
        legal_median_us=statistics.median(legal_times) * 1e6 if legal_times else 0.0,
    )


def median_legal_us(positions: Iterable[_Playable], repeats: int = 5) -> float:
    """Median microseconds of ``legal_moves()`` over ``positions``, each timed ``repeats`` times
    and its fastest kept (the least disturbed by noise)."""
    perf = time.perf_counter
    samples = []
    for state in positions:
        best = float("inf")
        for _ in range(repeats):
            before = perf()
            state.legal_moves()
            best = min(best, perf() - before)
        samples.append(best)
    return statistics.median(samples) * 1e6


def positions_played_on(engine: Any, state: Any, moves: int, rng: random.Random) -> list[Any]:
    """``state`` and up to ``moves`` positions after it, through ``engine``'s protocol: the
    deal's stages as the table's clock deals them (``deal_next``), then actions drawn by ``rng``
    from the seat to move's legal ones, until the game ends."""
    from .protocol import Phase

    positions = [state]
    while len(positions) <= moves and not state.is_terminal:
        seat = state.to_move
        if state.phase is Phase.DEAL:
            action = engine.deal_next(state)
        else:
            action = rng.choice(list(state.legal_actions(seat)))
        state = state.apply(seat, action)
        positions.append(state)
    return positions
