"""A brute-force 斗地主 move generator, written from the rules' text and nothing else.

Every sub-multiset of a hand's ranks is read against each kind's definition directly: a core
(single, pair, triple, four, chain of singles, pairs or triples) and what is left over as its
kickers or wings, checked against the rules on kickers. It is slow and obvious, and the engine's
classifier and move generator are checked against it.

Positions: 3 -> 0 ... A -> 11, 2 -> 12, black joker 13, red joker 14.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

ACE, TWO, BLACK, RED = 11, 12, 13, 14

Reading = tuple[str, int, int]  # kind, compared rank, length


def readings(counts: Sequence[int]) -> set[Reading]:
    """Every combination a multiset of ranks can be read as."""
    c = list(counts)
    n = sum(c)
    ranks = [p for p in range(15) if c[p]]
    found: set[Reading] = set()
    if n == 0:
        return found
    if n == 1:
        found.add(("single", ranks[0], 1))
    if c[BLACK] == 1 and c[RED] == 1 and n == 2:
        found.add(("rocket", RED, 1))
    if len(ranks) == 1 and ranks[0] <= TWO:
        kind = {2: "pair", 3: "triple", 4: "bomb"}.get(n)
        if kind:
            found.add((kind, ranks[0], 1))
    for t in range(13):
        if c[t] >= 3:
            rest = c.copy()
            rest[t] -= 3
            left = [p for p in range(15) if rest[p]]
            if sum(rest) == 1 and left[0] != t:
                found.add(("triple_single", t, 1))
            if sum(rest) == 2 and len(left) == 1 and left[0] != t and left[0] <= TWO:
                found.add(("triple_pair", t, 1))
        if c[t] == 4:
            rest = c.copy()
            rest[t] = 0
            kickers = [p for p in range(15) for _ in range(rest[p])]
            if len(kickers) == 2 and kickers != [BLACK, RED]:
                found.add(("four_two_singles", t, 1))
            if len(kickers) == 4:
                pairs = [p for p in range(15) if rest[p] == 2]
                if len(pairs) == 2 and all(p <= TWO for p in pairs):
                    found.add(("four_two_pairs", t, 1))
    for width, kind, shortest in ((1, "straight", 5), (2, "pair_straight", 3), (3, "airplane", 2)):
        consecutive = ranks[-1] <= ACE and ranks[-1] - ranks[0] + 1 == len(ranks)
        if len(ranks) >= shortest and consecutive and all(c[p] == width for p in ranks):
            found.add((kind, ranks[-1], len(ranks)))
    for low in range(ACE + 1):
        for high in range(low + 1, ACE + 1):
            k = high - low + 1
            if any(c[p] < 3 for p in range(low, high + 1)):
                break
            rest = c.copy()
            for p in range(low, high + 1):
                rest[p] -= 3
            if any(rest[p] for p in range(low, high + 1)):
                continue  # a wing of a triple's own rank
            if any(rest[p] >= 4 for p in range(15)) or (rest[BLACK] and rest[RED]):
                continue
            if sum(rest) == k:
                neighbours = [p for p in (low - 1, high + 1) if 0 <= p <= ACE]
                if all(rest[p] != 3 for p in neighbours):
                    found.add(("airplane_singles", high, k))
            if sum(rest) == 2 * k and all(rest[p] in (0, 2) for p in range(15)):
                found.add(("airplane_pairs", high, k))
    return found


def beats(play: Reading, table: Reading) -> bool:
    if play[0] == "rocket":
        return True
    if table[0] == "rocket":
        return False
    if play[0] == "bomb":
        return table[0] != "bomb" or play[1] > table[1]
    return play[0] == table[0] and play[2] == table[2] and play[1] > table[1]


def legal_multisets(
    hand: Sequence[int], table: Sequence[int] | None
) -> dict[tuple[int, ...], Reading]:
    """Every playable sub-multiset of ``hand`` (beating ``table``'s reading when one is given)
    with its reading; a multiset with several readings keeps the first that may be played."""
    out: dict[tuple[int, ...], Reading] = {}
    table_reading = None
    if table is not None:
        table_readings = readings(table)
        assert len(table_readings) == 1, table
        table_reading = next(iter(table_readings))
    for sub in itertools.product(*(range(h + 1) for h in hand)):
        for reading in sorted(readings(sub)):
            if table_reading is None or beats(reading, table_reading):
                out[sub] = reading
                break
    return out
