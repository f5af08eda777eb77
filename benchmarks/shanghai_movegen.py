"""上海斗地主's move generator against a scan of every combination of the game, in one run.

There is no published 上海斗地主 engine to race, so the reference is the plainest correct one: the
tests' brute-force reading of the rules (``tests/games/rules/shanghai/oracle.py``) lists every
combination of the game once, as a multiset of ranks with its reading (about 2,700 of them), and
a hand's plays are the combinations it holds (each multiset's counts within the hand's) that lead,
or beat the table. Run from the repository root::

    .venv/bin/python benchmarks/shanghai_movegen.py --positions 1000 --repeats 5

Positions are dealt from seeds: a 33-card landlord hand leading, 25-card hands leading, 25-card
hands answering a play drawn from another hand's leads, and the positions of random games of the
play phase in the order they come ("in play": every turn of every seat, leading or answering).
Ours is ``legal_plays``, the call ``GameState.legal_moves()`` makes, which makes every ``Play``;
the scan makes no play object, only finds the multisets. Both sides must find the same number of
plays, which the script checks.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rules.shanghai.cards import CARDS, Card, mask_of  # noqa: E402
from games.rules.shanghai.combos import classify_mask, counts_of_mask  # noqa: E402
from games.rules.shanghai.movegen import lead_plays, legal_plays  # noqa: E402
from games.rules.shanghai.simulate import play_phase_start  # noqa: E402
from tests.games.rules.shanghai.oracle import READINGS, Reading, beats, best  # noqa: E402

Position = tuple[int, int]  # a hand mask, the table's mask (0: leading)
_ALL: list[tuple[tuple[int, ...], Reading]] = []


def _table() -> list[tuple[tuple[int, ...], Reading]]:
    if not _ALL:
        for key in READINGS:
            reading = best(key)
            assert reading is not None
            _ALL.append((key, reading))
    return _ALL


def positions(count: int, seed: int) -> dict[str, list[Position]]:
    rng = random.Random(seed)
    groups: dict[str, list[Position]] = {"lead 33": [], "lead 25": [], "follow 25": []}
    while len(groups["follow 25"]) < count:
        deck: list[Card] = list(CARDS)
        rng.shuffle(deck)
        landlord, farmer, other = mask_of(deck[:33]), mask_of(deck[33:58]), mask_of(deck[58:83])
        groups["lead 33"].append((landlord, 0))
        groups["lead 25"].append((farmer, 0))
        leads = lead_plays(other)
        groups["follow 25"].append((farmer, leads[rng.randrange(len(leads))].mask))
    groups["in play"] = game_positions(count, seed)
    return groups


def game_positions(count: int, seed: int) -> list[Position]:
    """Every turn of random games of the play phase, with the play it answered."""
    rng = random.Random(seed)
    found: list[Position] = []
    game = 0
    while len(found) < count:
        state = play_phase_start(seed * 100_000 + game)
        game += 1
        while (seat := state.to_move) is not None and len(found) < count:
            table = state.table
            found.append((state.hands[seat], 0 if table is None else table.play.mask))
            moves = state.legal_moves()
            state = state.apply(seat, moves[rng.randrange(len(moves))])
    return found


def ours(position: Position) -> int:
    hand, table = position
    if not table:
        return len(legal_plays(hand, None))
    combo = classify_mask(table)
    assert combo is not None
    return len(legal_plays(hand, combo))  # the pass first


def scan(position: Position) -> int:
    hand, table = position
    counts = counts_of_mask(hand)
    on_table = best(tuple(counts_of_mask(table))) if table else None
    found = 0 if on_table is None else 1  # the pass
    for key, reading in _table():
        if all(k <= c for k, c in zip(key, counts, strict=True)) and (
            on_table is None or beats(reading, on_table)
        ):
            found += 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--positions", type=int, default=1000, help="positions of each kind")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5, help="rounds of fresh positions")
    args = parser.parse_args()
    perf = time.perf_counter
    _table()
    # A first round fills the tables, as in a running server; every later round deals new
    # positions. Both sides alternate on each group of each round; each side's fastest is kept.
    rounds = [positions(args.positions, args.seed + r) for r in range(args.repeats + 1)]
    best_s: dict[str, list[float]] = {}
    made: dict[str, int] = {}
    for number, groups in enumerate(rounds):
        for name, group in groups.items():
            started = perf()
            ours_n = sum(map(ours, group))
            ours_s = perf() - started
            started = perf()
            scan_n = sum(map(scan, group))
            scan_s = perf() - started
            if ours_n != scan_n:
                sys.exit(f"{name}: the generator made {ours_n} moves, the scan {scan_n}")
            if number == 0:
                continue
            row = best_s.setdefault(name, [float("inf"), float("inf")])
            row[0], row[1] = min(row[0], ours_s), min(row[1], scan_s)
            made[name] = made.get(name, 0) + ours_n
    print(f"{args.positions} new positions of each kind a round, fastest of {args.repeats} rounds")
    print(f"{'positions':<11} {'ours ms':>9} {'scan ms':>9} {'ratio':>6}  moves a position")
    ratios = []
    for name, (ours_s, scan_s) in best_s.items():
        ratios.append(scan_s / ours_s)
        per = made[name] / (args.positions * args.repeats)
        ms = f"{ours_s * 1e3:9.1f} {scan_s * 1e3:9.1f}"
        print(f"{name:<11} {ms} {scan_s / ours_s:5.1f}x  {per:.1f}")
    print(f"geometric mean of the ratios {statistics.geometric_mean(ratios):.1f}x")


if __name__ == "__main__":
    main()
