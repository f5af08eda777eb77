"""The sensible bot beats the random and the greedy bot by a margin its 95 % interval confirms.

Each duel is seeded, so its figures are the same on every run: this is a comparison, not a
timing, and it cannot be flaky. 300 games (100 deals, each played with the bot in every seat)
against two copies of the other policy; a bot of equal strength would win a third of them.
"""

from __future__ import annotations

import pytest

from games.bots.arena import EQUAL_WIN_RATE, duel

GAMES = 300
SEED = 1


@pytest.mark.parametrize(("opponent", "at_least"), [("greedy", 0.55), ("random", 0.7)])
def test_sensible_wins_clearly_more_than_its_share(opponent: str, at_least: float) -> None:
    report = duel("sensible", opponent, games=GAMES, seed=SEED)
    bot = report.bot
    print(
        f"\nsensible vs two {opponent}: {bot.win_rate:.1%} "
        f"(95% CI {bot.win_ci[0]:.1%} to {bot.win_ci[1]:.1%}), coins {bot.coins_mean:+.2f}"
    )
    # The whole interval lies above a third, and well above it.
    assert bot.win_ci[0] > EQUAL_WIN_RATE
    assert bot.win_ci_by_deal[0] > EQUAL_WIN_RATE
    assert bot.win_rate >= at_least
    # And it takes the coins: its average is above zero by its whole interval.
    assert bot.coins_ci[0] > 0
    assert report.opponent.win_rate < EQUAL_WIN_RATE
