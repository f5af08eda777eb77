"""The sensible bot wins more than the random and the greedy one, at one table, on fixed deals.

The games are seeded, so the rates are the same on every run: this is a comparison, not a timing.
"""

from __future__ import annotations

import pytest

from games.bots import GreedyPolicy, RandomPolicy, SensiblePolicy, win_rates

GAMES = 300  # 100 deals, each played three times with the bots moved round the seats
SEED = 1


def test_sensible_wins_clearly_more_often_than_random_and_greedy() -> None:
    rates = win_rates([SensiblePolicy(), GreedyPolicy(), RandomPolicy(SEED)], GAMES, SEED)
    print(
        f"\nwin rates over {GAMES} games: "
        + ", ".join(f"{name} {rate:.1%}" for name, rate in rates.items())
    )
    assert sum(rates.values()) == pytest.approx(1.0)
    assert rates["sensible"] >= 0.6
    assert rates["sensible"] - rates["greedy"] >= 0.3
    assert rates["sensible"] - rates["random"] >= 0.5
    assert rates["greedy"] > rates["random"]
