"""The game-free loop of a determinized search (perfect-information Monte Carlo over the hidden
cards), for any game that gives it four things: a ranking of the legal actions, a sampler of
worlds, a playout and a payoff.

How a choice is made (``DeterminizedPolicy.choose``):

* **At once** when the game says the choice needs no search (``SearchGame.obvious``: one legal
  action, a play that empties the hand, a phase that is not searched).
* **Candidates**: the game's sensible bot ranks the legal actions (``SearchGame.rank``: its own
  choice first); the search weighs the first ``candidates``.
* **Worlds**: the game deals the hidden cards at random, keeping everything its seat knows
  (``SearchGame.sampler``), into a whole state.
* **Paired playouts**: in each world every candidate is played, then the game is played out
  (``SearchGame.playout``) and what the end pays the seat is its result (``SearchGame.payoff``).
  Every candidate meets the same worlds, so their results differ only by the action.
* **Dropping the surely worse**: after ``DROP_AFTER_WORLDS`` worlds, a candidate whose
  difference from the first stays below ``margin`` by more than ``DROP_CONFIDENCE`` standard
  errors cannot become the pick; it is played no more, and the budget goes to more worlds for
  the rest (when only the first is left, the search ends).
* **The cautious pick** (``cautious_pick``): the first candidate (the sensible choice) stays
  unless another did better in the same worlds by more than ``margin`` on average and by more
  than ``confidence`` standard errors of the worlds' differences; of those, the best on average.

It stops at the iteration cap (``iterations``: playouts in all) or at the time budget
(``budget_ms``), whichever comes first, and only between worlds: it does not start a world it has
no time to finish at the pace of the worlds so far, and a world the clock cuts short does not
count. Its generator is seeded from ``seed`` and the view (its history's length and its hand),
so with ``budget_ms=None`` the same view and seed always give the same action.

>>> import random
>>> outcome = determinized_search(
...     ["keep", "better"],
...     sample=lambda rng: rng.random(),
...     playout=lambda world, action: world + (0.5 if action == "better" else 0.0),
...     payoff=lambda end: end,
...     rng=random.Random(1),
...     iterations=20,
... )
>>> outcome.choice, outcome.worlds, outcome.playouts
('better', 10, 20)
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar

__all__ = [
    "DEFAULT_BUDGET_MS",
    "DeterminizedPolicy",
    "SearchGame",
    "SearchOutcome",
    "cautious_pick",
    "determinized_search",
    "mask_indexes",
    "view_seed",
]

#: The time budget per move, in milliseconds, by default (a safety stop beside the cap).
DEFAULT_BUDGET_MS = 120.0
#: After this many worlds a candidate that is surely worse than the first (by
#: ``DROP_CONFIDENCE`` standard errors) is played no more: its playouts go to more worlds.
DROP_AFTER_WORLDS = 6
DROP_CONFIDENCE = 2.0

ActionT = TypeVar("ActionT")
WorldT = TypeVar("WorldT")
EndT = TypeVar("EndT")


@dataclasses.dataclass(frozen=True, slots=True)
class SearchOutcome(Generic[ActionT]):
    """What a search found: the action chosen, its index among the candidates, and each world's
    results (one row per world, one column per candidate; NaN for a candidate dropped before
    that world)."""

    choice: ActionT
    index: int
    rows: tuple[tuple[float, ...], ...]

    @property
    def worlds(self) -> int:
        return len(self.rows)

    @property
    def playouts(self) -> int:
        return sum(not math.isnan(result) for row in self.rows for result in row)

    def means(self) -> list[float]:
        """Each candidate's average result over the worlds it was played in (empty without
        worlds)."""
        if not self.rows:
            return []
        means = []
        for column in zip(*self.rows, strict=True):
            played = [result for result in column if not math.isnan(result)]
            means.append(math.fsum(played) / len(played))
        return means


def cautious_pick(
    rows: Sequence[Sequence[float]], *, margin: float = 0.05, confidence: float = 1.0
) -> int:
    """The candidate to play: the first (0) unless another did better in the same worlds by more
    than ``margin`` on average and by more than ``confidence`` standard errors of the worlds'
    differences; of those, the best on average. A candidate is judged on the worlds it was
    played in (NaN where it was dropped); fewer than two such worlds keep the first.

    >>> cautious_pick([[0, 1], [0, 1], [0, 0]])
    1
    >>> cautious_pick([[0, 1], [0, -1], [0, 0.5]])
    0
    """
    if not rows:
        return 0
    best, best_mean = 0, 0.0
    for i in range(1, len(rows[0])):
        mean, error = _difference(rows, i)
        sure = mean > margin and mean > confidence * error
        if sure and mean > best_mean:
            best, best_mean = i, mean
    return best


def _difference(rows: Sequence[Sequence[float]], i: int) -> tuple[float, float]:
    """Candidate ``i``'s average result less the first's, over the worlds it was played in,
    and the standard error of that average (infinite with fewer than two worlds)."""
    differences = [row[i] - row[0] for row in rows if not math.isnan(row[i])]
    n = len(differences)
    if n < 2:
        return 0.0, math.inf
    mean = math.fsum(differences) / n
    spread = math.sqrt(math.fsum((d - mean) ** 2 for d in differences) / (n - 1))
    return mean, spread / math.sqrt(n)


def determinized_search(
    candidates: Sequence[ActionT],
    *,
    sample: Callable[[random.Random], WorldT],
    playout: Callable[[WorldT, ActionT], EndT],
    payoff: Callable[[EndT], float],
    rng: random.Random,
    iterations: int,
    deadline: float | None = None,
    margin: float = 0.05,
    confidence: float = 1.0,
) -> SearchOutcome[ActionT]:
    """Weigh ``candidates`` (the first is the default choice) over sampled worlds.

    ``sample(rng)`` makes a world, ``playout(world, candidate)`` plays the candidate in it and
    the game out to its end, ``payoff(end)`` is what that end is worth to the searching seat.
    It plays at most ``iterations`` playouts, whole worlds only, and starts no world it cannot
    finish before ``deadline`` (a ``time.perf_counter()`` value; None: no time limit) at the pace
    of the worlds so far. The pick is ``cautious_pick``'s.
    """
    if not candidates:
        raise ValueError("there are no candidates to weigh")
    if iterations < 1:
        raise ValueError("the search needs at least one playout")
    rows: list[tuple[float, ...]] = []
    clock = time.perf_counter
    searching = clock()
    active = list(range(len(candidates)))
    playouts = 0
    while len(active) > 1 and playouts + len(active) <= iterations:
        if deadline is not None and rows:
            per_world = (clock() - searching) / len(rows)
            if clock() + per_world > deadline:
                break
        world = sample(rng)
        row = [math.nan] * len(candidates)
        for i in active:
            if deadline is not None and clock() > deadline:
                break
            row[i] = payoff(playout(world, candidates[i]))
        else:
            rows.append(tuple(row))
            playouts += len(active)
            if len(rows) >= DROP_AFTER_WORLDS:
                active = [
                    i for i in active if i == 0 or _still_in_the_running(rows, i, margin=margin)
                ]
            continue
        break  # out of time: the unfinished world does not count
    index = cautious_pick(rows, margin=margin, confidence=confidence)
    return SearchOutcome(candidates[index], index, tuple(rows))


def _still_in_the_running(rows: Sequence[Sequence[float]], i: int, *, margin: float) -> bool:
    """Whether candidate ``i`` could still be found better than the first: it is dropped once
    its difference is below ``margin`` by more than ``DROP_CONFIDENCE`` standard errors."""
    mean, error = _difference(rows, i)
    return mean + DROP_CONFIDENCE * error >= margin


def view_seed(seed: int, view: dict[str, Any]) -> str:
    """The seed of a choice's generator: the policy's seed, how far the game has gone and the
    seat's hand, so that a choice does not depend on what the policy was asked before."""
    history = view.get("history") or ()
    return f"{seed}:{len(history)}:{sorted(view.get('hand') or ())}"


class SearchGame(Protocol[ActionT, WorldT, EndT]):
    """What the search needs of a game (see the module's description)."""

    def obvious(self, view: dict[str, Any], legal: Sequence[ActionT]) -> ActionT | None:
        """The action to take without searching, or None to search."""
        ...

    def rank(self, view: dict[str, Any], legal: Sequence[ActionT]) -> list[ActionT]:
        """The actions worth weighing, the sensible bot's choice first, best first."""
        ...

    def sampler(self, view: dict[str, Any]) -> Callable[[random.Random], WorldT]:
        """A maker of worlds that agree with everything ``view``'s seat knows."""
        ...

    def playout(self, world: WorldT, action: ActionT) -> EndT:
        """The end of the game after ``action`` in ``world``, played out by the game's bots."""
        ...

    def payoff(self, view: dict[str, Any]) -> Callable[[EndT], float]:
        """What an end is worth to ``view``'s seat, in units of its stake so far."""
        ...


class DeterminizedPolicy(Generic[ActionT, WorldT, EndT]):
    """A policy that searches with ``determinized_search`` over a ``SearchGame``.

    ``seed`` seeds its worlds; ``iterations`` caps the playouts per move and ``budget_ms`` the
    time (None: no time limit, for fully reproducible runs); ``candidates`` is how many of the
    sensible bot's best actions it weighs; ``margin`` and ``confidence`` are ``cautious_pick``'s.
    """

    def __init__(
        self,
        game: SearchGame[ActionT, WorldT, EndT],
        *,
        name: str,
        seed: int = 0,
        budget_ms: float | None = DEFAULT_BUDGET_MS,
        iterations: int,
        candidates: int = 3,
        margin: float = 0.05,
        confidence: float = 1.0,
    ) -> None:
        if iterations < 1:
            raise ValueError("the search needs at least one playout")
        self.game = game
        self.name = name
        self.seed = seed
        self.budget_ms = budget_ms
        self.iterations = iterations
        self.candidates = candidates
        self.margin = margin
        self.confidence = confidence
        #: The last search made (None when the last choice needed none).
        self.last_outcome: SearchOutcome[ActionT] | None = None

    @property
    def last_playouts(self) -> int:
        """Playouts made in the last choice (0 when it answered at once)."""
        return 0 if self.last_outcome is None else self.last_outcome.playouts

    def choose(self, state_view: dict[str, Any], legal: Sequence[ActionT]) -> ActionT:
        started = time.perf_counter()
        self.last_outcome = None
        if not legal:
            raise ValueError("there are no legal actions to choose from")
        if len(legal) == 1:
            return legal[0]
        at_once = self.game.obvious(state_view, legal)
        if at_once is not None:
            return at_once
        ranked = self.game.rank(state_view, legal)[: max(1, self.candidates)]
        if len(ranked) == 1:
            return ranked[0]
        deadline = None if self.budget_ms is None else started + self.budget_ms / 1000.0
        outcome = determinized_search(
            ranked,
            sample=self.game.sampler(state_view),
            playout=self.game.playout,
            payoff=self.game.payoff(state_view),
            rng=random.Random(view_seed(self.seed, state_view)),
            iterations=self.iterations,
            deadline=deadline,
            margin=self.margin,
            confidence=self.confidence,
        )
        self.last_outcome = outcome
        return outcome.choice

    def __repr__(self) -> str:
        return (
            f"DeterminizedPolicy({self.name!r}, seed={self.seed}, budget_ms={self.budget_ms}, "
            f"iterations={self.iterations})"
        )


def mask_indexes(mask: int) -> list[int]:
    """The indexes of the bits set in ``mask``, lowest first: a hand's cards, for the
    playouts' lean views."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
