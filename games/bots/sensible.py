"""A bot that plays 干瞪眼 the way a sensible person does.

How it thinks, in plain words (``docs/bots.md`` tells it at more length, with its figures):

* **It sorts its hand into combinations.** It finds the way of splitting its hand into plays
  (singles, pairs, straights, pair straights, bombs, with the joker wherever it helps most) that
  leaves it the least work: the fewest plays, with low singles the worst burden, high cards less
  of one, and 2s, bombs and the rocket counted as assets, since they win rounds back. Each move is
  judged by what it takes out of that work, and a move that spoils the split of the cards it
  leaves behind (a pair torn apart, a straight cut, a bomb broken) counts double against it.
* **It goes out at once when it can.** A move that empties the hand is always taken.
* **Leading**, it sheds what is hardest to get rid of: the lowest, most isolated single, or a
  straight or pair straight of low cards (the longer the better), which only a lead can unload,
  since nobody can follow them but with the very next run of the same length. It does not lead
  a 2 or a bomb while it has a reasonable alternative, and it never uses the joker for a card it
  could play naturally in the same combination. When a combination can mean two things (5, 6
  and a joker are 4-5-6 or 5-6-7) it takes the meaning the others are least able to beat,
  judging by the cards not seen yet (Q, K and a joker lead as Q-K-A, which no straight beats).
* **Once the stock is empty**, nobody draws any more, so it counts down: when a play leaves a
  hand that goes down in one play, it plays it, preferring what the others are unlikely to beat
  (a pair of As, a 2, a bomb): if the play holds, it leads the rest and wins. Holding 5 and a
  pair of As, it leads the As first.
* **Following**, it beats with the cheapest natural play that fits its hand (the single that
  stands alone, a pair that is a pair) and passes rather than break a stronger combination for
  it. It passes rather than spend a bomb or the joker, or a 2 while more than half of the stock
  is left, unless an opponent is about to go out or what is left of its hand afterwards goes
  down in one play.
* **When an opponent is about to go out**, it stops saving: it beats whatever it can, bombs
  included, preferring what that player is unlikely to beat. An opponent is about to go out when
  they could play their whole hand on the table's play (one card on a single, two on a pair), or,
  with the stock empty, when they hold one or two cards and would win the round. While cards are
  left to draw, the winner of a round draws before leading, so a small hand is not yet a reason
  to spend a bomb. Leading against a hand of one or two cards, it avoids what that hand could
  answer: a pair or a straight rather than a single, or else the single least likely to be
  answered (a 2 cannot be); with cards still to draw it may lead a 2 or a bomb to keep the lead
  while that player draws.

It only ever sees its seat's view (its hand, the card counts, the stock count, the public
history) and the legal moves; from the history it works out which cards are still unseen. It is
deterministic: the same view and moves always give the same choice.

Its strength and speed are measured by ``python -m games.bots arena`` and ``python -m games.bots
speed`` (figures in ``docs/bots.md``): it wins about 70 % of its games against two greedy bots
and about 85 % against two random ones (a third is an equal share), and takes well under a
millisecond for a typical move; its slowest, a cold lead with a 20-card hand full of runs and a
joker, takes some 15-25 ms.

>>> from games.rules.gandengyan import GameState
>>> hands = ["3s 7h 9d 9c 9s 2h Kd", "4s 4h 8h Th Jh", "5s 6s 8d Tc Jc"]
>>> state = GameState.from_position(hands, stock="Qs Qh Ac", dealer=0)
>>> str(SensiblePolicy().choose(state.view_for(0), state.legal_moves()))
'3s'
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any

from games.rules.cards import CARDS, DECK_MASK, JOKER_MASK, Rank
from games.rules.gandengyan.combos import (
    ACE_POSITION,
    HARD_BOMB,
    PAIR,
    PAIR_STRAIGHT,
    RANK_POSITION,
    ROCKET,
    SINGLE,
    SOFT_BOMB,
    STRAIGHT,
    Combo,
    ComboKind,
    interpretations,
    meanings,
)
from games.rules.gandengyan.moves import PASS, Move, Play
from games.rules.gandengyan.options import GandengyanRules

__all__ = [
    "ALT_WEIGHTS",
    "DEFAULT_WEIGHTS",
    "KNOWN_MASKS",
    "SensiblePolicy",
    "Weights",
    "clear_caches",
]

_NATURAL = (1 << 52) - 1
_TWO = RANK_POSITION[Rank.TWO]  # 12; the 3 is 0 and the A is 11
_TWOS = 15 << (4 * _TWO)
_BIT_BY_TEXT: dict[str, int] = {str(card): card.bit for card in CARDS}

# Per-nibble popcount of a byte's two nibbles: a hand's rank counts in one bytes.translate.
_POP_NIBBLES = bytes((b & 15).bit_count() | ((b >> 4).bit_count() << 4) for b in range(256))


def _counts(mask: int) -> int:
    """Rank counts of the natural cards of ``mask``: nibble ``p`` holds how many of position p."""
    data = (mask & _NATURAL).to_bytes(7, "little").translate(_POP_NIBBLES)
    return int.from_bytes(data, "little")


def _count_at(counts: int, position: int) -> int:
    return (counts >> (4 * position)) & 15


# What each kind of group costs to get rid of, in "plays", adjusted for how easily it goes.
# Positions: 3 -> 0 ... A -> 11, 2 -> 12.


def _single_cost(p: int) -> float:
    if p == _TWO:
        return 0.25  # beats any single: it wins a round back
    if p == ACE_POSITION:
        return 0.6  # only a 2 or a bomb beats it
    return 1.0 - 0.02 * p


def _pair_cost(p: int) -> float:
    if p == _TWO:
        return 0.2
    if p == ACE_POSITION:
        return 0.45  # only bombs beat it
    return 0.9 - 0.02 * p


_SOFT_BOMB_COST = 0.05
_HARD_BOMB_COST = 0.0
_ROCKET_COST = -0.1
_LONE_JOKER_COST = 0.6  # a joker with nothing to join: playable only as the very last card

_SAME: tuple[tuple[float, ...], ...] = tuple(
    (0.0, _single_cost(p), _pair_cost(p), _SOFT_BOMB_COST, _HARD_BOMB_COST) for p in range(13)
)


def _run_cost(start: int, ranks: int, base: float, minimum: int) -> float:
    """A straight or pair straight: only a lead gets rid of it, and the longer it is and the
    lower its cards, the more it is worth leading (it unloads many awkward cards at once)."""
    cost = base + 0.08 * (ranks - minimum) - 0.02 * start
    if start + ranks - 1 == ACE_POSITION:
        cost -= 0.3  # nothing of its kind can beat it
    return cost


_STRAIGHT: tuple[tuple[float, ...], ...] = tuple(
    tuple(_run_cost(s, n, 0.9, 3) if n >= 3 else 0.0 for n in range(ACE_POSITION + 2 - s))
    for s in range(ACE_POSITION + 1)
)
_PAIR_STRAIGHT: tuple[tuple[float, ...], ...] = tuple(
    tuple(_run_cost(s, n, 0.85, 2) if n >= 2 else 0.0 for n in range(ACE_POSITION + 2 - s))
    for s in range(ACE_POSITION + 1)
)


def _group_costs() -> dict[Combo, float]:
    """The cost of each combination as a group of its own."""
    costs = {ROCKET: _ROCKET_COST}
    for kind, table in ((1, SINGLE), (2, PAIR), (3, SOFT_BOMB), (4, HARD_BOMB)):
        for rank, combo in table.items():
            costs[combo] = _SAME[RANK_POSITION[rank]][kind]
    for (rank, length), combo in STRAIGHT.items():
        costs[combo] = _STRAIGHT[RANK_POSITION[rank]][length]
    for (rank, length), combo in PAIR_STRAIGHT.items():
        costs[combo] = _PAIR_STRAIGHT[RANK_POSITION[rank]][length // 2]
    return costs


_GROUP_COST = _group_costs()


#: What the rules allow a split to use: the most ranks in a straight and in a pair straight, and
#: whether the joker may stand for a 2 (``_shape``).
Shape = tuple[int, int, bool]
_STANDARD_SHAPE: Shape = (ACE_POSITION + 1, ACE_POSITION + 1, True)


def _shape(rules: GandengyanRules) -> Shape:
    return (rules.straight_limit, rules.pair_straight_limit // 2, not rules.joker_not_two)


@functools.lru_cache(maxsize=1 << 18)
def _plan(counts: int, joker: int, shape: Shape = _STANDARD_SHAPE) -> float:
    """The cost of the best split of a hand into combinations.

    ``counts`` holds the natural cards' rank counts (see ``_counts``), ``joker`` is 1 when one
    joker is free to stand in. The lowest rank present must go somewhere: with the rest of its
    rank (a single, pair or bomb, maybe with the joker), or at the bottom of a straight or pair
    straight (the joker may fill one missing rank). Each choice is tried, then the rest is split
    the same way, remembering every split already worked out.
    """
    if not counts:
        return _LONE_JOKER_COST if joker else 0.0
    p = ((counts & -counts).bit_length() - 1) >> 2
    shift = 4 * p
    c = (counts >> shift) & 15
    rest = counts - (c << shift)
    best = _SAME[p][c] + _plan(rest, joker, shape)
    longest, longest_pairs, wild_two = shape
    if joker and c < 4 and (wild_two or p != _TWO):
        cost = _SAME[p][c + 1] + _plan(rest, 0, shape)
        if cost < best:
            best = cost
    if p > ACE_POSITION:
        return best
    # Straights from p up; the joker may fill one missing rank (or add one above the top).
    taken, used, q = 0, 0, p
    while q <= ACE_POSITION:
        if (counts >> (4 * q)) & 15:
            taken += 1 << (4 * q)
        elif joker and not used:
            used = 1
        else:
            break
        q += 1
        if q - p > longest:
            break
        if q - p >= 3:
            cost = _STRAIGHT[p][q - p] + _plan(counts - taken, joker - used, shape)
            if cost < best:
                best = cost
    # Straights with the joker just below p.
    if joker and p > 0:
        taken, q = 0, p
        while q <= ACE_POSITION and (counts >> (4 * q)) & 15:
            taken += 1 << (4 * q)
            q += 1
            if q - p + 1 > longest:
                break
            if q - p >= 2:
                cost = _STRAIGHT[p - 1][q - p + 1] + _plan(counts - taken, 0, shape)
                if cost < best:
                    best = cost
    # Pair straights from p up; the joker may be the second card of one rank.
    taken, used, q = 0, 0, p
    while q <= ACE_POSITION:
        cq = (counts >> (4 * q)) & 15
        if cq >= 2:
            taken += 2 << (4 * q)
        elif cq == 1 and joker and not used:
            taken += 1 << (4 * q)
            used = 1
        else:
            break
        q += 1
        if q - p > longest_pairs:
            break
        if q - p >= 2:
            cost = _PAIR_STRAIGHT[p][q - p] + _plan(counts - taken, joker - used, shape)
            if cost < best:
                best = cost
    return best


@functools.lru_cache(maxsize=1 << 16)
def _hand_cost(counts: int, jokers: int, shape: Shape = _STANDARD_SHAPE) -> float:
    """The cost of a hand with these natural counts and this many jokers (two are a rocket).

    Ranks with an empty rank between them never share a combination, so each block of
    consecutive ranks (and the 2s on their own) is split apart from the others; the joker
    goes to the block, or the two blocks around a one-rank gap, where it helps most.
    """
    blocks = _blocks(counts)
    alone = [_plan(block, 0, shape) for _, _, block in blocks]
    total = sum(alone)
    if jokers >= 2:
        return total + _ROCKET_COST
    if not jokers:
        return total
    best = _LONE_JOKER_COST
    for i, (_, high, block) in enumerate(blocks):
        best = min(best, _plan(block, 1, shape) - alone[i])
        if i + 1 < len(blocks):
            low, _, following = blocks[i + 1]
            if low == high + 2 and low <= ACE_POSITION:
                bridged = _plan(block | following, 1, shape) - alone[i] - alone[i + 1]
                best = min(best, bridged)
    return total + best


def clear_caches() -> None:
    """Forget every hand split worked out so far (to time the bot as in a fresh process)."""
    _plan.cache_clear()
    _hand_cost.cache_clear()


def _blocks(counts: int) -> list[tuple[int, int, int]]:
    """(lowest position, highest position, counts) of each run of consecutive ranks held;
    the 2s are a block of their own."""
    blocks = []
    start = -1
    for p in range(ACE_POSITION + 2):
        present = (counts >> (4 * p)) & 15 and p <= ACE_POSITION
        if present and start < 0:
            start = p
        elif not present and start >= 0:
            mask = ((1 << (4 * p)) - 1) ^ ((1 << (4 * start)) - 1)
            blocks.append((start, p - 1, counts & mask))
            start = -1
    if counts & _TWOS:
        blocks.append((_TWO, _TWO, counts & _TWOS))
    return blocks


# How much each consideration weighs, in the same unit as the costs above (about one play).
_ISOLATED = 0.15  # a lead single with no neighbour of its rank in the hand
_JOKER_LEAD = 0.3  # using the joker in a lead
_EXPENSIVE_LEAD = 1.0  # leading a 2 or a bomb that neither finishes nor holds off a threat
_HOLD = 0.25  # a play the others are unlikely to beat (so the round, and the lead, stay ours)
_FOLLOW_MIN = 0.35  # a follow must be worth at least this much, or we pass
_BREAK = 1.0  # extra weight of what a play spoils in the rest of the hand
_LAST_PLAY_LEFT = 1.0  # stock empty: a play after which the rest of the hand goes in one play
_DANGER_LEAD = 8.0  # times the chance that a nearly empty hand beats our lead
_DANGER_BLOCK = 1.0  # following in danger: playing something they are unlikely to beat
_EARLY_STOCK = 19  # "early": more than half of the 38-card stock is left


@dataclasses.dataclass(frozen=True, slots=True)
class Weights:
    """How much each consideration of the sensible bot weighs (the defaults are its own).

    ``SensiblePolicy(weights=...)`` plays by another set: ``ALT_WEIGHTS`` is a bolder player that
    follows more readily, minds less what a play spoils, and spends its 2s sooner.
    """

    isolated: float = _ISOLATED
    joker_lead: float = _JOKER_LEAD
    expensive_lead: float = _EXPENSIVE_LEAD
    hold: float = _HOLD
    follow_min: float = _FOLLOW_MIN
    break_: float = _BREAK
    last_play_left: float = _LAST_PLAY_LEFT
    danger_lead: float = _DANGER_LEAD
    danger_block: float = _DANGER_BLOCK
    early_stock: int = _EARLY_STOCK


DEFAULT_WEIGHTS = Weights()
ALT_WEIGHTS = Weights(
    isolated=0.3,
    expensive_lead=0.6,
    hold=0.5,
    follow_min=0.1,
    break_=0.6,
    danger_lead=5.0,
    early_stock=10,
)


#: A view may carry, under this key, (its hand, the cards it has not seen, the house rules)
#: as masks and rules already worked out: the search's playouts build thousands of views, and
#: this spares each the reading of card texts and of the history. The play is the same.
KNOWN_MASKS = "known_masks"


class _Seen:
    """What the view tells: our hand and the cards nobody has shown yet."""

    __slots__ = (
        "_risks",
        "hand",
        "opponents",
        "rules",
        "shape",
        "stock",
        "unseen",
        "unseen_jokers",
        "unseen_share",
        "unseen_total",
    )

    def __init__(self, view: dict[str, Any]) -> None:
        known: tuple[int, int, GandengyanRules] | None = view.get(KNOWN_MASKS)
        if known is not None:  # a search's playout: the same facts, worked out already
            hand, unseen, rules = known
        else:
            bits = _BIT_BY_TEXT
            hand = 0
            for text in view.get("hand") or ():
                hand |= bits[text]
            played = 0
            for action in view.get("history") or ():
                cards = action.get("play")
                if cards:
                    for text in cards.split():
                        played |= bits[text]
            unseen = DECK_MASK & ~hand & ~played
            # The house rules the view states (``{}``, or none at all, is the standard game).
            rules = GandengyanRules.from_dict(view.get("rules") or None)
        seat = view.get("seat")
        counts = view.get("hand_counts") or []
        self.hand = hand
        self.rules = rules
        self.shape = _shape(self.rules)
        self.opponents = {s: n for s, n in enumerate(counts) if s != seat}
        self.stock = int(view.get("stock") or 0)
        self.unseen = _counts(unseen)
        self.unseen_jokers = (unseen & JOKER_MASK).bit_count()
        total = self.unseen_total = unseen.bit_count()
        self.unseen_share = min(1.0, sum(self.opponents.values()) / total) if total else 0.0
        self._risks: dict[Combo, float] = {}

    def beat_risk(self, combo: Combo) -> float:
        """A rough chance that an opponent can beat ``combo`` with a normal combination, judged
        from the unseen cards (bombs apart: they can beat anything but are rare)."""
        risk = self._risks.get(combo)
        if risk is None:
            risk = self._risks[combo] = self._beat_risk(combo)
        return risk

    def _beat_risk(self, combo: Combo) -> float:
        if combo.bomb_class or combo.rank is None:
            return 0.0
        p = RANK_POSITION[combo.rank]
        share = self.unseen_share
        if combo.kind is ComboKind.SINGLE:
            if p == _TWO:
                return 0.0
            cards = _count_at(self.unseen, _TWO)
            if p < ACE_POSITION:
                cards += _count_at(self.unseen, p + 1)
            return 1.0 - (1.0 - share) ** cards
        need = 2 if combo.kind in (ComboKind.PAIR, ComboKind.PAIR_STRAIGHT) else 1
        ranks = combo.length // need
        top = p + ranks  # the next combination's highest position
        if top > ACE_POSITION:
            return 0.0
        short = sum(max(0, need - _count_at(self.unseen, q)) for q in range(p + 1, top + 1))
        if short > min(1, self.unseen_jokers):
            return 0.0
        return share * 0.5

    def lone_card_risk(self, combo: Combo) -> float:
        """The chance that an opponent holding one card can beat ``combo`` with it."""
        if combo.kind is not ComboKind.SINGLE or combo.rank is None:
            return 0.0
        p = RANK_POSITION[combo.rank]
        if p == _TWO:
            return 0.0
        cards = _count_at(self.unseen, _TWO)
        if p < ACE_POSITION:
            cards += _count_at(self.unseen, p + 1)
        if self.stock == 0:
            cards += self.unseen_jokers
        total = self.unseen_total
        return min(1.0, cards / total) if total else 0.0


def _combo(move: Play) -> Combo:
    """The meaning of a legal play (the engine's plays always carry one)."""
    if move.combo is not None:
        return move.combo
    return interpretations(move.mask)[0]


def _has_neighbour(counts: int, p: int) -> bool:
    """Whether the hand holds a rank next to position ``p`` (a 2 has no neighbours)."""
    if p >= _TWO:
        return False
    below = p > 0 and _count_at(counts, p - 1) > 0
    above = p < ACE_POSITION and _count_at(counts, p + 1) > 0
    return below or above


def _is_expensive(move: Play, combo: Combo) -> bool:
    """A 2 or a bomb (the rocket included): the cards that win rounds back."""
    return bool(combo.bomb_class or move.mask & _TWOS)


class SensiblePolicy:
    """Plays like a sensible person; see the module's description. Deterministic.

    ``weights`` sets how much each consideration weighs (``Weights``; the defaults are the
    sensible bot's own), and ``name`` what the arena calls it.
    """

    def __init__(self, weights: Weights = DEFAULT_WEIGHTS, name: str = "sensible") -> None:
        self.weights = weights
        self.name = name

    def choose(self, state_view: dict[str, Any], legal: Sequence[Move]) -> Move:
        if not legal:
            raise ValueError("there are no legal moves to choose from")
        plays = [move for move in legal if isinstance(move, Play)]
        if not plays:
            return PASS
        seen = _Seen(state_view)
        hand = seen.hand
        for move in plays:
            if move.mask == hand:
                return self._safest(move, plays, seen)
        if state_view.get("table") is None:
            return _best(self._lead_scores(plays, seen), plays[0])
        return _best(self._follow_scores(plays, seen, state_view), PASS)

    def rank(self, state_view: dict[str, Any], legal: Sequence[Move]) -> list[Move]:
        """Every legal move, the one ``choose`` picks first, then the others from the most to
        the least attractive by the same judgement (moves it never considers come last)."""
        if not legal:
            raise ValueError("there are no legal moves to choose from")
        first = self.choose(state_view, legal)
        plays = [move for move in legal if isinstance(move, Play)]
        scored: list[tuple[float, Move]] = []
        if plays:
            seen = _Seen(state_view)
            if state_view.get("table") is None:
                scored = self._lead_scores(plays, seen)
            else:
                scored = self._follow_scores(plays, seen, state_view)
        order = sorted(range(len(scored)), key=lambda i: -scored[i][0])
        ranked = [first]
        for i in order:
            if scored[i][1] not in ranked:
                ranked.append(scored[i][1])
        ranked += [move for move in legal if move not in ranked]
        return ranked

    # Leading -------------------------------------------------------------------------------

    def _lead_scores(self, plays: list[Play], seen: _Seen) -> list[tuple[float, Move]]:
        """Each lead it considers, with its score."""
        w = self.weights
        hand = seen.hand
        counts = _counts(hand)
        jokers = (hand & JOKER_MASK).bit_count()
        before = _hand_cost(counts, jokers, seen.shape)
        stock = seen.stock
        threats = [n for n in seen.opponents.values() if n <= 2]
        # A joker never stands in for a card we could play naturally in the same combination.
        natural = {_combo(move) for move in plays if not move.mask & JOKER_MASK}
        scored: list[tuple[float, Move]] = []
        for move in plays:
            combo = _combo(move)
            mask = move.mask
            if mask & JOKER_MASK and combo in natural:
                continue
            # With the stock empty, a play after which the rest goes down in one play wins the
            # game if it holds the round: we lead the rest next.
            finishing = not stock and _one_play_left(hand & ~mask, 0, seen.rules)
            # A 2 or a bomb is kept for later, unless it leads to going out, or it keeps the lead
            # while a nearly empty hand has to draw (with the stock empty, that gains nothing).
            expensive = _is_expensive(move, combo) and not finishing and not (threats and stock)
            score = -w.expensive_lead if expensive else 0.0
            if finishing:
                score += w.last_play_left * (1.0 - seen.beat_risk(combo))
            gone = _counts(mask)
            used_jokers = (mask & JOKER_MASK).bit_count()
            after = _hand_cost(counts - gone, jokers - used_jokers, seen.shape)
            score += before - after - w.break_ * (after + _GROUP_COST[combo] - before)
            if combo.kind is ComboKind.SINGLE and not _has_neighbour(counts, _position(combo)):
                score += w.isolated
            if used_jokers and combo is not ROCKET:
                score -= w.joker_lead
            score += w.hold * (1.0 - seen.beat_risk(combo))
            for n in threats:
                score -= w.danger_lead * _threat_risk(seen, combo, n)
            scored.append((score, move))
        return scored

    # Following ---------------------------------------------------------------------------

    def _follow_scores(
        self, plays: list[Play], seen: _Seen, view: dict[str, Any]
    ) -> list[tuple[float, Move]]:
        """The pass (first) and each follow it considers, with their scores."""
        w = self.weights
        hand = seen.hand
        counts = _counts(hand)
        jokers = (hand & JOKER_MASK).bit_count()
        before = _hand_cost(counts, jokers, seen.shape)
        danger = self._in_danger(seen, view)
        scored: list[tuple[float, Move]] = [(w.follow_min if not danger else float("-inf"), PASS)]
        for move in plays:
            combo = _combo(move)
            mask = move.mask
            used_jokers = (mask & JOKER_MASK).bit_count()
            one_play_left = _one_play_left(hand & ~mask, seen.stock, seen.rules)
            if not danger and not one_play_left and self._saving(move, combo, seen):
                continue
            after = _hand_cost(counts - _counts(mask), jokers - used_jokers, seen.shape)
            score = before - after - w.break_ * (after + _GROUP_COST[combo] - before)
            risk = seen.beat_risk(combo)
            score += w.hold * (1.0 - risk)
            if one_play_left and not seen.stock:  # if this holds, we lead the rest and win
                score += w.last_play_left * (1.0 - risk)
            if danger:
                score += w.danger_block * (1.0 - risk)
            scored.append((score, move))
        return scored

    def _saving(self, move: Play, combo: Combo, seen: _Seen) -> bool:
        """Whether this play spends what we keep for later: a bomb or the joker always, a 2
        early in the game (while more than half of the stock is left)."""
        if combo.bomb_class or move.mask & JOKER_MASK:
            return True
        return bool(move.mask & _TWOS) and seen.stock > self.weights.early_stock

    @staticmethod
    def _in_danger(seen: _Seen, view: dict[str, Any]) -> bool:
        """Whether an opponent could go out if we let this play stand.

        The player still to answer (nobody has passed yet) goes out at once by beating it with a
        hand of as many cards: one card on a single, two on a pair. And once the stock is empty,
        an opponent with one or two cards who wins the round (its owner) or takes it over (the
        player still to answer) leads them and may go out. While cards are left to draw, the
        winner of a round draws before leading, so a small hand is not yet about to go out.
        """
        table = view.get("table") or {}
        owner = table.get("seat")
        length = len(str(table.get("cards") or "").split())
        passes = int(view.get("passes") or 0)
        for seat, cards in seen.opponents.items():
            if cards > 2:
                continue
            if seat == owner:
                if not seen.stock:
                    return True
            elif passes == 0 and (cards == length or not seen.stock):
                return True
        return False

    @staticmethod
    def _safest(move: Play, plays: list[Play], seen: _Seen) -> Play:
        """Of the plays with these same cards, the meaning least likely to be beaten."""
        same = [m for m in plays if m.mask == move.mask]
        return min(same, key=lambda m: seen.beat_risk(_combo(m)))

    def __repr__(self) -> str:
        if self.weights == DEFAULT_WEIGHTS and self.name == "sensible":
            return "SensiblePolicy()"
        return f"SensiblePolicy({self.weights!r}, name={self.name!r})"


def _best(scored: list[tuple[float, Move]], default: Move) -> Move:
    """The first move of the highest score (``default`` when there is none)."""
    best, best_score = default, float("-inf")
    for score, move in scored:
        if score > best_score:
            best, best_score = move, score
    return best


def _position(combo: Combo) -> int:
    assert combo.rank is not None
    return RANK_POSITION[combo.rank]


def _one_play_left(rest: int, stock: int, rules: GandengyanRules) -> bool:
    """Whether ``rest`` can go down in one play under ``rules`` (a lone joker only once the
    stock is empty, and never with ``lone_joker_last`` off)."""
    if not rest or rest == JOKER_MASK:
        return True
    if not rest & _NATURAL:
        return stock == 0 and rules.lone_joker_last
    return bool(meanings(rest, rules))


def _threat_risk(seen: _Seen, combo: Combo, cards: int) -> float:
    """How likely an opponent holding ``cards`` (1 or 2) cards beats our lead and goes out,
    or gets within one card of it."""
    if cards == 1:
        return seen.lone_card_risk(combo)
    if combo.kind is ComboKind.SINGLE:
        return 0.5 * seen.lone_card_risk(combo)
    if combo.kind is ComboKind.PAIR:
        return seen.beat_risk(combo)
    return 0.0
