"""The 上海斗地主 arena: the bot as the landlord and as the farmers, against other policies.

上海斗地主 is one landlord against three farmers, so the bot is measured in each role apart, on
positions where the roles are fixed: deal ``d`` is ``play_phase_start(seed + d)``
(``games.rules.shanghai.simulate``: the first bidder says 小地主 and the three others 不叫, so it
leads with the 8 bottom cards, 33 against 25 + 25 + 25, and each farmer may play one bomb). Each
deal is played three times:

* ``landlord``: the bot as the landlord against three copies of the other policy;
* ``farmers``: three copies of the bot as the farmers against the other policy as the landlord;
* ``baseline``: the other policy in all four seats, the same cards: what the landlord's side wins
  when nobody is better, the figure the other two are read against.

Whole games too, bidding included (``full_duel``): deal ``d`` is ``ENGINE.deal(seed + d)``,
played four times with the bot in seat 0, 1, 2 and 3 and the other policy in the three other
seats (the bot wins a game when its seat is paid), and once more with the other policy in all four
seats (``full baseline``: each seat of each game counts, so it averages 0 points).

A random policy gets its own generator per deal and seat, seeded from the seed, the deal and the
seat, so a run gives the same games, and the same figures, every time. Every action goes through
``choose_for``: each seat sees only its own view. Points are ``ENGINE.settle(state, base=1)``: a
小地主 game moves 6 points to or from the landlord and 2 from or to each farmer, a 大地主 game 9
and 3. The bot's time per move is measured in every game it plays.

>>> report = role_duel("sensible", "greedy", deals=2, seed=1)
>>> [row.role for row in report.rows], report.rows[0].games
(['landlord', 'farmers', 'baseline'], 2)
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from games.rules.shanghai import ENGINE, GameState
from games.rules.shanghai.moves import Action
from games.rules.shanghai.simulate import play_phase_start

from .arena import mean_interval, wilson_interval
from .policy import Policy, choose_for
from .shanghai import ShanghaiPolicy, clear_caches

__all__ = [
    "ROLES",
    "cold_lead_times",
    "RoleReport",
    "RoleRow",
    "format_role_report",
    "full_duel",
    "play_game",
    "role_duel",
]

ROLES = ("landlord", "farmers", "baseline")
FULL_ROLES = ("full", "full baseline")
SEATS = 4

PolicyFactory = Callable[[int], Policy[Action]]  # a policy from a seed (random ones use it)


def play_game(
    state: GameState, policies: Sequence[Policy[Action]], *, max_actions: int = 10_000
) -> GameState:
    """Play ``state`` to its end, seat ``s`` acting as ``policies[s]``; the final state."""
    if len(policies) != SEATS:
        raise ValueError("上海斗地主 needs four policies")
    for _ in range(max_actions):
        seat = state.to_move
        if seat is None:
            return state
        state = state.apply(seat, choose_for(state, policies[seat]))
    raise RuntimeError(f"the game did not end within {max_actions} actions")


class _Timed:
    """A policy whose every ``choose`` is timed, in seconds: by the clock into ``times``, in
    the process's CPU time into ``cpu_times`` (what the bot costs, without the waits of a
    busy machine)."""

    def __init__(self, inner: Policy[Action], times: list[float], cpu_times: list[float]) -> None:
        self.inner = inner
        self.name = inner.name
        self.times = times
        self.cpu_times = cpu_times

    def choose(self, state_view: dict[str, Any], legal: Sequence[Action]) -> Action:
        before, cpu_before = time.perf_counter(), time.process_time()
        action = self.inner.choose(state_view, legal)
        self.cpu_times.append(time.process_time() - cpu_before)
        self.times.append(time.perf_counter() - before)
        return action


@dataclasses.dataclass(frozen=True, slots=True)
class RoleRow:
    """One role's figures: the games, the wins of the side measured (the landlord's, the
    farmers', the bot's seat or every seat) with their 95 % Wilson interval, and that side's
    points a game (the landlord's, or the three farmers' together) with their normal 95 %
    interval."""

    role: str
    side: str  # whose wins and points: "landlord", "farmers", "bot" or "seat"
    games: int
    wins: int
    win_ci: tuple[float, float]
    points_mean: float
    points_ci: tuple[float, float]
    bombs: int  # bombs played over the games
    big: int  # games bid at 大地主

    @property
    def win_rate(self) -> float:
        return self.wins / self.games


@dataclasses.dataclass(frozen=True, slots=True)
class RoleReport:
    bot: str
    opponent: str
    seed: int
    rows: tuple[RoleRow, ...]
    times: tuple[float, ...]  # seconds per move of the bot, in the order played
    cpu_times: tuple[float, ...]  # the same moves' CPU seconds

    def row(self, role: str) -> RoleRow:
        return next(row for row in self.rows if row.role == role)


def role_duel(
    bot: str | PolicyFactory, opponent: str | PolicyFactory, *, deals: int, seed: int
) -> RoleReport:
    """Play ``deals`` deals three times each: ``bot`` as the landlord, as the farmers, and
    ``opponent`` alone (see the module's description). ``bot`` and ``opponent`` are 上海斗地主
    policy names (``make_policy(name, game="shanghai")``) or functions from a seed to a policy."""
    if deals <= 0 or seed < 0:
        raise ValueError("deals is positive and the seed non-negative")
    make_bot, make_other = _factory(bot), _factory(opponent)
    times: list[float] = []
    cpu_times: list[float] = []
    ends: dict[str, list[GameState]] = {role: [] for role in ROLES}
    for deal in range(deals):
        start = play_phase_start(seed + deal)
        landlord = start.landlord
        for number, role in enumerate(ROLES):
            base_seed = ((seed * 1_000_003 + deal) * 3 + number) * SEATS
            seats: list[Policy[Action]] = [make_other(base_seed + s) for s in range(SEATS)]
            for s in range(SEATS):
                if (role == "landlord" and s == landlord) or (role == "farmers" and s != landlord):
                    seats[s] = _Timed(make_bot(base_seed + s), times, cpu_times)
            ends[role].append(play_game(start, seats))
    rows = tuple(_role_row(role, ends[role]) for role in ROLES)
    names = make_bot(0).name, make_other(0).name
    return RoleReport(*names, seed, rows, tuple(times), tuple(cpu_times))


def full_duel(
    bot: str | PolicyFactory, opponent: str | PolicyFactory, *, deals: int, seed: int
) -> RoleReport:
    """Whole games from the deal (see the module's description): the bot in each seat in turn,
    then ``opponent`` in all four seats."""
    if deals <= 0 or seed < 0:
        raise ValueError("deals is positive and the seed non-negative")
    make_bot, make_other = _factory(bot), _factory(opponent)
    options = ENGINE.default_options
    times: list[float] = []
    cpu_times: list[float] = []
    games: dict[str, list[tuple[int, GameState]]] = {role: [] for role in FULL_ROLES}
    for deal in range(deals):
        start = ENGINE.deal(seed + deal, players=SEATS, options=options)
        for bot_seat in range(SEATS + 1):  # SEATS: nobody, the baseline
            base_seed = ((seed * 1_000_003 + deal) * (SEATS + 1) + bot_seat) * SEATS
            seats: list[Policy[Action]] = [make_other(base_seed + s) for s in range(SEATS)]
            if bot_seat < SEATS:
                seats[bot_seat] = _Timed(make_bot(base_seed + bot_seat), times, cpu_times)
                games["full"].append((bot_seat, play_game(start, seats)))
            else:
                end = play_game(start, seats)
                games["full baseline"] += [(seat, end) for seat in range(SEATS)]
    rows = tuple(_seat_row(role, games[role]) for role in FULL_ROLES)
    names = make_bot(0).name, make_other(0).name
    return RoleReport(*names, seed, rows, tuple(times), tuple(cpu_times))


def cold_lead_times(deals: int, seed: int) -> tuple[list[float], list[float]]:
    """Seconds the sensible bot takes over the landlord's first lead (33 cards, the most plays
    it ever weighs) of ``play_phase_start(seed + d)``, its remembered hand costs forgotten
    before each, as in a freshly started process: by the clock, and in CPU time."""
    policy = ShanghaiPolicy()
    times = []
    cpu_times = []
    for deal in range(deals):
        state = play_phase_start(seed + deal)
        seat = state.to_move
        assert seat is not None
        view, legal = state.view(seat), state.legal_actions(seat)
        clear_caches()
        before, cpu_before = time.perf_counter(), time.process_time()
        policy.choose(view, legal)
        cpu_times.append(time.process_time() - cpu_before)
        times.append(time.perf_counter() - before)
    return times, cpu_times


def format_times(label: str, seconds: Sequence[float]) -> str:
    """``label``: how many, the median, the 99th percentile and the largest, in milliseconds."""
    ordered = sorted(seconds)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    return (
        f"{label} ({len(ordered):,}): median {ordered[len(ordered) // 2] * 1e3:.3f} ms, "
        f"p99 {p99 * 1e3:.2f} ms, max {ordered[-1] * 1e3:.1f} ms"
    )


def _role_row(role: str, ends: Sequence[GameState]) -> RoleRow:
    side = "farmers" if role == "farmers" else "landlord"
    wins = bombs = big = 0
    points: list[float] = []
    for end in ends:
        settlement = ENGINE.settle(end, base=1)
        landlord_points = settlement.payments[settlement.landlord]
        mine = landlord_points if side == "landlord" else -landlord_points
        wins += mine > 0
        points.append(float(mine))
        bombs += sum(settlement.bombs)
        big += settlement.bid == "big"
    return _row(role, side, wins, points, bombs, big)


def _seat_row(role: str, games: Sequence[tuple[int, GameState]]) -> RoleRow:
    wins = bombs = big = 0
    points: list[float] = []
    for seat, end in games:
        settlement = ENGINE.settle(end, base=1)
        paid = settlement.payments[seat]
        wins += paid > 0
        points.append(float(paid))
        bombs += sum(settlement.bombs)
        big += settlement.bid == "big"
    return _row(role, "bot" if role == "full" else "seat", wins, points, bombs, big)


def _row(role: str, side: str, wins: int, points: list[float], bombs: int, big: int) -> RoleRow:
    mean, low, high = mean_interval(points)
    return RoleRow(
        role=role,
        side=side,
        games=len(points),
        wins=wins,
        win_ci=wilson_interval(wins, len(points)),
        points_mean=mean,
        points_ci=(low, high),
        bombs=bombs,
        big=big,
    )


def _factory(policy: str | PolicyFactory) -> PolicyFactory:
    if not isinstance(policy, str):
        return policy
    from . import make_policy  # the package imports this module

    make_policy(policy, game="shanghai")  # an unknown name fails here, before any game
    return lambda seed: make_policy(policy, seed=seed, game="shanghai")


def format_role_report(report: RoleReport, *, timing: bool = True) -> str:
    """The figures as text, one line a role; the same on every run with the same arguments but
    for the timing line (``timing=False`` leaves it out)."""
    bot, other = report.bot, report.opponent
    games = report.rows[0].games
    who = {
        "landlord": f"{bot} landlord vs 3 {other}",
        "farmers": f"3 {bot} farmers vs {other} landlord",
        "baseline": f"{other} in all four seats",
        "full": f"{bot} in one seat vs 3 {other}",
        "full baseline": f"{other} in all four seats",
    }
    if report.rows[0].role in ROLES:
        what = "the first bidder 小地主, the others 不叫, each deal played once a role"
    else:
        games //= SEATS
        what = "whole games with bidding, the bot in each seat in turn"
    lines = [
        f"{bot} against {other}: {games:,} deals (seeds {report.seed:,} to "
        f"{report.seed + games - 1:,}), {what}; points at base 1",
        f"{'who plays':<46} {'side':<9} {'games':>6} {'wins':>6} {'win rate':>9}  {'95% CI':<16} "
        f"{'points/game':>11}  {'95% CI':<17} {'bombs/game':>10} {'大地主':>6}",
    ]
    for row in report.rows:
        lines.append(
            f"{who[row.role]:<46} {row.side:<9} {row.games:>6,} {row.wins:>6,} "
            f"{row.win_rate:>9.1%}  {_range(row.win_ci):<16} {row.points_mean:>+11.2f}  "
            f"{row.points_ci[0]:+.2f} to {row.points_ci[1]:+.2f} "
            f"{row.bombs / row.games:>10.2f} {row.big / row.games:>7.1%}"
        )
    if timing and report.times:
        lines.append(format_times(f"time per {bot} move, by the clock", report.times))
        lines.append(format_times(f"time per {bot} move, CPU", report.cpu_times))
    return "\n".join(line.rstrip() for line in lines)


def _range(interval: tuple[float, float]) -> str:
    return f"{interval[0]:.1%} to {interval[1]:.1%}"
