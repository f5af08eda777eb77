"""A brute-force reading of 上海斗地主's combinations, written from the rules (§10, §13) and not
from the engine: every combination is listed by its definition, as a multiset of ranks with
every reading it has, and a hand's plays are found by trying every sub-multiset of its ranks."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

SYMBOLS = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "BJ", "RJ")
# The chain order A 2 3 ... K A as rank indexes into SYMBOLS, place 1 to 14.
CHAIN = (11, 12, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)

Key = tuple[int, ...]  # 15 counts
Reading = tuple[str, int, int]  # kind, rank (index or top place), length


def _key(ranks: dict[int, int]) -> Key:
    counts = [0] * 15
    for rank, count in ranks.items():
        counts[rank] += count
    return tuple(counts)


def _runs(length: int) -> Iterator[tuple[int, list[int]]]:
    """Every run of ``length`` consecutive places: (top place, rank indexes); a run never uses
    the A twice."""
    for low in range(1, 16 - length):
        ranks = [CHAIN[place - 1] for place in range(low, low + length)]
        if len(set(ranks)) == length:
            yield low + length - 1, ranks


def all_readings() -> dict[Key, set[Reading]]:
    """Every combination of the game, with every reading of it."""
    table: dict[Key, set[Reading]] = {}

    def add(ranks: dict[int, int], reading: Reading) -> None:
        table.setdefault(_key(ranks), set()).add(reading)

    for r in range(15):
        add({r: 1}, ("single", r, 1))
        add({r: 2}, ("pair", r, 1))  # two jokers of a colour are a pair
    for r in range(13):
        add({r: 3}, ("triple", r, 1))
        for q in range(15):
            if q != r:
                add({r: 3, q: 2}, ("full_house", r, 1))
        for n in range(4, 9):
            add({r: n}, ("bomb", r, n))
    add({13: 2, 14: 2}, ("joker_bomb", 14, 1))
    for width, kind, least in ((1, "straight", 5), (2, "sister_pairs", 3), (3, "airplane", 2)):
        for length in range(least, 14):
            for top, ranks in _runs(length):
                add(dict.fromkeys(ranks, width), (kind, top, length))
    for k in range(2, 7):
        for top, triples in _runs(k):
            for _, pairs in _runs(k):
                if not set(triples) & set(pairs):
                    add(
                        {**dict.fromkeys(triples, 3), **dict.fromkeys(pairs, 2)},
                        ("airplane_cannons", top, k),
                    )
    return table


READINGS = all_readings()


def best(key: Key) -> Reading | None:
    """The reading a multiset counts at: the highest (a 13-rank chain reads two ways)."""
    found = READINGS.get(key)
    return None if not found else max(found, key=lambda r: r[1])


def beats(play: Reading, table: Reading) -> bool:
    if play[0] == "joker_bomb":
        return table[0] != "joker_bomb"
    if table[0] == "joker_bomb":
        return False
    if play[0] == "bomb":
        return table[0] != "bomb" or (play[2], play[1]) > (table[2], table[1])
    return play[0] == table[0] and play[2] == table[2] and play[1] > table[1]


def sub_multisets(counts: Sequence[int]) -> Iterator[Key]:
    for key in itertools.product(*(range(c + 1) for c in counts)):
        if any(key):
            yield key


def legal_multisets(counts: Sequence[int], table: Key | None, bombs: bool = True) -> set[Key]:
    """Every multiset of ranks the hand may play: leading (``table`` None) or beating
    ``table``; ``bombs`` False leaves the bombs out."""
    out = set()
    on_table = None if table is None else best(table)
    for key in sub_multisets(counts):
        reading = best(key)
        if reading is None:
            continue
        if not bombs and reading[0] in ("bomb", "joker_bomb"):
            continue
        if on_table is None or beats(reading, on_table):
            out.add(key)
    return out
