"""The arena: its statistics on known inputs, the fair layout of a duel, and its command line."""

from __future__ import annotations

import math

import pytest

from games.bots import GreedyPolicy, RandomPolicy, SensiblePolicy, win_rates
from games.bots.__main__ import main
from games.bots.arena import (
    EQUAL_WIN_RATE,
    Z95,
    DuelReport,
    duel,
    format_report,
    mean_interval,
    wilson_interval,
)

# Statistics ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        (50, 100, 0.403832, 0.596168),
        (0, 10, 0.0, 0.277533),
        (10, 10, 0.722467, 1.0),
        (1, 3, 0.061492, 0.792340),
        (700, 1000, 0.670876, 0.727593),
    ],
)
def test_wilson_interval_on_known_inputs(
    successes: int, trials: int, low: float, high: float
) -> None:
    assert wilson_interval(successes, trials) == pytest.approx((low, high), abs=1e-6)


def test_wilson_interval_comes_close_to_the_normal_one_on_many_trials() -> None:
    low, high = wilson_interval(5000, 10000)
    half = Z95 * math.sqrt(0.25 / 10000)
    assert (low, high) == pytest.approx((0.5 - half, 0.5 + half), abs=1e-5)
    assert round(Z95, 6) == 1.959964


@pytest.mark.parametrize(("successes", "trials"), [(0, 0), (-1, 5), (6, 5)])
def test_wilson_interval_refuses_impossible_counts(successes: int, trials: int) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, trials)


def test_mean_interval_on_known_inputs() -> None:
    # Sample standard deviation of 1, 2, 3, 4 is sqrt(5/3); half-width 1.96 x that / 2.
    mean, low, high = mean_interval([1.0, 2.0, 3.0, 4.0])
    half = Z95 * math.sqrt(5 / 3) / 2
    assert mean == 2.5 and (low, high) == pytest.approx((2.5 - half, 2.5 + half))
    assert mean_interval([3.0, 3.0, 3.0]) == (3.0, 3.0, 3.0)
    assert mean_interval([7.0]) == (7.0, -math.inf, math.inf)
    with pytest.raises(ValueError):
        mean_interval([])


# Duels -----------------------------------------------------------------------------------------


def test_a_duel_plays_every_deal_with_the_bot_in_every_seat() -> None:
    report = duel("sensible", "random", games=12, seed=5)
    assert report.games == 12 and report.deals == 4
    assert [(r.deal, r.bot_seat) for r in report.results] == [
        (deal, seat) for deal in range(4) for seat in range(3)
    ]
    for result in report.results:
        assert sum(result.payments) == 0 and result.payments[result.winner] > 0
    bot, other = report.bot, report.opponent
    assert (bot.name, other.name) == ("sensible", "random")
    assert (bot.seat_games, other.seat_games) == (12, 24)
    assert bot.wins + other.wins == 12
    assert bot.wins == sum(r.bot_won for r in report.results)
    assert bot.coins_mean == pytest.approx(sum(r.bot_coins for r in report.results) / 12)
    assert bot.coins_mean == pytest.approx(-2 * other.coins_mean)
    assert report.timing.moves > 0 and report.timing.choose_ms[0] <= report.timing.choose_ms[2]


def test_a_policy_against_copies_of_itself_gets_exactly_an_equal_share() -> None:
    # Greedy bots all play alike, so a deal goes the same way whichever seat is "the bot": it
    # wins exactly one of the deal's three games, and its coins over them add up to zero.
    report = duel("greedy", "greedy", games=30, seed=3)
    assert report.bot.win_rate == pytest.approx(EQUAL_WIN_RATE)
    assert report.opponent.win_rate == pytest.approx(EQUAL_WIN_RATE)
    assert report.bot.coins_mean == pytest.approx(0.0)
    assert report.bot.win_ci_by_deal == pytest.approx((EQUAL_WIN_RATE, EQUAL_WIN_RATE))


def test_a_duel_gives_the_same_games_every_time() -> None:
    def run() -> DuelReport:
        return duel("sensible", "random", games=9, seed=11, base=400)

    first, second = run(), run()
    assert first.results == second.results
    assert format_report(first, timing=False) == format_report(second, timing=False)
    assert all(p % 400 == 0 for r in first.results for p in r.payments)


def test_a_duel_takes_policies_by_name_or_by_factory() -> None:
    by_factory = duel(lambda seed: SensiblePolicy(), RandomPolicy, games=6, seed=2)
    by_name = duel("sensible", "random", games=6, seed=2)
    assert by_factory.results == by_name.results


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"games": 10, "seed": 1}, "multiple"),
        ({"games": 0, "seed": 1}, "multiple"),
        ({"games": 3, "seed": -1}, "seed"),
    ],
)
def test_a_duel_refuses_bad_arguments(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        duel("sensible", "greedy", **kwargs)
    with pytest.raises(ValueError, match="no bot is called"):
        duel("sensible", "clever", games=3, seed=1)


def test_the_report_gives_both_sides_equal_strength_and_the_margin() -> None:
    report = duel("sensible", "greedy", games=6, seed=1)
    text = format_report(report)
    lines = text.splitlines()
    assert lines[0].startswith("sensible against two greedy bots: 6 games (2 deals, seeds 1 to 2")
    assert lines[1].startswith("coins at base 1:")
    assert lines[3].split()[:3] == ["sensible", "6", str(report.bot.wins)]
    assert lines[4].split()[:3] == ["greedy", "12", str(report.opponent.wins)]
    assert lines[5].split() == ["equal", "strength", "33.3%", "+0.00"]
    assert lines[6].startswith("margin of sensible over equal strength: ")
    assert lines[-1].startswith("time per sensible move")
    assert "time per" not in format_report(report, timing=False)


def test_win_rates_of_three_policies_at_one_table_add_up() -> None:
    rates = win_rates([SensiblePolicy(), GreedyPolicy(), RandomPolicy(1)], 9, 1)
    assert set(rates) == {"sensible", "greedy", "random"}
    assert sum(rates.values()) == pytest.approx(1.0)


# The command line ------------------------------------------------------------------------------


def test_the_arena_command_prints_a_report_per_opponent(capsys: pytest.CaptureFixture[str]) -> None:
    main(["arena", "--games", "6", "--seed", "1", "--no-timing"])
    out = capsys.readouterr().out
    assert sum(line.startswith("equal strength") for line in out.splitlines()) == 2
    assert "sensible against two random bots: 6 games" in out
    assert "sensible against two greedy bots: 6 games" in out
    assert "time per" not in out
    main(["arena", "--games", "6", "--seed", "1", "--no-timing"])
    assert capsys.readouterr().out == out  # the same seed, the same figures
    main(["arena", "--games", "3", "--against", "greedy"])
    out = capsys.readouterr().out
    assert "time per sensible move" in out and "played in" in out
    assert "random" not in out


def test_the_arena_command_refuses_a_number_of_games_not_a_multiple_of_3(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["arena", "--games", "10"])
    assert "multiple of 3" in capsys.readouterr().err


def test_the_speed_command_times_whole_games_and_big_hands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["speed", "--games", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("  ")[0] for line in lines] == [
        "every move, 3 games vs greedy",
        "leads, 10-card hands, cold",
        "leads, 20-card hands, cold",
        "the hardest lead found, cold",
    ]
    assert all("median" in line and "p99" in line and "max" in line for line in lines)
