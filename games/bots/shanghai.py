"""A bot that plays 上海斗地主 (4 players, two decks) the way a sensible person does.

It sees only its seat's view (its hand, every seat's card count, the bids, who is landlord, each
seat's bombs left, the table, the public history) and its legal actions; it is deterministic and
looks no further ahead than the move it makes. How it thinks:

* **Bidding by hand strength** (``hand_strength``, its 25 cards): a red joker 3, a black joker
  2.5, each 2 1.5, each A 0.5; each bomb 4 and 1.5 for every card above four, the four jokers
  together 8 more; a chain of eight or more ranks 1; minus 1 for every three low lone cards. It
  says 小地主 at ``SMALL_AT`` or more, 大地主 at ``BIG_AT`` or more (also over another seat's
  小地主), and passes otherwise.
* **Splitting the hand** (``hand_cost``): about how many plays it takes to shed it: bombs and
  the four jokers set apart as assets, then airplanes (with cannons when it has the pairs),
  straights that take in lone cards, sister pairs, triples carrying the lowest pair (呼路), then
  pairs and singles, an A, a 2 or a joker alone counting less since it wins a round back. A play
  is judged by the hand it leaves.
* **It goes out at once** when its whole hand is one play.
* **Leading**, it sheds what leaves the best hand, the more cards the better at equal cost, its
  weakest first: low chains and full houses early, lone low cards before high ones. It keeps its
  bombs (a bomb leads only when the rest of the hand then goes in one play, and the last bomb
  its bidding allows is worth more still), and keeps its 2s and jokers while its hand is big.
  Against an opponent with one card (two) it leads no single (pair) it can avoid, its highest if
  it must; a farmer whose partner sits next with one card (two) leads its lowest single (pair)
  to let the partner out.
* **Following a partner** (a farmer after another farmer's play that still stands), it passes
  unless the answer empties its hand: it never overtakes a partner who is winning the trick.
* **Following an opponent**, it answers with the play that spoils its hand least and passes
  rather than break its hand for little: for more than 1.5 plays' worth (``pass_limit``), or 3
  for the farmer just before the landlord (``last_farmer_limit``), the last who can stop the
  landlord's play coming back to it. A bomb goes only when the opponent is about to go out
  (``DANGER`` cards or fewer; ``LAST_BOMB_DANGER`` for the last bomb its bidding allows) or
  when the rest of its hand then goes in about one play; then its smallest bomb. Against an
  opponent with one or two cards it answers high and never passes what it can beat.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from games.rules.shanghai.cards import parse_cards
from games.rules.shanghai.combos import ComboKind, counts_of_mask
from games.rules.shanghai.moves import BIG, NO_BID, PASS, SMALL, Action, Bid, Play

__all__ = [
    "BIG_AT",
    "SMALL_AT",
    "ShanghaiPolicy",
    "clear_caches",
    "counts_of_hand",
    "hand_cost",
    "hand_strength",
]

ACE = 11
TWO = 12
BLACK = 13
RED = 14
SEATS = 4

#: 小地主 from this strength up, 大地主 from this one (see ``hand_strength``).
SMALL_AT = 12.0
BIG_AT = 18.0
#: An opponent with this many cards or fewer is about to go out: bombs and high cards go.
DANGER = 6
#: ... and with this many or fewer for the last bomb the bidding allows.
LAST_BOMB_DANGER = 3

#: The order of ranks in a chain: A 2 3 … K A (the A at either end, never both).
AXIS = (ACE, TWO, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ACE)
_LONGEST = 13
#: What a combination left over costs, by rank position: about one play, less for what beats
#: nearly everything of its kind (it wins a round back).
_SINGLE_COST = (1.0,) * 11 + (0.6, 0.4, 0.3, 0.2)
_PAIR_COST = (1.0,) * 11 + (0.5, 0.3, 0.2, 0.1)
#: A bomb is an asset: it sheds its cards whenever its owner likes and takes the lead.
BOMB_COST = -0.2


def counts_of_hand(texts: Sequence[str]) -> list[int]:
    """Counts by rank position (3 … A, 2, BJ, RJ) of cards written as text, as views show them."""
    counts = [0] * 15
    for card in parse_cards(" ".join(texts)):
        counts[card.position] += 1
    return counts


def hand_strength(counts: Sequence[int]) -> float:
    """How good a hand is to play as landlord against three farmers, in rough points (see the
    module's description).

    >>> hand_strength(counts_of_hand("RJ RJ BJ 2s 2h 2d As 7s 7h 7d 7c 7s".split()))
    19.0
    """
    score = 3.0 * counts[RED] + 2.5 * counts[BLACK] + 1.5 * counts[TWO] + 0.5 * counts[ACE]
    for p in range(13):
        if counts[p] >= 4:
            score += 4 + 1.5 * (counts[p] - 4)
    if counts[BLACK] >= 2 and counts[RED] >= 2:
        score += 8
    run = longest = 0
    for p in AXIS[1:]:
        run = run + 1 if counts[p] else 0
        longest = max(longest, run)
    if longest >= 8:
        score += 1
    lone = sum(
        1 for p in range(7) if counts[p] == 1 and not (p and counts[p - 1]) and not counts[p + 1]
    )
    return score - lone // 3


def hand_cost(counts: Sequence[int]) -> float:
    """About how many plays it takes to shed a hand, bombs counting as assets (see the module's
    description); remembered between calls.

    >>> hand_cost(counts_of_hand("3s 3h 4d 5c 6s 7s 2h 2d BJ".split()))  # 3-7, 3, 22, BJ
    2.6
    """
    return _hand_cost(bytes(counts))


@lru_cache(maxsize=100_000)
def _hand_cost(counts: bytes) -> float:
    c = list(counts)
    cost = 0.0
    if c[BLACK] >= 2 and c[RED] >= 2:
        c[BLACK] -= 2
        c[RED] -= 2
        cost += BOMB_COST
    for p in range(13):
        if c[p] >= 4:
            c[p] = 0
            cost += BOMB_COST
    # Airplanes: runs of triples, each with as many consecutive pairs as it has triples.
    for start, end in _runs(c, 3, 2):
        if any(c[AXIS[i]] < 3 for i in range(start, end)):
            continue  # its A went to the other end
        for i in range(start, end):
            c[AXIS[i]] -= 3
        cost += 1
        width = end - start
        for p_start, _ in _runs(c, 2, width):
            if all(c[AXIS[i]] == 2 for i in range(p_start, p_start + width)):
                for i in range(p_start, p_start + width):
                    c[AXIS[i]] -= 2
                break
    # Straights that take in at least two lone cards, the one taking most first.
    while True:
        best: tuple[int, int, int] | None = None
        for start, end in _runs(c, 1, 5):
            while end - start > 5 and c[AXIS[start]] != 1:
                start += 1  # leave out an end that is not a lone card
            while end - start > 5 and c[AXIS[end - 1]] != 1:
                end -= 1
            lone = sum(1 for i in range(start, end) if c[AXIS[i]] == 1)
            if lone >= 2 and (best is None or lone > best[0]):
                best = (lone, start, end)
        if best is None:
            break
        for i in range(best[1], best[2]):
            c[AXIS[i]] -= 1
        cost += 1
    # Sister pairs.
    for start, end in _runs(c, 2, 3):
        if all(c[AXIS[i]] == 2 for i in range(start, end)):
            for i in range(start, end):
                c[AXIS[i]] -= 2
            cost += 1
    # Triples, each carrying the lowest pair below the A (a full house, 呼路).
    for p in range(13):
        if c[p] == 3:
            c[p] = 0
            cost += 1
            for q in range(ACE):
                if c[q] == 2:
                    c[q] = 0
                    break
    for p in range(15):
        if c[p] == 1:
            cost += _SINGLE_COST[p]
        elif c[p] == 2:
            cost += _PAIR_COST[p]
    return round(cost, 6)


def clear_caches() -> None:
    """Forget every hand cost worked out so far (to time the bot as in a fresh process)."""
    _hand_cost.cache_clear()


def _runs(c: Sequence[int], need: int, shortest: int) -> list[tuple[int, int]]:
    """The maximal runs ``[start, end)`` along ``AXIS`` of ranks held ``need`` times or more, at
    least ``shortest`` long and at most 13 (an A is not used at both ends)."""
    runs = []
    i = 0
    n = len(AXIS)
    while i < n:
        if c[AXIS[i]] >= need:
            j = i
            while j + 1 < n and c[AXIS[j + 1]] >= need:
                j += 1
            start, end = i, j + 1
            if end - start > _LONGEST:
                start = end - _LONGEST
            if end - start >= shortest:
                runs.append((start, end))
            i = j + 1
        else:
            i += 1
    return runs


def _after(counts: Sequence[int], play: Play) -> bytes:
    gone = counts_of_mask(play.mask)
    return bytes(have - out for have, out in zip(counts, gone, strict=True))


class ShanghaiPolicy:
    """The sensible 上海斗地主 bot (see the module's description)."""

    name = "shanghai-sensible"
    #: It passes rather than follow with a play that costs its hand more than this (in plays):
    #: a farmer, the farmer just before the landlord, the landlord.
    pass_limit = 1.5
    last_farmer_limit = 3.0
    landlord_limit = 1.5
    #: Leading, how much each card a play sheds counts for it, in plays.
    size_weight = 0.01
    #: What following with a 2 or a joker costs while its hand is big and nobody is close to out.
    high_penalty = 0.5
    #: Bombs go when an opponent holds this many cards or fewer (the last allowed bomb: the other).
    danger = DANGER
    last_bomb_danger = LAST_BOMB_DANGER

    def choose(self, state_view: dict[str, Any], legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError("there are no legal actions to choose from")
        counts = counts_of_hand(state_view.get("hand", []))
        if state_view["phase"] == "bid":
            return self._bid(counts, legal)
        return self.choose_play(state_view, counts, legal)

    def choose_play(
        self, view: dict[str, Any], counts: list[int], legal: Sequence[Action]
    ) -> Action:
        """The play phase's choice, from the hand's counts by rank position (as ``choose``
        makes them from the view's hand; a playout that keeps masks makes them faster)."""
        plays = [action for action in legal if isinstance(action, Play)]
        if not plays:
            return PASS if PASS in legal else legal[0]
        return self._play(view, counts, plays, PASS in legal)

    def rank(self, state_view: dict[str, Any], legal: Sequence[Action]) -> list[Action]:
        """Every legal action, the one ``choose`` picks first, then the plays and the pass from
        the most to the least attractive by the same judgement (a bomb it would not spend now
        after the pass)."""
        if not legal:
            raise ValueError("there are no legal actions to choose from")
        first = self.choose(state_view, legal)
        plays = [action for action in legal if isinstance(action, Play)]
        scored: list[tuple[float, Action]] = []
        if state_view["phase"] == "play" and plays:
            counts = counts_of_hand(state_view.get("hand", []))
            seat, landlord = state_view["seat"], state_view["landlord"]
            danger = _danger(state_view)
            last_bomb = state_view["bombs_left"][seat] == 1
            table = state_view["table"]
            if table is None:
                partner_next = _partner_next(state_view)
                scored = [
                    (self._lead_score(play, counts, danger, last_bomb, partner_next), play)
                    for play in plays
                ]
            else:
                follows, held = self._follow_scores(state_view, counts, plays, danger)
                partner = seat != landlord and table["seat"] != landlord
                scored = [*follows, (-1.0 if partner else self._limit(state_view), PASS)]
                scored += [(10.0 + score, play) for score, play in held]
        ranked = [first]
        for _, action in sorted(scored, key=lambda item: item[0]):
            if action not in ranked and action in legal:
                ranked.append(action)
        ranked += [action for action in legal if action not in ranked]
        return ranked

    def _bid(self, counts: list[int], legal: Sequence[Action]) -> Action:
        strength = hand_strength(counts)
        if BIG in legal and strength >= BIG_AT:
            return BIG
        if SMALL in legal and strength >= SMALL_AT:
            return SMALL
        if NO_BID in legal:
            return NO_BID
        return next(a for a in legal if isinstance(a, Bid))

    def _play(
        self, view: dict[str, Any], counts: list[int], plays: list[Play], may_pass: bool
    ) -> Action:
        size = sum(counts)
        for play in plays:
            if play.size == size:
                return play  # out at once
        seat, landlord = view["seat"], view["landlord"]
        danger = _danger(view)
        last_bomb = view["bombs_left"][seat] == 1
        table = view["table"]
        if table is None:
            partner_next = _partner_next(view)
            return min(
                plays,
                key=lambda play: self._lead_score(play, counts, danger, last_bomb, partner_next),
            )
        if seat != landlord and table["seat"] != landlord:
            return PASS  # a partner's play stands: let it run
        follows, _ = self._follow_scores(view, counts, plays, danger)
        if not follows:
            return PASS
        best_score, best = min(follows, key=lambda item: item[0])
        if best_score > self._limit(view) and danger > DANGER and may_pass:
            return PASS  # it would break the hand up for little
        return best

    def _limit(self, view: dict[str, Any]) -> float:
        """How much an answer may cost the hand before the seat passes instead."""
        seat, landlord = view["seat"], view["landlord"]
        # The farmer just before the landlord is the last to stop its play coming back to it.
        if seat == landlord:
            return self.landlord_limit
        if (seat + 1) % SEATS == landlord:
            return self.last_farmer_limit
        return self.pass_limit

    def _follow_scores(
        self, view: dict[str, Any], counts: list[int], plays: list[Play], danger: int
    ) -> tuple[list[tuple[float, Play]], list[tuple[float, Play]]]:
        """Each answer's score (0: it sheds one play's worth and spoils nothing), and apart
        the bombs it would not spend now."""
        size = sum(counts)
        last_bomb = view["bombs_left"][view["seat"]] == 1
        before = hand_cost(counts)
        follows: list[tuple[float, Play]] = []
        held: list[tuple[float, Play]] = []
        for play in plays:
            combo = play.combo
            assert combo is not None
            left = hand_cost(_after(counts, play))
            score = left + 1 - before
            if combo.is_bomb:
                score += 0.5 + 0.05 * play.size + 0.001 * combo.rank  # the smallest bomb
                if last_bomb:
                    score += 0.5
                if left > 1.0 and danger > (self.last_bomb_danger if last_bomb else self.danger):
                    held.append((score, play))
                    continue
            else:
                if combo.rank >= TWO and not combo.kind.is_chain and danger > DANGER and size > 8:
                    score += self.high_penalty  # a 2 or a joker on small stuff, early
                if danger <= 2:
                    score -= 0.05 * combo.rank  # high, so that it holds
            follows.append((score, play))
        return follows, held

    def _lead_score(
        self, play: Play, counts: list[int], danger: int, last_bomb: bool, partner_next: int
    ) -> float:
        combo = play.combo
        assert combo is not None
        kind = combo.kind
        left = hand_cost(_after(counts, play))
        score = left - self.size_weight * play.size + 0.001 * combo.rank
        if combo.is_bomb:
            if left > 1.0:
                score += 1.5
            if last_bomb:
                score += 1.5
        elif combo.rank >= TWO and not kind.is_chain and sum(counts) > 8:
            score += 0.4
        if danger == 1 and kind is ComboKind.SINGLE:
            score += 3 - 0.1 * combo.rank  # if it must, its highest single
        if danger == 2 and kind is ComboKind.PAIR:
            score += 2 - 0.1 * combo.rank
        if partner_next == 1 and kind is ComboKind.SINGLE:
            score += 0.05 * combo.rank - 5  # its lowest single: the partner goes out on it
        if partner_next == 2 and kind is ComboKind.PAIR:
            score += 0.05 * combo.rank - 5
        return score

    def __repr__(self) -> str:
        return "ShanghaiPolicy()"


def _danger(view: dict[str, Any]) -> int:
    """The fewest cards an opponent of the view's seat holds."""
    seat, landlord = view["seat"], view["landlord"]
    hand_counts = view["hand_counts"]
    opponents = [s for s in range(SEATS) if s != seat] if seat == landlord else [landlord]
    return int(min(hand_counts[s] for s in opponents))


def _partner_next(view: dict[str, Any]) -> int:
    """The cards of the next seat when it is the farmer's partner, else 0."""
    seat, landlord = view["seat"], view["landlord"]
    nxt = (seat + 1) % SEATS
    return int(view["hand_counts"][nxt]) if seat != landlord and nxt != landlord else 0
