"""Measure the bots from the command line.

``python -m games.bots arena [--games 3000] [--seed 1] [--against random greedy]``
    plays the sensible bot (or ``--bot``) against two copies of each ``--against`` policy over
    seeded deals, each deal once with the bot in every seat, and prints each side's win rate and
    average coins per game with 95 % confidence intervals, the figures of a policy of equal
    strength, and the bot's time per move (see ``games.bots.arena``). Everything but the timing
    lines is the same on every run with the same arguments; ``--no-timing`` leaves them out.

``python -m games.bots arena --bot search --iterations 40 --against sensible sensible-alt``
    the search bot (``games.bots.search``) with at most 40 playouts a move and no time limit, so
    that its figures are the same on every run (``--budget-ms`` adds a time limit); the 干瞪眼
    policies are ``random``, ``greedy``, ``greedy-plus``, ``sensible``, ``sensible-alt`` and
    ``search``.

``python -m games.bots arena --game doudizhu [--games 1500] [--seed 1] [--against random greedy]``
    the 斗地主 bot: as the landlord, as the farmers and, for comparison, the other policy in
    every seat, over ``--games / 3`` deals with the roles fixed; then whole games with bidding,
    the bot in each seat in turn (see ``games.bots.doudizhu_arena``).

``python -m games.bots arena --game shanghai [--games 600] [--seed 1] [--against random greedy]``
    the 上海斗地主 bot likewise: as the landlord, as the three farmers and the other policy in
    every seat, over ``--games / 3`` deals with the roles fixed; then whole games with bidding,
    the bot in each of the four seats in turn, with its time per move, and last its time over
    the landlord's first lead, the largest choice, with nothing remembered (see
    ``games.bots.shanghai_arena``; ``--no-timing`` leaves the timing lines out).

``python -m games.bots arena --game doudizhu --bot search --iterations 30 --roles-only``
    the 斗地主 search bot (``games.bots.doudizhu_search``; ``--game shanghai`` for
    ``games.bots.shanghai_search``) with at most 30 playouts a move and no time limit, as the
    landlord and as the farmers only (``--roles-only`` leaves out the whole games, which take as
    long again).

``python -m games.bots speed --game doudizhu [--games 20] [--seed 1] [--budget-ms 120]``
    times the 斗地主 (or ``--game shanghai``) search bot's moves under its time budget: in every
    seat in turn against the sensible bot, from the first lead of each deal.

``python -m games.bots speed [--games 200] [--seed 1]``
    times ``SensiblePolicy.choose`` alone: over every move of whole games against greedy bots,
    then on leads with 10- and 20-card hands (its work grows with the hand) and on the hardest
    20-card hand found, each time with its tables emptied first, as in a fresh process.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from games.rules.cards import CARDS, parse_cards
from games.rules.doudizhu.simulate import play_phase_start as doudizhu_start
from games.rules.gandengyan import GameState
from games.rules.gandengyan.simulate import lead_positions
from games.rules.shanghai.simulate import play_phase_start as shanghai_start

from . import (
    GAMES,
    GANDENGYAN_NAMES,
    LORD_NAMES,
    DoudizhuPolicy,
    GreedyPolicy,
    SensiblePolicy,
    ShanghaiPolicy,
    choose_for,
    make_doudizhu_search,
    make_policy,
    make_shanghai_search,
)
from .arena import PolicyFactory, duel, format_report
from .determinized import DEFAULT_BUDGET_MS
from .doudizhu_arena import format_role_report, full_duel, role_duel
from .sensible import clear_caches
from .shanghai_arena import cold_lead_times, format_times
from .shanghai_arena import format_role_report as format_shanghai_report
from .shanghai_arena import full_duel as shanghai_full_duel
from .shanghai_arena import role_duel as shanghai_role_duel

#: The slowest lead found by searching 20-card hands (a joker among long runs of pairs and
#: threes: hundreds of plays, each leaving a hand to split again).
HARDEST_HAND = "4s 4h 4c 5s 5d 5c 6h 6d 7s 7c 8d 8c 9s 9h Ts Td Js Qh Ac BJ"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m games.bots",
        description="Measure the bots: their strength (arena) and their speed (speed).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    arena = commands.add_parser(
        "arena",
        help="a bot against two copies of another policy: win rates and coins with 95%% CIs",
        description=(
            "Play --bot against two copies of each --against policy. Deal d is "
            "GameState.deal(seed + d); each deal is played three times, with the bot in each "
            "seat. Coins are settle(state, base=--base)."
        ),
    )
    arena.add_argument("--games", type=int, default=3000, help="a multiple of 3 (default 3000)")
    arena.add_argument("--seed", type=int, default=1, help="the first deal's seed (default 1)")
    arena.add_argument("--bot", choices=GANDENGYAN_NAMES, default="sensible")
    arena.add_argument(
        "--against",
        choices=GANDENGYAN_NAMES,
        nargs="+",
        default=["random", "greedy"],
        metavar="NAME",
    )
    arena.add_argument(
        "--iterations", type=int, default=None, help="the search bot's playouts per move"
    )
    arena.add_argument(
        "--budget-ms",
        type=float,
        default=None,
        help="the search bot's time per move (default: none, the iteration cap alone decides)",
    )
    arena.add_argument("--base", type=int, default=1, help="the stake per unit (default 1)")
    arena.add_argument("--no-timing", action="store_true", help="leave out the timing lines")
    arena.add_argument(
        "--roles-only",
        action="store_true",
        help="斗地主 and 上海斗地主: the landlord and farmers roles only, no whole games",
    )
    arena.add_argument(
        "--game", choices=GAMES, default="gandengyan", help="the game (default gandengyan)"
    )
    speed = commands.add_parser(
        "speed",
        help="how long the sensible bot (干瞪眼) or the search bot (斗地主, 上海斗地主) takes",
    )
    speed.add_argument("--games", type=int, default=None)
    speed.add_argument("--seed", type=int, default=1)
    speed.add_argument(
        "--game", choices=GAMES, default="gandengyan", help="the game (default gandengyan)"
    )
    speed.add_argument(
        "--budget-ms",
        type=float,
        default=DEFAULT_BUDGET_MS,
        help="the search bot's time per move (default 120)",
    )
    args = parser.parse_args(argv)
    if args.command == "arena":
        if args.games <= 0 or args.games % 3:
            parser.error("--games must be a positive multiple of 3: each deal is played 3 times")
        if args.iterations is not None and args.iterations < 1:
            parser.error("--iterations must be at least 1")
        if args.game != "gandengyan" and args.bot not in LORD_NAMES:
            parser.error(f"--bot for {args.game} is one of {', '.join(LORD_NAMES)}")
        bot = _search_factory(args.bot, args.iterations, args.budget_ms, args.game)
        if args.game == "doudizhu":
            _doudizhu_arena(bot, args.against, args.games // 3, args.seed, args.roles_only)
        elif args.game == "shanghai":
            _shanghai_arena(
                bot, args.against, args.games // 3, args.seed, not args.no_timing, args.roles_only
            )
        else:
            _arena(
                bot,
                args.against,
                args.games,
                args.seed,
                args.base,
                not args.no_timing,
            )
    elif args.game == "gandengyan":
        _speed(200 if args.games is None else args.games, args.seed)
    else:
        _search_speed(
            args.game, 20 if args.games is None else args.games, args.seed, args.budget_ms
        )


def _search_factory(
    name: str, iterations: int | None, budget_ms: float | None, game: str = "gandengyan"
) -> str | Callable[[int], Any]:
    """The search bot with these settings (its name alone for any other bot)."""
    if name != "search":
        return name
    if game == "doudizhu":
        return lambda seed: make_policy(
            "search", seed=seed, game="doudizhu", budget_ms=budget_ms, iterations=iterations
        )
    if game == "shanghai":
        return lambda seed: make_policy(
            "search", seed=seed, game="shanghai", budget_ms=budget_ms, iterations=iterations
        )
    return lambda seed: make_policy("search", seed=seed, budget_ms=budget_ms, iterations=iterations)


def _arena(
    bot: str | PolicyFactory,
    against: Sequence[str],
    games: int,
    seed: int,
    base: int,
    timing: bool,
) -> None:
    for number, opponent in enumerate(against):
        if number:
            print()
        started = time.perf_counter()
        report = duel(bot, opponent, games=games, seed=seed, base=base)
        print(format_report(report, timing=timing))
        if timing:
            print(f"played in {time.perf_counter() - started:.0f} s")
        sys.stdout.flush()


def _doudizhu_arena(
    bot: str | Callable[[int], Any],
    against: Sequence[str],
    deals: int,
    seed: int,
    roles_only: bool = False,
) -> None:
    for number, opponent in enumerate(against):
        for duel_of in (role_duel,) if roles_only else (role_duel, full_duel):
            if number or duel_of is full_duel:
                print()
            print(format_role_report(duel_of(bot, opponent, deals=deals, seed=seed)))
            sys.stdout.flush()


def _shanghai_arena(
    bot: str | Callable[[int], Any],
    against: Sequence[str],
    deals: int,
    seed: int,
    timing: bool,
    roles_only: bool = False,
) -> None:
    duels = (shanghai_role_duel,) if roles_only else (shanghai_role_duel, shanghai_full_duel)
    for number, opponent in enumerate(against):
        for duel_of in duels:
            if number or duel_of is shanghai_full_duel:
                print()
            started = time.perf_counter()
            report = duel_of(bot, opponent, deals=deals, seed=seed)
            print(format_shanghai_report(report, timing=timing))
            if timing:
                print(f"played in {time.perf_counter() - started:.0f} s")
            sys.stdout.flush()
    if timing and isinstance(bot, str):
        print()
        wall, cpu = cold_lead_times(deals, seed)
        print(format_times("first leads, 33 cards, cold, by the clock", wall))
        print(format_times("first leads, 33 cards, cold, CPU", cpu))


def _search_speed(game: str, deals: int, seed: int, budget_ms: float) -> None:
    """Time the search bot's moves under ``budget_ms``: over ``deals`` deals from their first
    lead, the bot in each seat in turn against the sensible bot in the others."""
    seats = 3 if game == "doudizhu" else 4
    start_of: Callable[[int], Any] = doudizhu_start if game == "doudizhu" else shanghai_start
    make_search: Callable[..., Any] = (
        make_doudizhu_search if game == "doudizhu" else make_shanghai_search
    )
    make_sensible: Callable[[], Any] = DoudizhuPolicy if game == "doudizhu" else ShanghaiPolicy
    wall: list[float] = []
    cpu: list[float] = []
    playouts: list[int] = []
    for deal in range(deals):
        for bot_seat in range(seats):
            state = start_of(seed + deal)
            bot = make_search(seed + deal, budget_ms=budget_ms)
            other = make_sensible()
            while (seat := state.to_move) is not None:
                if seat != bot_seat:
                    state = state.apply(seat, choose_for(state, other))
                    continue
                view, legal = state.view(seat), tuple(state.legal_actions(seat))
                before, cpu_before = time.perf_counter(), time.process_time()
                action = bot.choose(view, legal)
                cpu.append(time.process_time() - cpu_before)
                wall.append(time.perf_counter() - before)
                playouts.append(bot.last_playouts)
                state = state.apply(seat, action)
    searched = sorted(p for p in playouts if p)
    print(
        f"{game} search bot, budget {budget_ms:g} ms, {deals} deals (seeds {seed} to "
        f"{seed + deals - 1}), the bot in each seat in turn against the sensible bot"
    )
    for label, seconds in (("by the clock", wall), ("CPU", cpu)):
        ordered = sorted(seconds)
        p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
        print(
            f"time per move, {label:12} n {len(ordered):6,}  median "
            f"{statistics.median(ordered) * 1e3:7.2f} ms  p99 {p99 * 1e3:7.2f} ms  "
            f"max {ordered[-1] * 1e3:7.2f} ms"
        )
    if searched:
        print(
            f"moves searched {len(searched):,} of {len(playouts):,}; playouts a searched move: "
            f"median {statistics.median(searched):g}, min {searched[0]}, max {searched[-1]}"
        )


def _speed(games: int, seed: int) -> None:
    policy = SensiblePolicy()
    rows: list[tuple[str, list[float]]] = []
    clear_caches()
    choose: list[float] = []
    for game in range(games):
        for bot_seat in range(3):
            choose += _game_times(GameState.deal(seed + game), bot_seat)
    rows.append((f"every move, {games * 3} games vs greedy", choose))
    for size in (10, 20):
        positions = lead_positions(300, seed, size)
        rows.append((f"leads, {size}-card hands, cold", _cold_times(policy, positions)))
    used = set(parse_cards(HARDEST_HAND))
    rest = [card for card in CARDS if card not in used]
    hardest = GameState.from_position(
        [HARDEST_HAND, rest[:5], rest[5:10]], stock=rest[10:], dealer=0
    )
    rows.append(("the hardest lead found, cold", _cold_times(policy, [hardest] * 20)))
    for label, seconds in rows:
        ordered = sorted(seconds)
        p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
        print(
            f"{label:36} n {len(ordered):6,}  median {statistics.median(ordered) * 1e3:7.3f} ms  "
            f"p99 {p99 * 1e3:6.2f} ms  max {ordered[-1] * 1e3:6.2f} ms"
        )


def _game_times(state: GameState, bot_seat: int) -> list[float]:
    """Seconds per ``choose`` of a sensible bot in ``bot_seat`` against two greedy bots."""
    policy, greedy = SensiblePolicy(), GreedyPolicy()
    perf = time.perf_counter
    times = []
    while (seat := state.to_move) is not None:
        if seat == bot_seat:
            view, legal = state.view_for(bot_seat), state.legal_moves()
            before = perf()
            move = policy.choose(view, legal)
            times.append(perf() - before)
        else:
            move = choose_for(state, greedy)
        state = state.apply(seat, move)
    return times


def _cold_times(policy: SensiblePolicy, positions: Sequence[GameState]) -> list[float]:
    """Seconds per ``choose`` in each position, with the bot's tables emptied before each."""
    perf: Callable[[], float] = time.perf_counter
    times = []
    for state in positions:
        seat = state.to_move
        assert seat is not None
        view, legal = state.view_for(seat), state.legal_moves()
        clear_caches()
        before = perf()
        policy.choose(view, legal)
        times.append(perf() - before)
    return times


if __name__ == "__main__":
    main()
