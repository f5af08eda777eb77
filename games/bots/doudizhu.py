"""A bot that plays classic 斗地主 the way a sensible person does.

It sees only its seat's view (its hand, the others' card counts, who is landlord, the table, the
public history) and its legal actions; it is deterministic. How it thinks:

* **The deal and 明牌**: it lets the deal run to its end and never shows its hand.
* **Bidding**: it rates its 17 cards (the red joker 4, the black 3, each 2 2, each bomb 6, each A
  1, minus 1 for every three low lone cards) and says 叫地主 at 7 or more, 抢地主 at 10 or more.
* **加倍**: when it may, at 12 or more as the landlord (its 20 cards), 9 or more as a farmer.
* **Splitting the hand**: it measures a hand by how many plays it takes to shed (rocket and bombs
  set apart as assets, then airplanes, straights that take in lone cards, pair straights,
  triples carrying the lowest lone card or pair, then pairs and singles; a 2, a joker or an A
  alone counts half, since it wins a round back). A play is judged by the hand it leaves.
* **It goes out at once** when its whole hand is one play.
* **Leading**, it sheds what leaves the best hand, the more cards the better at equal cost, so
  chains and airplanes go early; it keeps bombs and the rocket (and does not break a bomb into a
  four with two, which throws the bomb away to shed two cards), and as a farmer facing a landlord
  with one card left (or the landlord facing such a farmer) it leads no single it can avoid.
* **Following a partner** (a farmer after the other farmer's play), it passes unless the play
  empties its hand: it never beats its partner for nothing.
* **Following an opponent**, it answers with the play that spoils its hand least; it passes
  rather than break its hand badly, and spends a bomb, the rocket (or a bomb's four as a four
  with two) only when the opponent is about to go out (four cards or fewer) or when it then goes
  out itself, or nearly.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from games.rules.cards import Card
from games.rules.doudizhu.combos import ACE, BLACK, RED, TWO, ComboKind, counts_of_cards
from games.rules.doudizhu.movegen import rank_counts
from games.rules.doudizhu.moves import (
    CALL,
    DOUBLE,
    NO_CALL,
    NO_DOUBLE,
    NO_ROB,
    PASS,
    ROB,
    Action,
    DealOn,
    Play,
)

__all__ = ["DoudizhuPolicy", "hand_cost", "hand_strength"]


def hand_strength(counts: Sequence[int]) -> int:
    """How good a hand is to play as landlord, in rough points."""
    score = 4 * counts[RED] + 3 * counts[BLACK] + 2 * counts[TWO] + counts[ACE]
    score += 6 * sum(1 for p in range(13) if counts[p] == 4)
    low_lone = sum(1 for p in range(8) if counts[p] == 1)
    return score - low_lone // 3


def hand_cost(counts: Sequence[int]) -> float:
    """About how many plays it takes to shed a hand (see the module's description);
    remembered between calls (a search's playouts meet the same hands again and again)."""
    return _hand_cost(tuple(counts))


@lru_cache(maxsize=100_000)
def _hand_cost(counts: tuple[int, ...]) -> float:
    c = list(counts)
    cost = 0.0
    if c[BLACK] and c[RED]:
        c[BLACK] = c[RED] = 0
    for p in range(13):
        if c[p] == 4:
            c[p] = 0
    # Airplanes: runs of triples inside 3..A.
    p = 0
    while p <= ACE:
        if c[p] >= 3:
            q = p
            while q + 1 <= ACE and c[q + 1] >= 3:
                q += 1
            if q > p:
                for r in range(p, q + 1):
                    c[r] -= 3
                cost += 1
                # An airplane carries as many lone cards as it has triples.
                _take_kickers(c, q - p + 1, 1)
            p = q + 1
        else:
            p += 1
    # Straights that take in lone cards.
    while True:
        best = None
        for start in range(ACE - 3):
            end = start
            while end <= ACE and c[end] >= 1:
                end += 1
            if end - start >= 5:
                lone = sum(1 for r in range(start, end) if c[r] == 1)
                if lone >= 2 and (best is None or lone > best[0]):
                    best = (lone, start, end)
        if best is None:
            break
        for r in range(best[1], best[2]):
            c[r] -= 1
        cost += 1
    # Pair straights.
    p = 0
    while p <= ACE:
        if c[p] == 2:
            q = p
            while q + 1 <= ACE and c[q + 1] == 2:
                q += 1
            if q - p >= 2:
                for r in range(p, q + 1):
                    c[r] = 0
                cost += 1
            p = q + 1
        else:
            p += 1
    # Triples, each carrying the lowest lone card or pair.
    for p in range(13):
        if c[p] == 3:
            c[p] = 0
            cost += 1
            if not _take_kickers(c, 1, 1):
                _take_kickers(c, 1, 2)
    for p in range(15):
        if c[p]:
            cost += 0.5 if p >= ACE else 1.0
    return cost


def _take_kickers(c: list[int], number: int, width: int) -> bool:
    """Take ``number`` of the lowest lone cards (``width`` 1) or pairs (2) below the A."""
    found = [p for p in range(ACE) if c[p] == width][:number]
    if len(found) < number:
        return False
    for p in found:
        c[p] = 0
    return True


class DoudizhuPolicy:
    """The sensible 斗地主 bot (see the module's description)."""

    name = "doudizhu-sensible"

    def choose(self, state_view: dict[str, Any], legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError("there are no legal actions to choose from")
        phase = state_view["phase"]
        counts = counts_of_cards(Card.parse(text) for text in state_view.get("hand", []))
        if phase == "deal":
            deals = [a for a in legal if isinstance(a, DealOn)]
            return deals[-1] if deals else legal[0]
        if phase == "bid":
            strength = hand_strength(counts)
            if CALL in legal:
                return CALL if strength >= 7 else NO_CALL
            if ROB in legal:
                return ROB if strength >= 10 else NO_ROB
            return legal[0]
        if phase == "double":
            if DOUBLE not in legal:
                return NO_DOUBLE if NO_DOUBLE in legal else legal[0]
            landlord = state_view["landlord"] == state_view["seat"]
            return DOUBLE if hand_strength(counts) >= (12 if landlord else 9) else NO_DOUBLE
        return self.choose_play(state_view, counts, legal)

    def choose_play(
        self, view: dict[str, Any], counts: list[int], legal: Sequence[Action]
    ) -> Action:
        """The play phase's choice, from the hand's counts by rank position (as ``choose``
        makes them from the view's hand; a playout that keeps masks makes them faster)."""
        plays = [a for a in legal if isinstance(a, Play)]
        if not plays:
            return PASS if PASS in legal else legal[0]
        return self._play(view, counts, plays, PASS in legal)

    def rank(self, state_view: dict[str, Any], legal: Sequence[Action]) -> list[Action]:
        """Every legal action, the one ``choose`` picks first, then the plays and the pass from
        the most to the least attractive by the same judgement (a bomb it would not spend now
        after the pass), then the rest (明牌)."""
        if not legal:
            raise ValueError("there are no legal actions to choose from")
        first = self.choose(state_view, legal)
        plays = [a for a in legal if isinstance(a, Play)]
        scored: list[tuple[float, Action]] = []
        if state_view["phase"] == "play" and plays:
            counts = counts_of_cards(Card.parse(text) for text in state_view.get("hand", []))
            danger = _danger(state_view)
            table = state_view["table"]
            if table is None:
                scored = [(self._lead_score(play, counts, danger), play) for play in plays]
            else:
                follows, held = self._follow_scores(state_view, counts, plays, danger)
                partner = state_view["seat"] != state_view["landlord"] and (
                    table["seat"] != state_view["landlord"]
                )
                scored = [*follows, (-1.0 if partner else 1.0, PASS)]
                scored += [(10.0 + score, play) for score, play in held]
        ranked = [first]
        for _, action in sorted(scored, key=lambda item: item[0]):
            if action not in ranked and action in legal:
                ranked.append(action)
        ranked += [action for action in legal if action not in ranked]
        return ranked

    def _play(
        self, view: dict[str, Any], counts: list[int], plays: list[Play], may_pass: bool
    ) -> Action:
        size = sum(counts)
        for play in plays:
            if play.size == size:
                return play  # out at once
        seat, landlord = view["seat"], view["landlord"]
        danger = _danger(view)
        table = view["table"]
        if table is None:
            return min(plays, key=lambda play: self._lead_score(play, counts, danger))
        if seat != landlord and table["seat"] != landlord:
            return PASS  # the partner's play: let it run
        follows, _ = self._follow_scores(view, counts, plays, danger)
        if not follows:
            return PASS
        best_score, best = min(follows, key=lambda item: item[0])
        if best_score > 1.0 and danger > 4 and may_pass:
            return PASS  # it would break the hand up for little
        return best

    def _follow_scores(
        self, view: dict[str, Any], counts: list[int], plays: list[Play], danger: int
    ) -> tuple[list[tuple[float, Play]], list[tuple[float, Play]]]:
        """Each answer's score (0: it sheds one play's worth and spoils nothing), and apart
        the bombs it would not spend now."""
        size = sum(counts)
        before = hand_cost(counts)
        follows: list[tuple[float, Play]] = []
        held: list[tuple[float, Play]] = []
        for play in plays:
            after = _after(counts, play)
            left = hand_cost(after)
            score = left + 1 - before
            assert play.combo is not None
            if play.combo.is_bomb or play.combo.kind in _FOUR_WITH_TWO:
                score += 0.5
                if danger > 4 and left > 1:
                    held.append((score, play))
                    continue
            elif play.combo.rank >= TWO and danger > 4 and size > 6:
                score += 0.5  # a 2 or a joker on small stuff, early
            follows.append((score, play))
        return follows, held

    def _lead_score(self, play: Play, counts: list[int], danger: int) -> float:
        combo = play.combo
        assert combo is not None
        score = hand_cost(_after(counts, play)) - 0.01 * play.size + 0.001 * combo.rank
        if combo.is_bomb or combo.kind in _FOUR_WITH_TWO:
            score += 1.5
        elif combo.rank >= TWO and sum(counts) > 6:
            score += 0.4
        if danger == 1 and combo.kind is ComboKind.SINGLE:
            score += 3 - 0.1 * combo.rank  # if it must, its highest single
        if danger == 2 and combo.kind is ComboKind.PAIR:
            score += 2 - 0.1 * combo.rank
        return score

    def __repr__(self) -> str:
        return "DoudizhuPolicy()"


_FOUR_WITH_TWO = (ComboKind.FOUR_TWO_SINGLES, ComboKind.FOUR_TWO_PAIRS)


def _danger(view: dict[str, Any]) -> int:
    """The fewest cards an opponent of the view's seat holds."""
    seat, landlord = view["seat"], view["landlord"]
    counts_by_seat = view["hand_counts"]
    opponents = [s for s in range(3) if s != seat and (seat == landlord or s == landlord)]
    return int(min(counts_by_seat[s] for s in opponents))


def _after(counts: Sequence[int], play: Play) -> list[int]:
    played = rank_counts(play.mask)
    return [have - gone for have, gone in zip(counts, played, strict=True)]
