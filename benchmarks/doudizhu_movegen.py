"""斗地主's move generator against DouZero's, on the same positions, in one run.

DouZero (``douzero==1.1.0``) is not a dependency of the project: install it into a throwaway
virtual environment and run this script with that environment's Python, from the repository
root::

    python3 -m venv /tmp/douzero-venv
    /tmp/douzero-venv/bin/pip install --no-deps douzero==1.1.0
    /tmp/douzero-venv/bin/pip install numpy        # douzero.env imports it
    /tmp/douzero-venv/bin/python benchmarks/doudizhu_movegen.py

Positions are dealt from seeds: a 20-card landlord hand leading, 17-card hands leading, 17-card
hands answering a play drawn from another hand's leads, and the positions of random games of the
play phase in the order they come ("in play": every turn of every seat, leading or answering).
The work timed is the same on both sides: every legal play of a hand from its cards (and,
following, from the play on the table: DouZero reads its type, ours classifies it). Ours is
``legal_plays``, the call ``GameState.legal_moves()`` makes: it finds and lists every play as a
code and makes a play's ``Play`` object only when it is read (see ``movegen``). DouZero's
``GameEnv.get_legal_card_play_actions`` is called on a bare environment holding the hand and the
play to answer. The rules differ a little (DouZero lets the rocket be kickers and wings hold a
bomb; this engine follows the project's rules), so the numbers of plays differ a little too; both
are printed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rules.cards import CARDS, Card, mask_of  # noqa: E402
from games.rules.doudizhu.combos import classify_mask  # noqa: E402
from games.rules.doudizhu.movegen import lead_plays, legal_plays, rank_counts  # noqa: E402
from games.rules.doudizhu.simulate import play_phase_start  # noqa: E402

# DouZero's card values: 3..14 for 3..A, 17 for the 2, 20 and 30 for the jokers.
_DOUZERO_VALUE = [*range(3, 15), 17, 20, 30]

Position = tuple[int, int]  # our hand mask, the table's mask (0: leading)


def douzero_cards(mask: int) -> list[int]:
    counts = rank_counts(mask)
    return sorted(_DOUZERO_VALUE[p] for p in range(15) for _ in range(counts[p]))


def positions(count: int, seed: int) -> dict[str, list[Position]]:
    rng = random.Random(seed)
    groups: dict[str, list[Position]] = {"lead 20": [], "lead 17": [], "follow 17": []}
    while len(groups["follow 17"]) < count:
        deck: list[Card] = list(CARDS)
        rng.shuffle(deck)
        landlord, farmer, other = mask_of(deck[:20]), mask_of(deck[20:37]), mask_of(deck[37:])
        groups["lead 20"].append((landlord, 0))
        groups["lead 17"].append((farmer, 0))
        leads = lead_plays(other)
        groups["follow 17"].append((farmer, leads[rng.randrange(len(leads))].mask))
    groups["in play"] = game_positions(count, seed)
    return groups


def game_positions(count: int, seed: int) -> list[Position]:
    """The positions of random games of the play phase, in the order they come: every hand that
    had to lead or answer, with the play it answered (the same seat's hand changes by one play
    from one of its turns to the next, as in a real game)."""
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


def douzero_runner() -> Callable[[tuple[list[int], list[int]]], int]:
    from douzero.env.game import GameEnv

    env = GameEnv.__new__(GameEnv)
    env.acting_player_position = "landlord"
    info = types.SimpleNamespace(player_hand_cards=[])
    env.info_sets = {"landlord": info}

    def run(position: tuple[list[int], list[int]]) -> int:
        hand, table = position
        info.player_hand_cards = hand
        env.card_play_action_seq = [table] if table else []
        return len(env.get_legal_card_play_actions())

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=1000, help="positions of each kind")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5, help="rounds of fresh positions")
    args = parser.parse_args()
    try:
        douzero = douzero_runner()
    except ImportError:
        sys.exit("DouZero is not installed in this Python: see the instructions at the top")
    perf = time.perf_counter
    # A first round on other positions fills both sides' tables, as in a running server; every
    # round after it deals new positions, so that nothing remembered from one position helps
    # with the same position again. Both sides alternate on each group of each round.
    rounds = [positions(args.positions, args.seed + r) for r in range(args.repeats + 1)]
    best: dict[str, list[float]] = {}
    made: dict[str, list[int]] = {}
    for number, groups in enumerate(rounds):
        for name, group in groups.items():
            converted = [(douzero_cards(h), douzero_cards(t) if t else []) for h, t in group]
            started = perf()
            ours_n = sum(map(ours, group))
            ours_s = perf() - started
            started = perf()
            theirs_n = sum(map(douzero, converted))
            theirs_s = perf() - started
            if number == 0:
                continue
            row = best.setdefault(name, [float("inf"), float("inf")])
            row[0], row[1] = min(row[0], ours_s), min(row[1], theirs_s)
            made.setdefault(name, [0, 0])
            made[name][0] += ours_n
            made[name][1] += theirs_n
    print(f"{args.positions} new positions of each kind a round, fastest of {args.repeats} rounds")
    print(
        f"{'positions':<11} {'ours ms':>9} {'DouZero ms':>11} {'ratio':>6}  "
        "plays over the rounds (ours / DouZero)"
    )
    ratios = []
    total_ours = total_theirs = 0.0
    for name, (ours_s, theirs_s) in best.items():
        ratio = theirs_s / ours_s
        ratios.append(ratio)
        total_ours += ours_s
        total_theirs += theirs_s
        print(
            f"{name:<11} {ours_s * 1e3:9.1f} {theirs_s * 1e3:11.1f} {ratio:5.1f}x"
            f"  {made[name][0]} / {made[name][1]}"
        )
    print(
        f"{'all':<11} {total_ours * 1e3:9.1f} {total_theirs * 1e3:11.1f} "
        f"{total_theirs / total_ours:5.1f}x  (geometric mean of the groups "
        f"{statistics.geometric_mean(ratios):.1f}x)"
    )


if __name__ == "__main__":
    main()
