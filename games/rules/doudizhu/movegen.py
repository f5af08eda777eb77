"""Generating every legal play of a hand, fast, from its rank counts.

A hand is a card bit mask (see ``cards``): the four suits of rank position ``p`` (3 -> 0 ... 2 ->
12) sit in nibble ``p``, the black and red jokers in bits 52 and 53. The generator reads the 15
counts once, and each play's cards are the hand's lowest suits of each rank it uses, one OR per
rank (``_Hand.low``): suits never matter, so each distinct multiset of ranks is made exactly once.

The order is fixed (hints and the timeout depend on it): by kind in ``ComboKind`` order (single,
pair, triple, triple_single, triple_pair, straight, pair_straight, airplane, airplane_singles,
airplane_pairs, four_two_singles, four_two_pairs, bomb, rocket), then by length, then by rank,
then by the kickers' ranks, lowest first. Following a play, only the plays of its kind and length
with a higher rank are made, then the bombs that beat it and the rocket.

>>> from games.rules.cards import format_cards, mask_of, parse_cards
>>> hand = mask_of(parse_cards("3s 3h 3d 4s 4h 4d 5c 9s BJ RJ"))
>>> [format_cards(p.cards) for p in lead_plays(hand) if p.combo.kind is ComboKind.AIRPLANE_SINGLES]
['3s 3h 3d 4s 4h 4d 5c 9s', '3s 3h 3d 4s 4h 4d 5c BJ', '3s 3h 3d 4s 4h 4d 5c RJ', \
'3s 3h 3d 4s 4h 4d 9s BJ', '3s 3h 3d 4s 4h 4d 9s RJ']
"""

from __future__ import annotations

from .combos import ACE, BLACK, RED, ROCKET, Combo, ComboKind
from .moves import Play

__all__ = ["follow_plays", "lead_plays", "rank_counts"]

_new = tuple.__new__

_SINGLE = ComboKind.SINGLE
_PAIR = ComboKind.PAIR
_TRIPLE = ComboKind.TRIPLE
_TRIPLE_SINGLE = ComboKind.TRIPLE_SINGLE
_TRIPLE_PAIR = ComboKind.TRIPLE_PAIR
_STRAIGHT = ComboKind.STRAIGHT
_PAIR_STRAIGHT = ComboKind.PAIR_STRAIGHT
_AIRPLANE = ComboKind.AIRPLANE
_AIRPLANE_SINGLES = ComboKind.AIRPLANE_SINGLES
_AIRPLANE_PAIRS = ComboKind.AIRPLANE_PAIRS
_FOUR_TWO_SINGLES = ComboKind.FOUR_TWO_SINGLES
_FOUR_TWO_PAIRS = ComboKind.FOUR_TWO_PAIRS
_BOMB = ComboKind.BOMB
_ROCKET = ComboKind.ROCKET

# Every combination, made once: (kind, rank, length) -> Combo.
_COMBOS: dict[tuple[ComboKind, int, int], Combo] = {}


def _combo(kind: ComboKind, rank: int, length: int = 1) -> Combo:
    key = (kind, rank, length)
    found = _COMBOS.get(key)
    if found is None:
        found = _COMBOS[key] = Combo(kind, rank, length)
    return found


def _lowest(nibble: int, count: int) -> int:
    out = 0
    for bit in (1, 2, 4, 8):
        if nibble & bit and count:
            out |= bit
            count -= 1
    return out


# For each nibble: its count, and its lowest 0..4 cards.
_POP = [n.bit_count() for n in range(16)]
_LOW = [[_lowest(n, c) for c in range(5)] for n in range(16)]
# A chain's minimum length, by cards per rank.
_MIN_CHAIN = {1: 5, 2: 3, 3: 2}
_CHAIN_KIND = {1: _STRAIGHT, 2: _PAIR_STRAIGHT, 3: _AIRPLANE}


# For each rank position and nibble: that rank's lowest 0..4 cards, as hand masks.
_LOWS = [[[m << (4 * p) for m in _LOW[nibble]] for nibble in range(16)] for p in range(13)]
_SHIFTS = [4 * p for p in range(13)]
_JOKER_LOWS = ([[0], [0, 1 << 52]], [[0], [0, 1 << 53]])


class _Hand:
    """A hand's counts by position, and the masks of each rank's lowest 0..4 cards."""

    __slots__ = ("count", "low")

    def __init__(self, hand: int) -> None:
        nibbles = [(hand >> shift) & 15 for shift in _SHIFTS]
        black, red = (hand >> 52) & 1, (hand >> 53) & 1
        self.count = [*[_POP[n] for n in nibbles], black, red]
        self.low = [
            *[table[n] for table, n in zip(_LOWS, nibbles, strict=True)],
            _JOKER_LOWS[0][black],
            _JOKER_LOWS[1][red],
        ]


def rank_counts(hand: int) -> list[int]:
    """The 15 counts of a hand, by position."""
    return _Hand(hand).count


def lead_plays(hand: int) -> list[Play]:
    """Every distinct play of ``hand`` when leading, in the generator's order."""
    h = _Hand(hand)
    out: list[Play] = []
    _same_rank(out, h, _SINGLE, 1, -1)
    _same_rank(out, h, _PAIR, 2, -1)
    _same_rank(out, h, _TRIPLE, 3, -1)
    _triple_with(out, h, 1, -1)
    _triple_with(out, h, 2, -1)
    for width in (1, 2, 3):
        _chains(out, h, width, 0, -1)
    _airplanes_with(out, h, 1, 0, -1)
    _airplanes_with(out, h, 2, 0, -1)
    _four_with(out, h, 1, -1)
    _four_with(out, h, 2, -1)
    _same_rank(out, h, _BOMB, 4, -1)
    _rocket(out, h)
    return out


def follow_plays(hand: int, table: Combo) -> list[Play]:
    """Every distinct play of ``hand`` that beats ``table``, in the generator's order (no pass)."""
    h = _Hand(hand)
    out: list[Play] = []
    kind = table.kind
    rank = table.rank
    if kind is _ROCKET:
        return out
    if kind is _BOMB:
        _same_rank(out, h, _BOMB, 4, rank)
        _rocket(out, h)
        return out
    if kind is _SINGLE:
        _same_rank(out, h, _SINGLE, 1, rank)
    elif kind is _PAIR:
        _same_rank(out, h, _PAIR, 2, rank)
    elif kind is _TRIPLE:
        _same_rank(out, h, _TRIPLE, 3, rank)
    elif kind is _TRIPLE_SINGLE:
        _triple_with(out, h, 1, rank)
    elif kind is _TRIPLE_PAIR:
        _triple_with(out, h, 2, rank)
    elif kind is _STRAIGHT:
        _chains(out, h, 1, table.length, rank)
    elif kind is _PAIR_STRAIGHT:
        _chains(out, h, 2, table.length, rank)
    elif kind is _AIRPLANE:
        _chains(out, h, 3, table.length, rank)
    elif kind is _AIRPLANE_SINGLES:
        _airplanes_with(out, h, 1, table.length, rank)
    elif kind is _AIRPLANE_PAIRS:
        _airplanes_with(out, h, 2, table.length, rank)
    elif kind is _FOUR_TWO_SINGLES:
        _four_with(out, h, 1, rank)
    elif kind is _FOUR_TWO_PAIRS:
        _four_with(out, h, 2, rank)
    _same_rank(out, h, _BOMB, 4, -1)
    _rocket(out, h)
    return out


def _same_rank(out: list[Play], h: _Hand, kind: ComboKind, width: int, above: int) -> None:
    count, low = h.count, h.low
    top = 15 if width == 1 else 13
    for p in range(above + 1, top):
        if count[p] >= width:
            out.append(_new(Play, (low[p][width], _combo(kind, p))))


def _rocket(out: list[Play], h: _Hand) -> None:
    if h.count[BLACK] and h.count[RED]:
        out.append(_new(Play, (h.low[BLACK][1] | h.low[RED][1], ROCKET)))


def _triple_with(out: list[Play], h: _Hand, width: int, above: int) -> None:
    """Triples with one card (``width`` 1) or a pair (2) of another rank."""
    count, low = h.count, h.low
    kind = _TRIPLE_SINGLE if width == 1 else _TRIPLE_PAIR
    top = 15 if width == 1 else 13
    for t in range(above + 1, 13):
        if count[t] < 3:
            continue
        base = low[t][3]
        combo = _combo(kind, t)
        for k in range(top):
            if k != t and count[k] >= width:
                out.append(_new(Play, (base | low[k][width], combo)))


def _chains(out: list[Play], h: _Hand, width: int, length: int, above: int) -> None:
    """Straights (``width`` 1), pair straights (2) or airplanes without wings (3): every length
    when ``length`` is 0, else that length only, with a highest rank above ``above``."""
    count, low = h.count, h.low
    kind = _CHAIN_KIND[width]
    shortest = _MIN_CHAIN[width]
    # run[p]: how many consecutive positions up to p (inside 3..A) hold ``width`` cards;
    # cards[p]: the cards of the positions before p in the run, so that a window's cards are a
    # difference (the ranks' bits do not overlap).
    run = []
    cards = [0]
    streak = longest = 0
    for p in range(ACE + 1):
        if count[p] >= width:
            streak += 1
            cards.append(cards[p] + low[p][width])
        else:
            streak = 0
            cards.append(0)
        run.append(streak)
        longest = max(longest, streak)
    if longest < max(shortest, length):
        return
    lengths = range(shortest, longest + 1) if not length else (length,)
    for n in lengths:
        for high in range(max(n - 1, above + 1), ACE + 1):
            if run[high] >= n:
                mask = cards[high + 1] - cards[high + 1 - n]
                out.append(_new(Play, (mask, _combo(kind, high, n))))


def _airplanes_with(out: list[Play], h: _Hand, width: int, length: int, above: int) -> None:
    """Airplanes with single wings (``width`` 1) or pair wings (2)."""
    count, low = h.count, h.low
    kind = _AIRPLANE_SINGLES if width == 1 else _AIRPLANE_PAIRS
    run = []
    streak = 0
    for p in range(ACE + 1):
        streak = streak + 1 if count[p] >= 3 else 0
        run.append(streak)
    total = sum(count)
    lengths = range(2, ACE + 2) if not length else (length,)
    for n in lengths:
        if 3 * n + width * n > total:
            break
        for high in range(max(n - 1, above + 1), ACE + 1):
            if run[high] < n:
                continue
            start = high - n + 1
            chain = 0
            for p in range(start, high + 1):
                chain |= low[p][3]
            combo = _combo(kind, high, n)
            if width == 2:
                ranks = [p for p in range(13) if count[p] >= 2 and not start <= p <= high]
                _pair_wings(out, low, ranks, n, 0, chain, combo)
                continue
            # Single wings: at most three of a rank (never four), at most two of a rank next to
            # the chain (three would lengthen it), and never both jokers.
            limits = []
            for p in range(15):
                if start <= p <= high or not count[p]:
                    continue
                most = min(count[p], 3)
                if (p == start - 1 or p == high + 1) and p <= ACE:
                    most = min(most, 2)
                limits.append((p, most))
            _single_wings(out, low, limits, n, 0, chain, combo, False)


def _single_wings(
    out: list[Play],
    low: list[list[int]],
    limits: list[tuple[int, int]],
    left: int,
    index: int,
    mask: int,
    combo: Combo,
    joker: bool,
) -> None:
    if not left:
        out.append(_new(Play, (mask, combo)))
        return
    for i in range(index, len(limits)):
        p, most = limits[i]
        if p >= BLACK:
            if joker:
                continue
            _single_wings(out, low, limits, left - 1, i + 1, mask | low[p][1], combo, True)
            continue
        for take in range(1, min(most, left) + 1):
            _single_wings(out, low, limits, left - take, i + 1, mask | low[p][take], combo, joker)


def _pair_wings(
    out: list[Play],
    low: list[list[int]],
    ranks: list[int],
    left: int,
    index: int,
    mask: int,
    combo: Combo,
) -> None:
    if not left:
        out.append(_new(Play, (mask, combo)))
        return
    for i in range(index, len(ranks) - left + 1):
        _pair_wings(out, low, ranks, left - 1, i + 1, mask | low[ranks[i]][2], combo)


def _four_with(out: list[Play], h: _Hand, width: int, above: int) -> None:
    """Four of a rank with two single cards (``width`` 1; they may be a pair, never the two
    jokers) or two pairs of two other ranks (2)."""
    count, low = h.count, h.low
    for f in range(above + 1, 13):
        if count[f] != 4:
            continue
        base = low[f][4]
        if width == 1:
            combo = _combo(_FOUR_TWO_SINGLES, f)
            ranks = [p for p in range(15) if p != f and count[p]]
            for i, a in enumerate(ranks):
                if count[a] >= 2:
                    out.append(_new(Play, (base | low[a][2], combo)))
                for b in ranks[i + 1 :]:
                    if a != BLACK:
                        out.append(_new(Play, (base | low[a][1] | low[b][1], combo)))
        else:
            combo = _combo(_FOUR_TWO_PAIRS, f)
            ranks = [p for p in range(13) if p != f and count[p] >= 2]
            for i, a in enumerate(ranks):
                for b in ranks[i + 1 :]:
                    out.append(_new(Play, (base | low[a][2] | low[b][2], combo)))
