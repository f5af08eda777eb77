"""A bot that thinks ahead: determinized search over the hidden cards (perfect-information
Monte Carlo), with the sensible bot's judgement for its candidates and its playouts.

How it chooses, in plain words (``docs/bots.md`` tells it at more length, with its figures):

* **Trivial cases at once.** One legal move, or a play that empties its hand: no search.
* **Candidates.** The sensible bot ranks the legal moves (``SensiblePolicy.rank``); the search
  weighs its first few (``candidates``, 4 by default), the sensible choice always first.
* **Worlds.** It does not know the others' hands nor the stock's order, only how many cards each
  holds and every card played so far (the view's history). A *world* deals the unseen cards (the
  deck less its own hand and every card played) at random into the other hands, as many as each
  holds, and the rest into the stock, in a random order (``sample_world``): a whole ``GameState``
  that agrees with everything its seat has seen, built with the view's house rules.
* **Worlds that agree with the others' moves.** Within a round nobody draws, so a world also
  tells what each other seat held at each of its moves this round (its hand now and what it
  played since). Of up to ``consistent_tries`` worlds it keeps the first in which a sensible bot
  with those hands would have made every one of those moves (passes included), or else the one
  that agrees with most: a seat that passed on a single it could have beaten cheaply is seldom
  dealt that single. The real hidden cards of a game among sensible bots always agree.
* **Playouts.** In each world, each candidate is played, then the game is played out to its end
  by sensible bots in every seat (its own included), each judging from its own hand and the cards
  it has not seen. The result is what the game pays its seat (``settle``), in units of
  ``base × multiplier so far``, plus ``win_bonus`` when its seat goes out first: a win is worth
  more than its payment, so that it plays to win the game, not only to make the others pay.
* **Dropping the surely worse.** A candidate that six worlds show surely worse than the
  sensible choice is played no more; its playouts go to more worlds for the others.
* **The choice.** Every candidate is played out in the same worlds, so their results differ only
  by the move; after as many worlds as the budget allows, it takes the candidate with the best
  average result. The sensible choice keeps its place unless another does better in the same
  worlds by more than a margin (``margin``) and by more than ``confidence`` standard errors of
  the worlds' differences, which keeps noise from overturning it.

The loop is ``games.bots.determinized``'s, shared with the other games' searches. Its budget
is an iteration cap (``iterations``: playouts in all) and a time budget
(``budget_ms``) as a safety stop: it stops at whichever comes first, and only between worlds, so
every candidate has had the same worlds (it does not start a world it has no time to finish, at
the pace of the worlds so far; a world cut short by the clock does not count). Its random
generator is seeded from ``seed`` and the view, so the same view, seed and iteration cap always
give the same choice (when the time budget does not cut the search short: ``budget_ms=None``
turns it off).

It sees only its seat's view (``state.view_for(seat)``) and the legal moves, never the state.

>>> from games.rules.gandengyan import GameState
>>> state = GameState.from_position(["3s 4h 5d", "6s 7s", "Qs Kd"], stock="", dealer=0)
>>> str(SearchPolicy(seed=1).choose(state.view_for(0), state.legal_moves()))
'3s 4h 5d'
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from typing import Any

from games.rules.cards import CARDS, DECK_MASK
from games.rules.errors import IllegalMoveError
from games.rules.gandengyan import GameState
from games.rules.gandengyan.game import TablePlay
from games.rules.gandengyan.moves import Move, Play, move_from_json
from games.rules.gandengyan.options import GandengyanRules
from games.rules.gandengyan.settlement import settle
from games.rules.history import LogNode

from .determinized import DEFAULT_BUDGET_MS, DeterminizedPolicy, mask_indexes
from .sensible import KNOWN_MASKS, SensiblePolicy

__all__ = [
    "DEFAULT_BUDGET_MS",
    "DEFAULT_CONSISTENT_TRIES",
    "DEFAULT_ITERATIONS",
    "DEFAULT_WIN_BONUS",
    "SearchPolicy",
    "sample_world",
    "unseen_cards",
]

#: The most playouts per move, by default.
DEFAULT_ITERATIONS = 160
#: What going out first adds to a playout's result, by default (in payments of base × the
#: multiplier so far: a win is worth about ten cards more than its payment).
DEFAULT_WIN_BONUS = 10.0
#: How many worlds it samples, at most, to find one that agrees with the others' moves of the
#: current round, by default.
DEFAULT_CONSISTENT_TRIES = 8

_BIT_BY_TEXT: dict[str, int] = {str(card): card.bit for card in CARDS}
_TEXT: tuple[str, ...] = tuple(str(card) for card in CARDS)
_MAX_ACTIONS = 2_000


def _mask(texts: Sequence[str] | str) -> int:
    if isinstance(texts, str):
        texts = texts.split()
    mask = 0
    for text in texts:
        mask |= _BIT_BY_TEXT[text]
    return mask


def unseen_cards(view: dict[str, Any]) -> int:
    """The cards the view's seat has not seen, as a mask: the deck less its own hand and every
    card played so far (the others' hands and the stock hold exactly these)."""
    played = 0
    for action in view.get("history") or ():
        cards = action.get("play")
        if cards:
            played |= _mask(cards)
    return DECK_MASK & ~_mask(view.get("hand") or ()) & ~played


class _Known:
    """What every world of one view shares: everything public, built once per choice."""

    __slots__ = (
        "counts",
        "dealer",
        "hand",
        "log",
        "log_length",
        "multiplier",
        "passes",
        "plays_made",
        "round",
        "round_log",
        "round_played",
        "round_start",
        "rules",
        "seat",
        "stock",
        "table",
        "unseen",
    )

    def __init__(self, view: dict[str, Any]) -> None:
        self.seat: int = view["seat"]
        self.rules = GandengyanRules.from_dict(view.get("rules") or {})
        self.counts: list[int] = list(view["hand_counts"])
        self.hand = _mask(view.get("hand") or ())
        self.stock = int(view.get("stock") or 0)
        self.dealer = int(view.get("dealer") or 0)
        self.passes = int(view.get("passes") or 0)
        self.multiplier = int(view.get("multiplier") or 1)
        history = view.get("history") or []
        plays_made = [0] * len(self.counts)
        log: LogNode[Move] | None = None
        last_play: tuple[int, Move] | None = None
        self.round_start = int(view.get("round_start") or 0)
        self.round_log = None if self.round_start else log
        #: The current round's actions, oldest first: (seat, move, index in the history).
        self.round: list[tuple[int, Move, int]] = []
        #: The cards played before each of them.
        self.round_played: list[int] = []
        played = 0
        for index, action in enumerate(history):
            seat = int(action["seat"])
            move = move_from_json({k: v for k, v in action.items() if k != "seat"})
            if index == self.round_start:
                self.round_log = log
            if index >= self.round_start:
                self.round.append((seat, move, index))
                self.round_played.append(played)
            if isinstance(move, Play):
                played |= move.mask
            log = (log, seat, move)
            if isinstance(move, Play):
                plays_made[seat] += 1
                last_play = (seat, move)
        self.log = log
        self.log_length = len(history)
        if self.round_start > len(history):  # a view without its history
            self.round, self.round_played = [], []
        self.plays_made = tuple(plays_made)
        table = view.get("table")
        self.table: TablePlay | None = None
        if table is not None:
            if last_play is not None and last_play[0] == table["seat"]:
                seat, move = last_play
            else:  # a view without its history
                seat = int(table["seat"])
                move = move_from_json({"play": table["cards"], "as": table["as"]})
            assert isinstance(move, Play)
            self.table = TablePlay(seat, move)
        unseen = unseen_cards(view)
        self.unseen = [card.index for card in CARDS if unseen & card.bit]


def sample_world(
    view: dict[str, Any], rng: random.Random, known: _Known | None = None
) -> GameState:
    """A whole game state that agrees with everything the view's seat has seen: its own hand,
    each other seat holding as many unseen cards as it has, the rest of the unseen cards in the
    stock in a random order, and the public position (table, passes, multiplier, history).

    Only the view is read. The view must hold the history (``view_for(seat)`` does): without it
    the played cards cannot be told from the hidden ones. In a real deal the unseen cards are
    exactly as many as the others' hands and the stock hold; a position made up with fewer than
    54 cards leaves the surplus out of the world.
    """
    known = known or _Known(view)
    cards = known.unseen[:]
    rng.shuffle(cards)
    hands = []
    position = 0
    for seat, count in enumerate(known.counts):
        if seat == known.seat:
            hands.append(known.hand)
            continue
        mask = 0
        for index in cards[position : position + count]:
            mask |= 1 << index
        hands.append(mask)
        position += count
    stock = tuple(cards[position : position + known.stock])
    if len(stock) != known.stock:
        raise ValueError("the view's card counts add up to more cards than it has not seen")
    fields = (
        known.rules,
        known.dealer,
        tuple(hands),
        tuple(hands),
        stock,
        0,
        known.seat,
        known.table,
        known.passes,
        known.multiplier,
        known.plays_made,
        None,
        known.log,
        known.log_length,
        known.round_start,
    )
    return GameState._make(fields)


class GandengyanSearch:
    """干瞪眼 for the search loop (``games.bots.determinized.SearchGame``), with the sensible bot
    as its judgement: see the module's description."""

    def __init__(self, *, win_bonus: float, consistent_tries: int) -> None:
        self.judge = SensiblePolicy()
        self.win_bonus = win_bonus
        self.consistent_tries = consistent_tries

    def obvious(self, view: dict[str, Any], legal: Sequence[Move]) -> Move | None:
        hand_size = len(view.get("hand") or ())
        for move in legal:
            if isinstance(move, Play) and move.size == hand_size:
                return self.judge.choose(view, legal)  # goes out: its safest meaning
        return None

    def rank(self, view: dict[str, Any], legal: Sequence[Move]) -> list[Move]:
        return self.judge.rank(view, legal)

    def sampler(self, view: dict[str, Any]) -> Callable[[random.Random], GameState]:
        known = _Known(view)
        return functools.partial(self._sample, view, known=known)

    def playout(self, world: GameState, move: Move) -> tuple[float, bool]:
        seat = world.to_move
        assert seat is not None
        return _playout(world.apply(seat, move), seat, self.judge)

    def payoff(self, view: dict[str, Any]) -> Callable[[tuple[float, bool]], float]:
        scale = int(view.get("multiplier") or 1)
        bonus = self.win_bonus

        def paid(end: tuple[float, bool]) -> float:
            payment, won = end
            return payment / scale + (bonus if won else 0.0)

        return paid

    def _sample(self, view: dict[str, Any], rng: random.Random, *, known: _Known) -> GameState:
        """A world, preferring one in which the others' moves of this round are the ones a
        sensible bot would have made with the hands it gives them (of ``consistent_tries``
        sampled, the first that agrees with all of them, else the one that agrees with most)."""
        world = sample_world(view, rng, known)
        if self.consistent_tries <= 1 or not any(s != known.seat for s, _, _ in known.round):
            return world
        best, best_misses = world, _disagreements(world, known, self.judge)
        for _ in range(self.consistent_tries - 1):
            if not best_misses:
                break
            world = sample_world(view, rng, known)
            misses = _disagreements(world, known, self.judge)
            if misses < best_misses:
                best, best_misses = world, misses
        return best


class SearchPolicy(DeterminizedPolicy[Move, GameState, tuple[float, bool]]):
    """The 干瞪眼 search bot: see the module's description.

    ``seed`` seeds its worlds; ``iterations`` caps the playouts per move and ``budget_ms`` the
    time (None: no time limit, for fully reproducible runs); ``candidates`` is how many of the
    sensible bot's best moves it weighs; ``margin`` how much better (in payments of
    ``base × multiplier``, per game) another move must do to displace the sensible choice, and
    ``confidence`` by how many standard errors; ``win_bonus`` what going out first adds to a
    playout's result; ``consistent_tries`` how many worlds it samples, at most, for one that
    agrees with the others' moves of the round (1: any world).
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        budget_ms: float | None = DEFAULT_BUDGET_MS,
        iterations: int = DEFAULT_ITERATIONS,
        candidates: int = 4,
        margin: float = 0.05,
        confidence: float = 1.0,
        win_bonus: float = DEFAULT_WIN_BONUS,
        consistent_tries: int = DEFAULT_CONSISTENT_TRIES,
    ) -> None:
        game = GandengyanSearch(win_bonus=win_bonus, consistent_tries=consistent_tries)
        super().__init__(
            game,
            name="search",
            seed=seed,
            budget_ms=budget_ms,
            iterations=iterations,
            candidates=candidates,
            margin=margin,
            confidence=confidence,
        )
        self.judge = game.judge
        self.win_bonus = win_bonus
        self.consistent_tries = consistent_tries

    def __repr__(self) -> str:
        return (
            f"SearchPolicy(seed={self.seed}, budget_ms={self.budget_ms}, "
            f"iterations={self.iterations})"
        )


def _lean_view(state: GameState, seat: int, unseen: int) -> dict[str, Any]:
    """What the sensible bot reads of ``state.view_for(seat)``, built without the rest (a
    playout asks for thousands): the hand, the cards ``seat`` has not seen (``unseen``) and the
    rules come worked out already (``KNOWN_MASKS``)."""
    table = state.table
    hands = state.hands
    return {
        "seat": seat,
        "hand_counts": [hand.bit_count() for hand in hands],
        "stock": len(state.stock) - state.stock_position,
        "table": None
        if table is None
        else {"seat": table.seat, "cards": _cards_text(table.play.mask)},
        "passes": state.passes,
        KNOWN_MASKS: (hands[seat], unseen, state.rules),
    }


@functools.lru_cache(maxsize=4096)
def _cards_text(mask: int) -> str:
    return " ".join(_TEXT[i] for i in mask_indexes(mask))


def _disagreements(world: GameState, known: _Known, judge: SensiblePolicy) -> int:
    """How many of the others' moves of this round ``judge`` would not have made with the
    hands ``world`` gives them (each hand then was its hand now and what it played since)."""
    if not known.round:
        return 0
    hands = list(world.hands)
    for seat, move, _ in known.round:
        if isinstance(move, Play):
            hands[seat] |= move.mask
    fields = (
        known.rules,
        known.dealer,
        tuple(hands),
        tuple(hands),
        world.stock,
        0,
        known.round[0][0],
        None,
        0,
        known.multiplier,
        known.plays_made,
        None,
        known.round_log,
        known.round_start,
        known.round_start,
    )
    state = GameState._make(fields)
    misses = 0
    for (seat, move, _), played in zip(known.round, known.round_played, strict=True):
        if seat != known.seat:
            legal = state.legal_moves()
            if len(legal) > 1:
                unseen = DECK_MASK & ~state.hands[seat] & ~played
                choice = judge.choose(_lean_view(state, seat, unseen), legal)
                if isinstance(choice, Play) != isinstance(move, Play) or (
                    isinstance(choice, Play) and isinstance(move, Play) and choice.mask != move.mask
                ):
                    misses += 1
        try:
            state = state.apply(seat, move)
        except IllegalMoveError:  # cannot happen in a world of a real game
            return misses + len(known.round)
    return misses


def _playout(state: GameState, seat: int, policy: SensiblePolicy) -> tuple[float, bool]:
    """Play ``state`` out with ``policy`` in every seat: what the end pays ``seat`` at base 1,
    and whether ``seat`` went out first.

    Each seat judges as from its own view with the history: the cards it has not seen are the
    others' hands and the stock (in a world of a whole deck, everything else has been played).
    """
    stock = state.stock
    left_in_stock = [0] * (len(stock) + 1)  # the cards from each stock position on
    for position in range(len(stock) - 1, -1, -1):
        left_in_stock[position] = left_in_stock[position + 1] | (1 << stock[position])
    for _ in range(_MAX_ACTIONS):
        mover = state.to_move
        if mover is None:
            break
        legal = state.legal_moves()
        if not legal:  # no world of a real game gets here; a made-up one might
            return 0.0, False
        if len(legal) == 1:
            move = legal[0]
        else:
            hands = state.hands
            others = 0
            for other, hand in enumerate(hands):
                if other != mover:
                    others |= hand
            unseen = others | left_in_stock[state.stock_position]
            move = policy.choose(_lean_view(state, mover, unseen), legal)
        state = state.apply(mover, move)
    else:
        return 0.0, False
    return float(settle(state, base=1).payments[seat]), state.winner == seat
