"""Generating every legal play of a hand, fast, from its rank counts.

A hand is a card bit mask (see ``cards``): the four suits of rank position ``p`` (3 -> 0 ... 2 ->
12) sit in nibble ``p``, the black and red jokers in bits 52 and 53. The generator reads, at C
speed (``bytes.translate`` over the hand's bytes), which ranks hold at least 1, 2, 3 and 4 cards
and each rank's lowest 1, 2 and 3 cards (``_Hand``); a play's cards are the hand's lowest suits of
each rank it uses, an AND and an OR per rank: suits never matter, so each distinct multiset of
ranks is made exactly once. Chains are looked up by the set of ranks that can form them, and the
ways to choose an airplane's single wings by what each rank can give.

A play is made as a *code*, one ``int``: its card mask in bits 0-53 and the number of its
combination (in ``COMBOS``) above, an OR away from its cards. ``legal_plays`` wraps the codes in
``Moves``, the read-only sequence ``GameState.legal_moves()`` returns, which makes each ``Play``
when it is read (``decode``): building the plays as objects cost more than finding them.

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

from collections.abc import Callable, Iterator, Sequence
from itertools import chain, combinations
from typing import overload

from .combos import ACE, BLACK, RED, ROCKET, Combo, ComboKind, packed_counts, unpack
from .moves import PASS, Move, Play

__all__ = [
    "Moves",
    "decode",
    "encode",
    "follow_codes",
    "follow_plays",
    "lead_codes",
    "lead_plays",
    "legal_plays",
    "rank_counts",
]

_new = tuple.__new__
K = ComboKind

# A play's code: its card mask in bits 0..53, the number of its combination in ``COMBOS`` above.
_CARDS = (1 << 54) - 1
COMBOS: list[Combo] = []
_CODES: dict[Combo, int] = {}


def _code(combo: Combo) -> int:
    """The high bits of the codes of ``combo``'s plays (numbering it on first sight)."""
    found = _CODES.get(combo)
    if found is None:
        found = _CODES[combo] = len(COMBOS) << 54
        COMBOS.append(combo)
    return found


def decode(code: int) -> Play:
    """The play a code stands for."""
    return _new(Play, (code & _CARDS, COMBOS[code >> 54]))


def encode(play: Play) -> int | None:
    """A play's code; None for cards that are no combination."""
    return None if play.combo is None else play.mask | _code(play.combo)


class Moves(Sequence[Move]):
    """The legal moves of a position, in the generator's order, the pass first when it is one.

    A read-only sequence that compares equal to a list or tuple of the same moves. The plays are
    held as codes (``decode``) and each ``Play`` is made when it is read: a position lists some
    80 plays when leading, and a caller reads all of them (a bot), one (a random playout, the
    timeout) or none (``len``).

    >>> moves = legal_plays(0b111, None)            # 3s 3h 3d
    >>> len(moves), [str(m) for m in moves]
    (3, ['3s', '3s 3h', '3s 3h 3d'])
    >>> moves[-1] == Play.parse("3s 3h 3d"), Play.parse("3h") in moves
    (True, False)
    """

    __slots__ = ("codes", "may_pass")

    def __init__(self, codes: list[int], may_pass: bool = False) -> None:
        self.codes = codes  # the plays' codes, in order
        self.may_pass = may_pass  # whether the pass comes first

    def __len__(self) -> int:
        return len(self.codes) + self.may_pass

    @overload
    def __getitem__(self, index: int) -> Move: ...

    @overload
    def __getitem__(self, index: slice) -> list[Move]: ...

    def __getitem__(self, index: int | slice) -> Move | list[Move]:
        if isinstance(index, slice):
            return list(self)[index]
        if self.may_pass:
            if index == 0 or index == -len(self):
                return PASS
            if index > 0:
                index -= 1
        return decode(self.codes[index])

    def __iter__(self) -> Iterator[Move]:
        plays = map(decode, self.codes)
        return chain((PASS,), plays) if self.may_pass else plays

    def __contains__(self, move: object) -> bool:
        if move is PASS:
            return self.may_pass
        return isinstance(move, Play) and encode(move) in self.codes

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Moves):
            return self.may_pass == other.may_pass and self.codes == other.codes
        if isinstance(other, (list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Sequence[Move]) -> list[Move]:
        return [*self, *other]

    def __radd__(self, other: Sequence[Move]) -> list[Move]:
        return [*other, *self]

    def __repr__(self) -> str:
        return f"Moves({list(self)!r})"


def legal_plays(hand: int, table: Combo | None) -> Moves:
    """The legal moves of ``hand``: leading (``table`` None), every play; following, the pass
    and every play that beats ``table``. What ``GameState.legal_moves`` returns."""
    if table is None:
        return Moves(lead_codes(hand))
    return Moves(follow_codes(hand, table), True)


def lead_plays(hand: int) -> list[Play]:
    """Every distinct play of ``hand`` when leading, in the generator's order."""
    return list(map(decode, lead_codes(hand)))


def follow_plays(hand: int, table: Combo) -> list[Play]:
    """Every distinct play of ``hand`` that beats ``table``, in the generator's order (no pass)."""
    return list(map(decode, follow_codes(hand, table)))


def _lowest(nibble: int, count: int) -> int:
    out = 0
    for bit in (1, 2, 4, 8):
        if nibble & bit and count:
            out |= bit
            count -= 1
    return out


# Every combination, made once, in tables indexed by rank position (and chain length).
_SAME = {
    width: [_code(Combo(kind, p)) for p in range(15)]
    for width, kind in ((1, K.SINGLE), (2, K.PAIR), (3, K.TRIPLE), (4, K.BOMB))
}
_TRIPLE_WITH = {
    1: [_code(Combo(K.TRIPLE_SINGLE, p)) for p in range(13)],
    2: [_code(Combo(K.TRIPLE_PAIR, p)) for p in range(13)],
}
_FOUR_WITH = {
    1: [_code(Combo(K.FOUR_TWO_SINGLES, p)) for p in range(13)],
    2: [_code(Combo(K.FOUR_TWO_PAIRS, p)) for p in range(13)],
}
_CHAIN_KINDS = {
    1: K.STRAIGHT,
    2: K.PAIR_STRAIGHT,
    3: K.AIRPLANE,
    4: K.AIRPLANE_SINGLES,  # width 4 and 5: the airplanes with single and pair wings
    5: K.AIRPLANE_PAIRS,
}
_CHAIN = {
    width: [[_code(Combo(kind, high, n)) for n in range(high + 2)] for high in range(ACE + 1)]
    for width, kind in _CHAIN_KINDS.items()
}
_SHORTEST = {1: 5, 2: 3, 3: 2}

_POP = [n.bit_count() for n in range(16)]
# _WINDOW[start][n]: every card of the ranks start .. start + n - 1.
_WINDOW = [[sum(15 << (4 * p) for p in range(s, s + n)) for n in range(13 - s)] for s in range(12)]


class _Hand:
    """A hand, read as far as the generator needs: ``at(w)``, the positions holding at least
    ``w`` cards, and ``low(w)``, the lowest ``w`` cards of every rank (all of a rank with fewer;
    ``low(w) & _NIB[p]`` is rank ``p``'s lowest ``w``), each worked out once when first asked."""

    __slots__ = ("_at", "_lows", "data", "hand", "held")

    def __init__(self, hand: int) -> None:
        self.hand = hand
        self.data = data = (hand & _NATURAL).to_bytes(7, "little")
        self.held = int.from_bytes(data.translate(_AT_LEAST), "little")
        self._at: list[tuple[int, ...] | None] = [(), None, None, None, None]
        self._lows: list[int | None] = [0, None, None, None, hand]

    def at(self, width: int) -> tuple[int, ...]:
        found = self._at[width]
        if found is None:
            bits = (self.held >> (width - 1)) & _BIT0
            found = _POSITIONS[bits]
            if width == 1:
                found += _JOKERS[self.hand >> 52]
            self._at[width] = found
        return found

    def low(self, width: int) -> int:
        found = self._lows[width]
        if found is None:
            found = int.from_bytes(self.data.translate(_LOWEST_BYTES[width]), "little")
            if width == 1:
                found |= self.hand & _JOKER_BITS
            self._lows[width] = found
        return found

    def count(self, p: int) -> int:
        return _POP[(self.hand >> (4 * p)) & 15] if p < 13 else (self.hand >> (39 + p)) & 1


def rank_counts(hand: int) -> list[int]:
    """The 15 counts of a hand, by position."""
    return unpack(packed_counts(hand))


# Per byte of a hand (two ranks' nibbles): bit k of each nibble set when the rank holds more
# than k cards.
_AT_LEAST = bytes(
    ((1 << (b & 15).bit_count()) - 1) | (((1 << (b >> 4).bit_count()) - 1) << 4) for b in range(256)
)
_NATURAL = (1 << 52) - 1
_BIT0 = sum(1 << (4 * p) for p in range(13))
_JOKERS: tuple[tuple[int, ...], ...] = ((), (BLACK,), (RED,), (BLACK, RED))
_JOKER_BITS = (1 << 52) | (1 << 53)
# _NIB[p]: every card of rank position p; ``lows[w] & _NIB[p]`` is that rank's lowest w cards.
_NIB = [15 << (4 * p) for p in range(13)] + [1 << 52, 1 << 53]
# Per byte of a hand: each nibble's lowest 1, 2 or 3 cards (all of them when it has fewer).
_LOWEST_BYTES = {
    width: bytes(_lowest(b & 15, width) | (_lowest(b >> 4, width) << 4) for b in range(256))
    for width in (1, 2, 3)
}


# _ABOVE[r]: bit 0 of the nibbles of the ranks above position r; _JOKERS_ABOVE[r][held]: the
# jokers above it (a single's answers), by the hand's two joker bits.
_ABOVE = [sum(1 << (4 * p) for p in range(r + 1, 13)) for r in range(15)]
_JOKERS_ABOVE = [[tuple(p for p in held if p > r) for held in _JOKERS] for r in range(15)]


# _POSITIONS[bits]: the positions of the set bits of a nibble-position mask (bit ``4p``),
# ascending, for each of the 2**13 such masks.
_POSITIONS: dict[int, tuple[int, ...]] = {0: ()}
for _p in range(13):
    _POSITIONS.update({bits | 1 << (4 * _p): (*found, _p) for bits, found in _POSITIONS.items()})
del _p


def lead_codes(hand: int) -> list[int]:
    """Every distinct play of ``hand`` when leading, in the generator's order, as codes."""
    h = _Hand(hand)
    at = [(), h.at(1), h.at(2), h.at(3), h.at(4)]
    nib = _NIB
    # Each rank's lowest one, two and three cards, with the rank: the parts plays are made of.
    low1, low2, low3 = h.low(1), h.low(2), h.low(3)
    ones = [(p, low1 & nib[p]) for p in at[1]]
    twos = [(p, low2 & nib[p]) for p in at[2]]
    threes = [(p, low3 & nib[p]) for p in at[3]]
    out: list[int] = []
    for parts, combos in ((ones, _SAME[1]), (twos, _SAME[2]), (threes, _SAME[3])):
        out += [m | combos[p] for p, m in parts]
    for kickers, combos in ((ones, _TRIPLE_WITH[1]), (twos, _TRIPLE_WITH[2])):
        out += [base | kicker | combos[t] for t, base in threes for k, kicker in kickers if k != t]
    _chains(out, h, 1, 0, -1)
    if len(at[2]) >= 3:
        _chains(out, h, 2, 0, -1)
    if len(at[3]) >= 2:
        _chains(out, h, 3, 0, -1)
        _airplanes_with(out, h, 1, 0, -1)
        _airplanes_with(out, h, 2, 0, -1)
    if at[4]:
        _four_with(out, h, 1, 0, -1)
        _four_with(out, h, 2, 0, -1)
        _same_rank(out, h, 4, 0, -1)
    _rocket(out, h)
    return out


def follow_codes(hand: int, table: Combo) -> list[int]:
    """Every distinct play of ``hand`` that beats ``table``, in the generator's order (no pass),
    as codes."""
    make, width = _FOLLOW[table.kind]
    if make is None:
        return []  # nothing beats the rocket
    if make is _same_rank and width < 4:
        # The commonest answers, a single, a pair or a triple, read straight off the hand.
        data = (hand & _NATURAL).to_bytes(7, "little")
        held = int.from_bytes(data.translate(_AT_LEAST), "little")
        bits = (held >> (width - 1)) & _ABOVE[table.rank]
        cards = int.from_bytes(data.translate(_LOWEST_BYTES[width]), "little")
        ranks = _POSITIONS[bits]
        if width == 1:
            cards |= hand & _JOKER_BITS
            ranks += _JOKERS_ABOVE[table.rank][hand >> 52]
        nib, combos = _NIB, _SAME[width]
        out = [cards & nib[p] | combos[p] for p in ranks]
        bits = (held >> 3) & _BIT0
        if bits:
            bombs = _SAME[4]
            out += [hand & nib[p] | bombs[p] for p in _POSITIONS[bits]]
    else:
        h = _Hand(hand)
        out = []
        make(out, h, width, table.length, table.rank)
        if width != 4 or make is not _same_rank:
            _same_rank(out, h, 4, 0, -1)  # bombs, on anything but a bomb (made just above)
    if hand >> 52 == 3:
        out.append(_ROCKET_CODE)
    return out


def _same_rank(out: list[int], h: _Hand, width: int, length: int, above: int) -> None:
    cards, combos, nib = h.low(width), _SAME[width], _NIB
    out += [cards & nib[p] | combos[p] for p in h.at(width) if p > above]


def _rocket(out: list[int], h: _Hand) -> None:
    if h.hand >> 52 == 3:
        out.append(_ROCKET_CODE)


def _triple_with(out: list[int], h: _Hand, width: int, length: int, above: int) -> None:
    """Triples with one card (``width`` 1) or a pair (2) of another rank."""
    threes, cards, combos = h.low(3), h.low(width), _TRIPLE_WITH[width]
    kickers = h.at(width)
    nib = _NIB
    out += [
        threes & nib[t] | cards & nib[k] | combos[t]
        for t in h.at(3)
        if t > above
        for k in kickers
        if k != t
    ]


def _windows(h: _Hand, width: int) -> list[tuple[int, int, int, int]]:
    """The chains inside 3..A the ranks holding ``width`` cards make, as (start, length, high,
    every card of the window), by length then high; remembered by the set of those ranks."""
    bits = (h.held >> (width - 1)) & _CHAIN_BIT0
    key = bits * 4 + width
    found = _WINDOWS.get(key)
    if found is None:
        positions = _POSITIONS[bits]
        runs: list[list[int]] = []
        for p in positions:
            if runs and runs[-1][1] == p - 1:
                runs[-1][1] = p
            else:
                runs.append([p, p])
        longest = max((b - a + 1 for a, b in runs), default=0)
        found = _WINDOWS[key] = [
            (high - n + 1, n, high, _WINDOW[high - n + 1][n])
            for n in range(_SHORTEST[width], longest + 1)
            for a, b in runs
            for high in range(a + n - 1, b + 1)
        ]
    return found


_WINDOWS: dict[int, list[tuple[int, int, int, int]]] = {}
_CHAIN_BIT0 = sum(1 << (4 * p) for p in range(ACE + 1))


def _chains(out: list[int], h: _Hand, width: int, length: int, above: int) -> None:
    """Straights (``width`` 1), pair straights (2) or airplanes without wings (3): every length
    when ``length`` is 0, else that length only, with a highest rank above ``above``."""
    windows = _windows(h, width)
    if not windows:
        return
    cards = h.low(width)
    combos = _CHAIN[width]
    if length:
        windows = [w for w in windows if w[1] == length and w[2] > above]
    out += [cards & window | combos[high][n] for _, n, high, window in windows]


_ROCKET_CODE = (1 << 52) | (1 << 53) | _code(ROCKET)


def _airplanes_with(out: list[int], h: _Hand, width: int, length: int, above: int) -> None:
    """Airplanes with single wings (``width`` 1) or pair wings (2)."""
    windows = _windows(h, 3)
    if length:
        windows = [w for w in windows if w[1] == length and w[2] > above]
    if not windows:
        return
    lows = [0, h.low(1), h.low(2), h.low(3)]
    nib = _NIB
    total = h.hand.bit_count()
    cards = lows[3]
    combos = _CHAIN[3 + width]
    for start, n, high, window in windows:
        if (3 + width) * n > total:
            break  # windows come by length
        chain = cards & window | combos[high][n]  # the airplane's cards and its combination
        if width == 2:
            ranks = [lows[2] & nib[p] for p in h.at(2) if not start <= p <= high]
            out += [chain + sum(pick) for pick in combinations(ranks, n)]
            continue
        # Single wings: at most three of a rank (never four), at most two of a rank next to
        # the chain (three would lengthen it), and never both jokers.
        mosts = []
        offered = []
        for p in h.at(1):
            if start <= p <= high:
                continue
            most = h.count(p)
            if most > 3:
                most = 3
            if most == 3 and (p == start - 1 or p == high + 1) and p <= ACE:
                most = 2
            offered.append(p)
            mosts.append(most)
        jokers = h.hand >> 52 == 3
        if n == 2:
            # The commonest airplane, two triples: its wings read off directly, in the order
            # _wing_picks gives (a rank's two cards, then the rank with each higher rank).
            ones = [lows[1] & nib[p] for p in offered]
            last = len(ones) - 1
            for i, one in enumerate(ones):
                if mosts[i] > 1:
                    out.append(chain + (lows[2] & nib[offered[i]]))
                if jokers and i == last - 1:
                    break  # the black joker: the red one may not join it
                chain_one = chain + one
                out += [chain_one + other for other in ones[i + 1 :]]
            continue
        flat = [
            lows[take] & nib[p]
            for p, most in zip(offered, mosts, strict=True)
            for take in range(1, most + 1)
        ]
        picks = _WING_PICKS.get((n, jokers, *mosts)) or _wing_picks(n, tuple(mosts), jokers)
        take = flat.__getitem__
        out += [sum(map(take, pick), chain) for pick in picks]


def _wing_picks(n: int, mosts: tuple[int, ...], jokers: bool) -> list[tuple[int, ...]]:
    """The ways to take ``n`` single wings from ranks offering ``mosts`` cards each (the last
    two the jokers when ``jokers``): tuples of indexes into the ranks' offers laid end to end,
    rank ``i``'s ``k`` lowest cards at ``offset[i] + k - 1``. Lowest ranks first, more of a rank
    before fewer; remembered by (n, jokers, *mosts)."""
    offsets = [0]
    for most in mosts:
        offsets.append(offsets[-1] + most)
    last = len(mosts)
    found: list[tuple[int, ...]] = []

    def walk(left: int, index: int, pick: tuple[int, ...]) -> None:
        for i in range(index, last):
            for take in range(min(mosts[i], left), 0, -1):
                chosen = (*pick, offsets[i] + take - 1)
                if take == left:
                    found.append(chosen)
                elif jokers and i == last - 2:
                    continue  # the black joker: the red one may not follow it
                else:
                    walk(left - take, i + 1, chosen)

    walk(n, 0, ())
    if len(_WING_PICKS) > 50_000:
        _WING_PICKS.clear()
    _WING_PICKS[(n, jokers, *mosts)] = found
    return found


_WING_PICKS: dict[tuple[int | bool, ...], list[tuple[int, ...]]] = {}


def _four_with(out: list[int], h: _Hand, width: int, length: int, above: int) -> None:
    """Four of a rank with two single cards (``width`` 1; they may be a pair, never the two
    jokers) or two pairs of two other ranks (2), the kickers' ranks lowest first."""
    ones, twos, nib = h.low(1), h.low(2), _NIB
    combos, pairs = _FOUR_WITH[width], h.at(2)
    for f in h.at(4):
        if f <= above:
            continue
        base = h.hand & nib[f] | combos[f]
        if width == 2:
            out += [
                base | twos & (nib[a] | nib[b])
                for a, b in combinations([p for p in pairs if p != f], 2)
            ]
            continue
        ranks = [p for p in h.at(1) if p != f]
        kickers = sorted(
            [(a, a) for a in pairs if a != f]
            + [(a, b) for a, b in combinations(ranks, 2) if a != BLACK]
        )
        out += [base | (twos & nib[a] if a == b else ones & (nib[a] | nib[b])) for a, b in kickers]


_Maker = Callable[[list[int], _Hand, int, int, int], None]
# How to answer each kind: the maker and its width (None: nothing but the rocket answers).
_FOLLOW: dict[ComboKind, tuple[_Maker | None, int]] = {
    K.SINGLE: (_same_rank, 1),
    K.PAIR: (_same_rank, 2),
    K.TRIPLE: (_same_rank, 3),
    K.BOMB: (_same_rank, 4),
    K.TRIPLE_SINGLE: (_triple_with, 1),
    K.TRIPLE_PAIR: (_triple_with, 2),
    K.STRAIGHT: (_chains, 1),
    K.PAIR_STRAIGHT: (_chains, 2),
    K.AIRPLANE: (_chains, 3),
    K.AIRPLANE_SINGLES: (_airplanes_with, 1),
    K.AIRPLANE_PAIRS: (_airplanes_with, 2),
    K.FOUR_TWO_SINGLES: (_four_with, 1),
    K.FOUR_TWO_PAIRS: (_four_with, 2),
    K.ROCKET: (None, 0),
}
