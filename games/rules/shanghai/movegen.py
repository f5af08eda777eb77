"""Generating every legal play of a hand from its rank counts.

A hand is a card bit mask (``cards``): rank position ``p`` owns byte ``p``. The generator reads
each rank's count at C speed (``bytes.translate`` over the hand's bytes) and makes a play's cards
from the hand's lowest cards of each rank it uses (a table lookup per rank): suits and decks never
matter, so each distinct multiset of ranks is made exactly once. Chains are windows of places
(``A 2 3 ... K A``), each checked against the set of ranks held at least once, twice or three
times with one AND, and its cards are the difference of two running sums of the ranks' lowest
cards along the places (the ranks' bytes never overlap); a 13-rank window is made once, at its
best reading (``2 ... A``).

The order is fixed (hints and the timeout depend on it): by kind in ``ComboKind`` order (single,
pair, triple, full_house, straight, sister_pairs, airplane, airplane_cannons, bomb, joker_bomb),
then by length (a bomb's: its cards), then by rank (a chain's: its top place), then by the rank
of what goes with it (a full house's pair, an airplane's cannons), lowest first. Following, only
the plays of the table's kind and length with a higher rank come, then the bombs that beat it.
``bombs=False`` (a farmer who has played all the bombs the bidding allows) leaves every bomb out.

>>> from .cards import format_mask, parse_mask
>>> [format_mask(p.mask) for p in lead_plays(parse_mask("3s 3h 3d BJ BJ"))]
['3s.1', 'BJ.1', '3s.1 3h.1', 'BJ.1 BJ.2', '3s.1 3h.1 3d.1', '3s.1 3h.1 3d.1 BJ.1 BJ.2']
"""

from __future__ import annotations

from .combos import JOKER_BOMB, Combo, ComboKind, place_positions
from .moves import PASS, Move, Play

__all__ = ["follow_plays", "lead_plays", "legal_plays"]

_new = tuple.__new__
K = ComboKind
_POP = bytes(b.bit_count() for b in range(256))


def _lowest_table() -> tuple[tuple[int, ...], ...]:
    """``[b][k]``: the lowest ``k`` bits set in byte ``b`` (0 when it has fewer)."""
    table = []
    for byte in range(256):
        row = [0]
        mask, rest = 0, byte
        for _ in range(8):
            if rest:
                low = rest & -rest
                mask |= low
                rest ^= low
                row.append(mask)
            else:
                row.append(0)
        table.append(tuple(row))
    return tuple(table)


_LOWEST = _lowest_table()


def _windows() -> dict[int, list[tuple[int, int, int]]]:
    """By length: every chain window as (top place, its rank positions as a bit set, its low
    place), ascending by top place; the 13-rank window once (2 ... A)."""
    out: dict[int, list[tuple[int, int, int]]] = {}
    for length in range(2, 14):
        rows = []
        for low in range(1, 16 - length):
            if length == 13 and low == 1:
                continue  # A ... K: the same ranks as 2 ... A, read at its best
            positions = [place_positions(place) for place in range(low, low + length)]
            rows.append((low + length - 1, sum(1 << p for p in positions), low))
        out[length] = rows
    return out


_WINDOWS = _windows()
_MIN_LENGTH = {1: 5, 2: 3, 3: 2}
_CHAIN_KIND = {1: K.STRAIGHT, 2: K.SISTER_PAIRS, 3: K.AIRPLANE}
#: The combination of each window, by (width, length), in ``_WINDOWS`` order.
_CHAIN_COMBOS = {
    (width, length): [Combo(_CHAIN_KIND[width], top, length) for top, _, _ in rows]
    for width in (1, 2, 3)
    for length, rows in _WINDOWS.items()
}
_CANNON_COMBOS = {
    length: [Combo(K.AIRPLANE_CANNONS, top, length) for top, _, _ in rows]
    for length, rows in _WINDOWS.items()
}
_PLACE_POSITIONS = [0, *(place_positions(place) for place in range(1, 15))]
_COMBOS: dict[tuple[ComboKind, int, int], Combo] = {}


def _combo(kind: ComboKind, rank: int, length: int = 1) -> Combo:
    key = (kind, rank, length)
    found = _COMBOS.get(key)
    if found is None:
        found = _COMBOS[key] = Combo(kind, rank, length)
    return found


class _Hand:
    """What the generator reads of a hand: each rank's byte and count, which ranks (of 3..2)
    are held at least 1, 2 and 3 times, as bit sets of positions, and, once asked for, running
    sums along the places A 2 3 ... K A of each rank's lowest 1, 2 or 3 cards: a window's cards
    are the difference of two of them (the bytes of the ranks are disjoint)."""

    __slots__ = ("at_least", "bytes", "counts", "sums")

    def __init__(self, hand: int) -> None:
        raw = hand.to_bytes(15, "little")
        self.bytes = raw
        self.counts = raw.translate(_POP)
        at_least = [0, 0, 0, 0]
        for p in range(13):
            c = self.counts[p]
            for w in (1, 2, 3):
                if c >= w:
                    at_least[w] |= 1 << p
        self.at_least = at_least
        self.sums: dict[int, list[int]] = {}

    def take(self, position: int, count: int) -> int:
        return _LOWEST[self.bytes[position]][count] << (8 * position)

    def running(self, width: int) -> list[int]:
        """``[place]``: the lowest ``width`` cards of each rank at places 1..place, summed."""
        found = self.sums.get(width)
        if found is None:
            raw = self.bytes
            total = 0
            found = [0]
            for position in _PLACE_POSITIONS[1:]:
                total += _LOWEST[raw[position]][width] << (8 * position)
                found.append(total)
            self.sums[width] = found
        return found


def _same_rank(out: list[Play], h: _Hand, width: int, above: int) -> None:
    kind = (K.SINGLE, K.PAIR, K.TRIPLE)[width - 1]
    counts = h.counts
    for p in range(above + 1, 15):
        if counts[p] >= width:
            out.append(_new(Play, (h.take(p, width), _combo(kind, p))))


def _full_houses(out: list[Play], h: _Hand, above: int) -> None:
    counts = h.counts
    pairs: list[tuple[int, int]] | None = None
    for t in range(above + 1, 13):
        if counts[t] >= 3:
            if pairs is None:
                pairs = [(q, h.take(q, 2)) for q in range(15) if counts[q] >= 2]
            triple = h.take(t, 3)
            combo = _combo(K.FULL_HOUSE, t)
            for q, pair in pairs:
                if q != t:
                    out.append(_new(Play, (triple | pair, combo)))


def _chains(out: list[Play], h: _Hand, width: int, length: int, above: int) -> None:
    have = h.at_least[width]
    combos = _CHAIN_COMBOS[width, length]
    sums: list[int] | None = None
    for index, (top, positions, low) in enumerate(_WINDOWS[length]):
        if top > above and not positions & ~have:
            if sums is None:
                sums = h.running(width)
            out.append(_new(Play, (sums[top] - sums[low - 1], combos[index])))


def _cannons(out: list[Play], h: _Hand, length: int, above: int) -> None:
    pairs = h.at_least[2]
    windows = _WINDOWS[length]
    pair_windows = [(pos, top, low) for top, pos, low in windows if not pos & ~pairs]
    if not pair_windows:
        return
    triples = h.at_least[3]
    combos = _CANNON_COMBOS[length]
    two = h.running(2)
    three: list[int] | None = None
    for index, (top, positions, low) in enumerate(windows):
        if top > above and not positions & ~triples:
            if three is None:
                three = h.running(3)
            airplane = three[top] - three[low - 1]
            combo = combos[index]
            for pair_positions, pair_top, pair_low in pair_windows:
                if not pair_positions & positions:
                    cannons = two[pair_top] - two[pair_low - 1]
                    out.append(_new(Play, (airplane | cannons, combo)))


def _bombs(out: list[Play], h: _Hand, above: tuple[int, int]) -> None:
    counts = h.counts
    for size in range(max(4, above[0]), 9):
        low = above[1] + 1 if size == above[0] else 0
        for p in range(low, 13):
            if counts[p] >= size:
                out.append(_new(Play, (h.take(p, size), _combo(K.BOMB, p, size))))


def _joker_bomb(out: list[Play], h: _Hand) -> None:
    if h.counts[13] == 2 and h.counts[14] == 2:
        out.append(_new(Play, ((h.bytes[13] << 104) | (h.bytes[14] << 112), JOKER_BOMB)))


def _max_length(h: _Hand, width: int) -> int:
    return h.at_least[width].bit_count()


def lead_plays(hand: int, *, bombs: bool = True) -> list[Play]:
    """Every distinct play of ``hand`` when leading, in the generator's order."""
    h = _Hand(hand)
    out: list[Play] = []
    for width in (1, 2, 3):
        _same_rank(out, h, width, -1)
    _full_houses(out, h, -1)
    for width in (1, 2, 3):
        for length in range(_MIN_LENGTH[width], min(13, _max_length(h, width)) + 1):
            _chains(out, h, width, length, 0)
    for length in range(2, min(6, _max_length(h, 3)) + 1):
        _cannons(out, h, length, 0)
    if bombs:
        _bombs(out, h, (0, -1))
        _joker_bomb(out, h)
    return out


def follow_plays(hand: int, table: Combo, *, bombs: bool = True) -> list[Play]:
    """Every distinct play of ``hand`` that beats ``table``, in the generator's order (no
    pass)."""
    h = _Hand(hand)
    out: list[Play] = []
    kind = table.kind
    if kind is K.JOKER_BOMB:
        return out
    if kind is K.SINGLE:
        _same_rank(out, h, 1, table.rank)
    elif kind is K.PAIR:
        _same_rank(out, h, 2, table.rank)
    elif kind is K.TRIPLE:
        _same_rank(out, h, 3, table.rank)
    elif kind is K.FULL_HOUSE:
        _full_houses(out, h, table.rank)
    elif kind is K.AIRPLANE_CANNONS:
        _cannons(out, h, table.length, table.rank)
    elif kind is not K.BOMB:
        width = {K.STRAIGHT: 1, K.SISTER_PAIRS: 2, K.AIRPLANE: 3}[kind]
        _chains(out, h, width, table.length, table.rank)
    if bombs:
        _bombs(out, h, (table.length, table.rank) if kind is K.BOMB else (0, -1))
        _joker_bomb(out, h)
    return out


def legal_plays(hand: int, table: Combo | None, *, bombs: bool = True) -> list[Move]:
    """The legal moves of ``hand``: leading (``table`` None), every play; following, the pass
    first and every play that beats ``table``."""
    if table is None:
        return list(lead_plays(hand, bombs=bombs))
    return [PASS, *follow_plays(hand, table, bombs=bombs)]
