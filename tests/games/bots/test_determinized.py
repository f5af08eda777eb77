"""The game-free search loop: the cautious pick, the iteration cap, whole worlds only, the
deadline, and its seeding."""

from __future__ import annotations

import math
import random
import time

import pytest

from games.bots.determinized import (
    DROP_AFTER_WORLDS,
    SearchOutcome,
    cautious_pick,
    determinized_search,
    view_seed,
)


def search(iterations: int, gain: float = 0.5, deadline: float | None = None) -> SearchOutcome[str]:
    return determinized_search(
        ["keep", "other"],
        sample=lambda rng: rng.random(),
        playout=lambda world, action: world + (gain if action == "other" else 0.0),
        payoff=lambda end: end,
        rng=random.Random(3),
        iterations=iterations,
        deadline=deadline,
    )


def test_the_first_candidate_stays_unless_another_is_surely_better() -> None:
    assert cautious_pick([]) == 0 and cautious_pick([[1.0, 9.0]]) == 0  # too few worlds
    assert cautious_pick([[0, 1], [0, 1], [0, 1]]) == 1
    assert cautious_pick([[0, 0.04], [0, 0.04], [0, 0.04]]) == 0  # within the margin
    assert cautious_pick([[0, 2], [0, -1], [0, 0], [0, -0.5]]) == 0  # noise
    assert cautious_pick([[0, 1, 2], [0, 1, 2], [0, 1, 2]]) == 2  # the best of the sure ones


def test_paired_worlds_and_the_iteration_cap() -> None:
    better = search(9)
    assert better.choice == "other" and better.worlds == 4 and better.playouts == 8
    same = search(40, gain=0.0)
    means = same.means()
    assert means[0] == means[1]  # the same worlds for every candidate
    # A candidate that does no better is dropped, and with it the search ends.
    assert same.choice == "keep" and same.worlds == DROP_AFTER_WORLDS
    with pytest.raises(ValueError):
        search(0)


def test_a_surely_worse_candidate_is_dropped_and_its_playouts_go_to_more_worlds() -> None:
    gains = {"keep": 0.0, "worse": -5.0, "close": 0.3}
    outcome = determinized_search(
        list(gains),
        sample=lambda rng: rng.gauss(0.0, 1.0),
        playout=lambda world, action: world + gains[action] + (0.2 if action == "close" else 0),
        payoff=lambda end: end,
        rng=random.Random(5),
        iterations=60,
    )
    worse = [row[1] for row in outcome.rows]
    assert all(not math.isnan(result) for result in worse[:DROP_AFTER_WORLDS])
    assert all(math.isnan(result) for result in worse[DROP_AFTER_WORLDS:])
    # 3 playouts a world, then 2: more worlds than 60 // 3 within the same cap.
    assert outcome.worlds == DROP_AFTER_WORLDS + (60 - 3 * DROP_AFTER_WORLDS) // 2
    assert outcome.playouts == 3 * DROP_AFTER_WORLDS + 2 * (outcome.worlds - DROP_AFTER_WORLDS)
    assert outcome.choice == "close"
    assert outcome.means()[1] == pytest.approx(
        math.fsum(worse[:DROP_AFTER_WORLDS]) / DROP_AFTER_WORLDS
    )
    assert cautious_pick([[0, math.nan], [0, math.nan], [0, math.nan]]) == 0


def test_a_passed_deadline_stops_after_no_more_than_one_world() -> None:
    outcome = search(1000, deadline=time.perf_counter() - 1)
    assert outcome.worlds <= 1 and outcome.choice == "keep"


def test_the_seed_depends_on_the_seed_the_history_and_the_hand_only() -> None:
    view = {"hand": ["4s", "3s"], "history": [{"seat": 0}], "table": None}
    assert view_seed(1, view) == view_seed(1, {**view, "table": {"seat": 2}})
    assert view_seed(1, view) != view_seed(2, view)
    assert view_seed(1, view) != view_seed(1, {**view, "history": []})
