"""Whole games between bots, and the arena that measures one bot against another policy.

``play_game`` plays one game out; ``duel`` plays a bot against two copies of another policy over
many seeded deals, and reports each side's win rate and average coins per game with 95 %
confidence intervals, and how long the bot takes to choose. ``python -m games.bots arena`` runs it
from the command line (see ``games.bots.__main__``).

How a duel is laid out, so that neither side is favoured by the cards or the seats:

* deal ``d`` (0, 1, 2, ...) is ``GameState.deal(seed + d)``: the seed also picks its dealer;
* each deal is played three times, with the bot in seat 0, 1 and 2 in turn and a copy of the
  other policy in each of the two other seats; so the bot holds every hand of every deal once;
* a random opponent gets its own generator per game and seat, seeded from the seed, the deal and
  the seat, so a duel gives the same games, and the same figures, every time it is run;
* coins are the engine's settlement, ``settle(state, base=...)``: each loser pays
  ``base x cards left x multiplier x (2 if spring)`` to the winner. At ``base=1`` a game's coins
  are in units of the table's stake (multiply by a room's base for real coins).

A policy as strong as the others at a three-seat table would win a third of the games and average
0 coins (the payments of a game sum to zero): the figures are reported next to those.

>>> from games.rules.gandengyan import GameState
>>> from games.bots import GreedyPolicy
>>> end = play_game(GameState.deal(1), [GreedyPolicy(), GreedyPolicy(), GreedyPolicy()])
>>> end.is_terminal
True
>>> report = duel("sensible", "greedy", games=6, seed=1)
>>> report.games, report.deals, len(report.results)
(6, 2, 6)
>>> round(wilson_interval(50, 100)[0], 4), round(wilson_interval(50, 100)[1], 4)
(0.4038, 0.5962)
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from games.rules.gandengyan import GameState
from games.rules.gandengyan.moves import Move
from games.rules.gandengyan.settlement import settle

from .policy import Policy, choose_for

__all__ = [
    "EQUAL_WIN_RATE",
    "Z95",
    "DuelReport",
    "GameResult",
    "Side",
    "Timing",
    "duel",
    "format_report",
    "mean_interval",
    "play_game",
    "wilson_interval",
    "win_rates",
]

#: The two-sided 95 % quantile of the standard normal distribution.
Z95 = 1.959963984540054


def play_game(
    state: GameState, policies: Sequence[Policy[Move]], *, max_actions: int = 10_000
) -> GameState:
    """Play ``state`` to its end, seat ``s`` moving as ``policies[s]``; returns the final state.

    Every move goes through ``choose_for``, so each bot sees only its own view. A game always
    ends (once the stock is out, every round takes at least one card out of play); ``max_actions``
    only guards against a broken engine.
    """
    if len(policies) != state.players:
        raise ValueError(f"{state.players} seats need {state.players} policies")
    for _ in range(max_actions):
        seat = state.to_move
        if seat is None:
            return state
        state = state.apply(seat, choose_for(state, policies[seat]))
    raise RuntimeError(f"the game did not end within {max_actions} actions")


def win_rates(policies: Sequence[Policy[Move]], games: int, seed: int) -> dict[str, float]:
    """The share of ``games`` that each of three differently named policies wins.

    Game ``i`` is dealt from seed ``seed + i // 3`` and played with the policies moved ``i % 3``
    seats round, so each deal is played from every seat (use a multiple of 3 games).
    """
    names = [policy.name for policy in policies]
    if len(policies) != 3 or len(set(names)) != 3:
        raise ValueError("compare three policies with different names")
    wins = dict.fromkeys(names, 0)
    for i in range(games):
        seats = [policies[(seat + i) % 3] for seat in range(3)]
        end = play_game(GameState.deal(seed + i // 3), seats)
        assert end.winner is not None
        wins[seats[end.winner].name] += 1
    return {name: count / games for name, count in wins.items()}


# Statistics ----------------------------------------------------------------------------------


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion: ``successes`` out of ``trials``.

    Unlike ``p ± z·sqrt(p(1-p)/n)`` it stays inside [0, 1] and is sound near 0 and 1.

    >>> [round(x, 4) for x in wilson_interval(0, 10)]
    [0.0, 0.2775]
    """
    if trials <= 0:
        raise ValueError("a proportion needs at least one trial")
    if not 0 <= successes <= trials:
        raise ValueError("successes must be between 0 and the number of trials")
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high): the mean of ``values`` and its normal-approximation interval,
    ``mean ± z · s / sqrt(n)`` with ``s`` the sample standard deviation.

    With a single value there is no spread to measure: the interval is infinite.

    >>> [round(x, 4) for x in mean_interval([1.0, 2.0, 3.0, 4.0])]
    [2.5, 1.2348, 3.7652]
    """
    n = len(values)
    if n == 0:
        raise ValueError("a mean needs at least one value")
    mean = math.fsum(values) / n
    if n == 1:
        return mean, -math.inf, math.inf
    half = z * statistics.stdev(values) / math.sqrt(n)
    return mean, mean - half, mean + half


# Duels ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class GameResult:
    """One game of a duel: the deal, the bot's seat, the winner and each seat's coins."""

    deal: int
    bot_seat: int
    winner: int
    payments: tuple[int, ...]
    multiplier: int

    @property
    def bot_won(self) -> bool:
        return self.winner == self.bot_seat

    @property
    def bot_coins(self) -> int:
        return self.payments[self.bot_seat]


@dataclasses.dataclass(frozen=True, slots=True)
class Side:
    """One side's figures: its seat-games, wins and coins, with 95 % intervals.

    A seat-game is one seat in one game: the bot has one per game, the other policy two (so its
    win rate is per copy, and an equal policy's is a third on either side). ``win_ci`` is the
    Wilson interval over the seat-games. The three games of a deal share their cards, so they are
    not quite independent; the deals are. So ``coins_ci`` is the normal interval over the deals'
    averages (coins vary a lot from game to game, with the multiplier), and ``win_ci_by_deal``
    the same kind of interval for the win rate, to check the Wilson one against.
    """

    name: str
    seat_games: int
    wins: int
    coins_mean: float
    coins_ci: tuple[float, float]
    win_ci: tuple[float, float]
    win_ci_by_deal: tuple[float, float]

    @property
    def win_rate(self) -> float:
        return self.wins / self.seat_games


@dataclasses.dataclass(frozen=True, slots=True)
class Timing:
    """Milliseconds per move of the bot: ``choose`` alone, and ``choose_for`` as the server
    calls it (building the seat's view and the legal moves as well)."""

    moves: int
    choose_ms: tuple[float, float, float]  # median, 99th percentile, maximum
    whole_ms: tuple[float, float, float]

    @classmethod
    def of(cls, choose: list[float], whole: list[float]) -> Timing:
        return cls(len(choose), _spread(choose), _spread(whole))


def _spread(seconds: list[float]) -> tuple[float, float, float]:
    if not seconds:
        return (0.0, 0.0, 0.0)
    ordered = sorted(seconds)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    return (statistics.median(ordered) * 1e3, p99 * 1e3, ordered[-1] * 1e3)


@dataclasses.dataclass(frozen=True, slots=True)
class DuelReport:
    bot: Side
    opponent: Side
    seed: int
    base: int
    results: tuple[GameResult, ...]
    timing: Timing

    @property
    def games(self) -> int:
        return len(self.results)

    @property
    def deals(self) -> int:
        return len(self.results) // 3


class _Timed:
    """A policy that times its inner policy's ``choose``."""

    def __init__(self, inner: Policy[Move], times: list[float]) -> None:
        self.inner = inner
        self.name = inner.name
        self.times = times

    def choose(self, state_view: dict[str, Any], legal: Sequence[Move]) -> Move:
        before = time.perf_counter()
        move = self.inner.choose(state_view, legal)
        self.times.append(time.perf_counter() - before)
        return move


PolicyFactory = Callable[[int], Policy[Move]]  # a policy from a seed (used by random ones only)


def duel(
    bot: str | PolicyFactory,
    opponent: str | PolicyFactory,
    *,
    games: int,
    seed: int,
    base: int = 1,
) -> DuelReport:
    """Play ``bot`` against two copies of ``opponent`` over ``games`` games (a multiple of 3:
    each deal three times, the bot in each seat); see the module's description.

    ``bot`` and ``opponent`` are policy names (see ``make_policy``) or functions from a seed to a
    policy (a random one gets a different seed for each game and seat). Coins are
    ``settle(state, base=base)``.
    """
    if games <= 0 or games % 3:
        raise ValueError(
            "a duel plays each deal from all three seats: games must be a multiple of 3"
        )
    if seed < 0:
        raise ValueError("the seed is a non-negative whole number")
    make_bot, make_opponent = _factory(bot), _factory(opponent)
    choose_times: list[float] = []
    whole_times: list[float] = []
    results: list[GameResult] = []
    perf = time.perf_counter
    for deal in range(games // 3):
        start = GameState.deal(seed + deal)
        for bot_seat in range(3):
            base_seed = ((seed * 1_000_003 + deal) * 3 + bot_seat) * 3
            seats: list[Policy[Move]] = [make_opponent(base_seed + seat) for seat in range(3)]
            seats[bot_seat] = _Timed(make_bot(base_seed + bot_seat), choose_times)
            state = start
            while (seat := state.to_move) is not None:
                if seat == bot_seat:
                    before = perf()
                    move = choose_for(state, seats[bot_seat])
                    whole_times.append(perf() - before)
                else:
                    move = choose_for(state, seats[seat])
                state = state.apply(seat, move)
            assert state.winner is not None
            settlement = settle(state, base=base)
            results.append(
                GameResult(deal, bot_seat, state.winner, settlement.payments, state.multiplier)
            )
    bot_name = seats[bot_seat].name
    opponent_name = seats[(bot_seat + 1) % 3].name
    return DuelReport(
        bot=_side(bot_name, results, bot=True),
        opponent=_side(opponent_name, results, bot=False),
        seed=seed,
        base=base,
        results=tuple(results),
        timing=Timing.of(choose_times, whole_times),
    )


def _factory(policy: str | PolicyFactory) -> PolicyFactory:
    if not isinstance(policy, str):
        return policy
    from . import make_policy  # the package imports this module

    make_policy(policy)  # an unknown name fails here, before any game is played
    return lambda seed: make_policy(policy, seed=seed)


def _side(name: str, results: Sequence[GameResult], *, bot: bool) -> Side:
    """The figures of the bot's seats (``bot``) or of the opponent's two seats per game."""
    wins = 0
    seat_games = 0
    deal_wins: dict[int, float] = {}
    deal_coins: dict[int, float] = {}
    for result in results:
        seats = [result.bot_seat] if bot else [s for s in range(3) if s != result.bot_seat]
        won = sum(1 for s in seats if s == result.winner)
        paid = sum(result.payments[s] for s in seats)
        wins += won
        seat_games += len(seats)
        deal_wins[result.deal] = deal_wins.get(result.deal, 0.0) + won
        deal_coins[result.deal] = deal_coins.get(result.deal, 0.0) + paid
    per_deal = seat_games / len(deal_wins)  # seat-games per deal: 3 for the bot, 6 for the other
    shares = [value / per_deal for value in deal_wins.values()]
    coins = [value / per_deal for value in deal_coins.values()]
    coins_mean, coins_low, coins_high = mean_interval(coins)
    _, win_low, win_high = mean_interval(shares)
    return Side(
        name=name,
        seat_games=seat_games,
        wins=wins,
        coins_mean=coins_mean,
        coins_ci=(coins_low, coins_high),
        win_ci=wilson_interval(wins, seat_games),
        win_ci_by_deal=(max(0.0, win_low), min(1.0, win_high)),
    )


# Reports -------------------------------------------------------------------------------------

#: What a policy exactly as strong as the others wins at a three-seat table.
EQUAL_WIN_RATE = 1 / 3


def format_report(report: DuelReport, *, timing: bool = True) -> str:
    """The duel's figures as text: one line per policy, the equal-strength line, the bot's
    margin over it and, with ``timing``, how long the bot took per move.

    Everything but the timing line is the same on every run with the same seed.
    """
    bot, other = report.bot, report.opponent
    deals = report.deals
    lines = [
        f"{bot.name} against two {other.name} bots: {report.games:,} games "
        f"({deals:,} {'deal' if deals == 1 else 'deals'}, "
        f"seeds {report.seed:,} to {report.seed + deals - 1:,}, "
        f"each played with {bot.name} in every seat)",
        f"coins at base {report.base}: each loser pays base x cards left x multiplier "
        "(x 2 if spring) to the winner",
        f"{'policy':<16} {'seat-games':>10} {'wins':>7} {'win rate':>9}  {'95% CI':<15} "
        f"{'coins/game':>10}  {'95% CI':<17}",
    ]
    for side in (bot, other):
        lines.append(
            f"{side.name:<16} {side.seat_games:>10,} {side.wins:>7,} {side.win_rate:>9.1%}  "
            f"{_percent_range(side.win_ci):<15} {side.coins_mean:>+10.2f}  "
            f"{side.coins_ci[0]:+.2f} to {side.coins_ci[1]:+.2f}"
        )
    lines.append(
        f"{'equal strength':<16} {'':>10} {'':>7} {EQUAL_WIN_RATE:>9.1%}  {'':<15} {0:>+10.2f}"
    )
    margin = bot.win_rate - EQUAL_WIN_RATE
    low = bot.win_ci[0] - EQUAL_WIN_RATE
    lines.append(
        f"margin of {bot.name} over equal strength: {margin * 100:+.1f} points of win rate "
        f"(95% CI from {low * 100:+.1f}), {bot.coins_mean:+.2f} coins a game "
        f"(95% CI from {bot.coins_ci[0]:+.2f})"
    )
    lines.append(
        f"check: with the deals as the units, the win rate's 95% CI is "
        f"{_percent_range(bot.win_ci_by_deal)}"
    )
    if timing:
        t = report.timing
        lines.append(
            f"time per {bot.name} move ({t.moves:,} moves): choose median {t.choose_ms[0]:.3f} ms, "
            f"p99 {t.choose_ms[1]:.2f} ms, max {t.choose_ms[2]:.1f} ms; "
            f"choose_for (with the view and the legal moves) median {t.whole_ms[0]:.3f} ms, "
            f"p99 {t.whole_ms[1]:.2f} ms, max {t.whole_ms[2]:.1f} ms"
        )
    return "\n".join(line.rstrip() for line in lines)


def _percent_range(interval: tuple[float, float]) -> str:
    return f"{interval[0]:.1%} to {interval[1]:.1%}"
