"""The 斗地主 arena: the 斗地主 bot as the landlord and as the farmers, against other policies.

斗地主 is two against one, so the bot is measured in each role apart, on positions where the
roles are fixed: deal ``d`` is ``play_phase_start(seed + d)`` (``games.rules.doudizhu.simulate``:
seat 0 the landlord with the three bottom cards, the bidding and doubling skipped, so the
multiplier starts at 1 and only bombs, the rocket and spring raise it). Each deal is played
three times:

* ``landlord``: the bot as the landlord against two copies of the other policy;
* ``farmers``: two copies of the bot as the farmers against the other policy as the landlord;
* ``baseline``: the other policy in all three seats, the same cards: what the landlord's side
  wins when nobody is better, the figure the other two are read against.

Whole games too, bidding, 抢地主 and 加倍 included (``full_duel``): deal ``d`` is
``ENGINE.deal(seed + d)``, played three times with the bot in seat 0, 1 and 2 and the other
policy in the two other seats (the bot wins a game when its seat is paid), and once more with
the other policy in all three seats (``full baseline``: each seat of each game counts).

A random policy gets its own generator per deal and seat, seeded from the seed, the deal and the
seat, so a run gives the same games, and the same figures, every time. Every action goes through
``choose_for``: each seat sees only its own view. Coins are ``ENGINE.settle(state, base=1)``:
the landlord receives (or pays) twice what each farmer pays (or receives).

>>> report = role_duel("sensible", "greedy", deals=2, seed=1)
>>> [row.role for row in report.rows], report.rows[0].games
(['landlord', 'farmers', 'baseline'], 2)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from games.rules.doudizhu import ENGINE, GameState
from games.rules.doudizhu.moves import Action
from games.rules.doudizhu.simulate import play_phase_start

from .arena import mean_interval, wilson_interval
from .policy import Policy, choose_for

__all__ = [
    "ROLES",
    "RoleReport",
    "RoleRow",
    "format_role_report",
    "full_duel",
    "play_game",
    "role_duel",
]

ROLES = ("landlord", "farmers", "baseline")
FULL_ROLES = ("full", "full baseline")
LANDLORD = 0  # play_phase_start's landlord

PolicyFactory = Callable[[int], Policy[Action]]  # a policy from a seed (random ones use it)


def play_game(
    state: GameState, policies: Sequence[Policy[Action]], *, max_actions: int = 10_000
) -> GameState:
    """Play ``state`` to its end, seat ``s`` acting as ``policies[s]``; the final state."""
    if len(policies) != 3:
        raise ValueError("斗地主 needs three policies")
    for _ in range(max_actions):
        seat = state.to_move
        if seat is None:
            return state
        state = state.apply(seat, choose_for(state, policies[seat]))
    raise RuntimeError(f"the game did not end within {max_actions} actions")


@dataclasses.dataclass(frozen=True, slots=True)
class RoleRow:
    """One role's figures: the games, the landlord's side's wins among them (the farmers' side
    for ``farmers``), with their 95 % Wilson interval, and the coins of that side a game (the
    landlord's, or both farmers' together) with their normal 95 % interval."""

    role: str
    side: str  # whose wins and coins: "landlord", "farmers", "bot" or "seat"
    games: int
    wins: int
    win_ci: tuple[float, float]
    coins_mean: float
    coins_ci: tuple[float, float]
    bombs: int  # bombs and rockets played over the games

    @property
    def win_rate(self) -> float:
        return self.wins / self.games


@dataclasses.dataclass(frozen=True, slots=True)
class RoleReport:
    bot: str
    opponent: str
    seed: int
    rows: tuple[RoleRow, ...]

    def row(self, role: str) -> RoleRow:
        return next(row for row in self.rows if row.role == role)


def role_duel(
    bot: str | PolicyFactory, opponent: str | PolicyFactory, *, deals: int, seed: int
) -> RoleReport:
    """Play ``deals`` deals three times each, ``bot`` as the landlord, as the farmers, and
    ``opponent`` alone (see the module's description). ``bot`` and ``opponent`` are 斗地主
    policy names (``make_policy(name, game="doudizhu")``) or functions from a seed to a policy."""
    if deals <= 0 or seed < 0:
        raise ValueError("deals is positive and the seed non-negative")
    make_bot, make_other = _factory(bot), _factory(opponent)
    ends: dict[str, list[GameState]] = {role: [] for role in ROLES}
    for deal in range(deals):
        start = play_phase_start(seed + deal)
        for number, role in enumerate(ROLES):
            base_seed = ((seed * 1_000_003 + deal) * 3 + number) * 3
            seats = [make_other(base_seed + seat) for seat in range(3)]
            if role == "landlord":
                seats[LANDLORD] = make_bot(base_seed + LANDLORD)
            elif role == "farmers":
                for farmer in (1, 2):
                    seats[farmer] = make_bot(base_seed + farmer)
            ends[role].append(play_game(start, seats))
    bot_name = make_bot(0).name
    other_name = make_other(0).name
    rows = tuple(_row(role, ends[role]) for role in ROLES)
    return RoleReport(bot=bot_name, opponent=other_name, seed=seed, rows=rows)


def full_duel(
    bot: str | PolicyFactory, opponent: str | PolicyFactory, *, deals: int, seed: int
) -> RoleReport:
    """Whole games from the deal (see the module's description): the bot in each seat in turn,
    then ``opponent`` in all three seats."""
    if deals <= 0 or seed < 0:
        raise ValueError("deals is positive and the seed non-negative")
    make_bot, make_other = _factory(bot), _factory(opponent)
    options = ENGINE.default_options
    games: dict[str, list[tuple[int, GameState]]] = {role: [] for role in FULL_ROLES}
    for deal in range(deals):
        start = ENGINE.deal(seed + deal, players=3, options=options)
        for bot_seat in range(4):  # 3: nobody, the baseline
            base_seed = ((seed * 1_000_003 + deal) * 4 + bot_seat) * 3
            seats = [make_other(base_seed + seat) for seat in range(3)]
            if bot_seat < 3:
                seats[bot_seat] = make_bot(base_seed + bot_seat)
                games["full"].append((bot_seat, play_game(start, seats)))
            else:
                end = play_game(start, seats)
                games["full baseline"] += [(seat, end) for seat in range(3)]
    rows = tuple(_seat_row(role, games[role]) for role in FULL_ROLES)
    return RoleReport(bot=make_bot(0).name, opponent=make_other(0).name, seed=seed, rows=rows)


def _seat_row(role: str, games: Sequence[tuple[int, GameState]]) -> RoleRow:
    wins = 0
    coins: list[float] = []
    bombs = 0
    for seat, end in games:
        paid = ENGINE.settle(end, base=1).payments[seat]
        wins += paid > 0
        coins.append(float(paid))
        bombs += end.bombs
    mean, low, high = mean_interval(coins)
    return RoleRow(
        role=role,
        side="bot" if role == "full" else "seat",
        games=len(games),
        wins=wins,
        win_ci=wilson_interval(wins, len(games)),
        coins_mean=mean,
        coins_ci=(low, high),
        bombs=bombs,
    )


def _row(role: str, ends: Sequence[GameState]) -> RoleRow:
    side = "farmers" if role == "farmers" else "landlord"
    wins = 0
    coins: list[float] = []
    bombs = 0
    for end in ends:
        payments = ENGINE.settle(end, base=1).payments
        landlord_coins = payments[LANDLORD]
        mine = landlord_coins if side == "landlord" else -landlord_coins
        wins += mine > 0
        coins.append(float(mine))
        bombs += end.bombs
    mean, low, high = mean_interval(coins)
    return RoleRow(
        role=role,
        side=side,
        games=len(ends),
        wins=wins,
        win_ci=wilson_interval(wins, len(ends)),
        coins_mean=mean,
        coins_ci=(low, high),
        bombs=bombs,
    )


def _factory(policy: str | PolicyFactory) -> PolicyFactory:
    if not isinstance(policy, str):
        return policy
    from . import make_policy  # the package imports this module

    make_policy(policy, game="doudizhu")  # an unknown name fails here, before any game
    return lambda seed: make_policy(policy, seed=seed, game="doudizhu")


def format_role_report(report: RoleReport) -> str:
    """The figures as text, one line a role; the same on every run with the same arguments."""
    bot, other = report.bot, report.opponent
    games = report.rows[0].games
    who = {
        "landlord": f"{bot} landlord vs 2 {other}",
        "farmers": f"2 {bot} farmers vs {other} landlord",
        "baseline": f"{other} in all three seats",
        "full": f"{bot} in one seat vs 2 {other}",
        "full baseline": f"{other} in all three seats",
    }
    if report.rows[0].role in ROLES:
        what = (
            "seat 0 the landlord with the bottom cards, bidding skipped, "
            "each deal played once a role"
        )
    else:
        games //= 3
        what = "whole games with bidding and 加倍, the bot in each seat in turn"
    lines = [
        f"{bot} against {other}: {games:,} deals (seeds {report.seed:,} to "
        f"{report.seed + games - 1:,}), {what}; coins at base 1",
        f"{'who plays':<46} {'side':<9} {'games':>6} {'wins':>6} {'win rate':>9}  {'95% CI':<16} "
        f"{'coins/game':>10}  {'95% CI':<17} {'bombs/game':>10}",
    ]
    for row in report.rows:
        lines.append(
            f"{who[row.role]:<46} {row.side:<9} {row.games:>6,} {row.wins:>6,} "
            f"{row.win_rate:>9.1%}  "
            f"{_range(row.win_ci):<16} {row.coins_mean:>+10.2f}  "
            f"{row.coins_ci[0]:+.2f} to {row.coins_ci[1]:+.2f} {row.bombs / row.games:>10.2f}"
        )
    return "\n".join(line.rstrip() for line in lines)


def _range(interval: tuple[float, float]) -> str:
    return f"{interval[0]:.1%} to {interval[1]:.1%}"
