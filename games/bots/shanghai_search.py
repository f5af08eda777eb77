"""A 上海斗地主 bot that thinks ahead: the determinized search of ``games.bots.determinized``
over the hidden cards, with the sensible 上海斗地主 bot (``ShanghaiPolicy``) for its candidates
and playouts.

Only the play phase is searched: the bidding (小地主, 大地主) is the sensible bot's. In the
play:

* **At once**: one legal action, or a play that empties its hand (the sensible bot's), or a
  single candidate.
* **Candidates**: the sensible bot's three best (``ShanghaiPolicy.rank``), its choice first.
* **Worlds** (``ShanghaiWorlds``): two decks, so every card is one copy of two (``As.1``,
  ``As.2``); the copies it has not seen (the 108 less its hand, every copy played in this deal,
  and the bottom copies still in the landlord's hand) are dealt at random into the other hands,
  as many as each holds; the landlord holds the bottom copies it has not played. Nothing more is
  inferred.
* **Playouts**: the sensible bot in every seat, each seeing only its own hand, every seat's
  bombs allowed as the bidding set them; the result is what the settlement pays its seat, in
  units of its stake (+1 won, −1 lost: a farmer wins or loses with its team).

>>> from games.rules.shanghai import GameState
>>> state = GameState.play_position(["3s 4s 5s 6s 7s", "8s 9s", "Ts Js", "Qs Ks"], landlord=0)
>>> str(make_shanghai_search(seed=1).choose(state.view(0), state.legal_actions(0)))
'3s.1 4s.1 5s.1 6s.1 7s.1'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from games.rules.shanghai import GameState
from games.rules.shanghai.cards import DECK_MASK, parse_cards
from games.rules.shanghai.combos import counts_of_mask
from games.rules.shanghai.game import SEATS, Deal, TablePlay
from games.rules.shanghai.moves import Action, Pass, Play
from games.rules.shanghai.options import STANDARD
from games.rules.shanghai.settlement import settle

from .determinized import DEFAULT_BUDGET_MS, DeterminizedPolicy
from .hidden_hands import HiddenHands
from .shanghai import ShanghaiPolicy

__all__ = [
    "DEFAULT_ITERATIONS",
    "ShanghaiSearch",
    "ShanghaiWorlds",
    "make_shanghai_search",
]

#: The most playouts per move, by default (the time budget usually stops it first).
DEFAULT_ITERATIONS = 60
_MAX_ACTIONS = 800
_LEVELS = {"small": 1, "big": 2}


def _mask(texts: Sequence[str] | str) -> int:
    """The copies named by card texts as views write them (each with its deck)."""
    if isinstance(texts, str):
        texts = texts.split()
    mask = 0
    for card in parse_cards(" ".join(texts)):
        mask |= card.bit
    return mask


class ShanghaiWorlds(HiddenHands):
    """Everything public in a play-phase view, read once, and worlds made from it (``sample``):
    the hands as ``HiddenHands`` deals them and the rest of the position as the view states it."""

    def __init__(self, view: dict[str, Any]) -> None:
        super().__init__(view, mask_of=_mask, deck_mask=DECK_MASK)
        bottom = parse_cards(" ".join(view.get("bottom") or ()))
        table = view.get("table")
        self.table = (
            None
            if table is None
            else TablePlay(int(table["seat"]), Play.from_mask(_mask(table["cards"])))
        )
        self.level = _LEVELS[view.get("bid") or "small"]
        self.bombs_left: tuple[int | None, ...] = tuple(view["bombs_left"])
        self.bombs_played = tuple(int(n) for n in view.get("bombs_played") or (0,) * SEATS)
        self.plays_made = tuple(int(n) for n in view.get("plays_made") or (0,) * SEATS)
        face_up = view.get("face_up")
        self.deal = Deal(
            None,
            ((),) * SEATS,
            bottom,
            None if face_up is None else parse_cards(face_up)[0],
            int(view.get("first_bidder") or 0),
            0,
        )
        self.to_move: int | None = view.get("to_move", self.seat)
        self.passes = int(view.get("passes") or 0)
        self.log_length = len(view.get("history") or ())

    def sample(self, rng: random.Random) -> GameState:
        """A whole state agreeing with everything public: the hidden copies dealt at random."""
        hands = self.deal_hands(rng)
        return GameState._make(
            (
                STANDARD,
                (self.deal,),
                (),
                (),
                self.deal.first_bidder,
                self.landlord,
                self.level,
                hands,
                self.bombs_left,
                self.to_move,
                self.table,
                self.passes,
                self.bombs_played,
                self.plays_made,
                None,
                None,
                self.log_length,
            )
        )


def _lean_view(state: GameState, seat: int) -> dict[str, Any]:
    """The part of a play-phase view that ``ShanghaiPolicy.choose_play`` reads."""
    table = state.table
    return {
        "phase": "play",
        "seat": seat,
        "landlord": state.landlord,
        "hand_counts": [hand.bit_count() for hand in state.hands],
        "bombs_left": state.bombs_left,
        "table": None if table is None else {"seat": table.seat},
    }


class ShanghaiSearch:
    """上海斗地主 for the search (``games.bots.determinized.SearchGame``)."""

    def __init__(self) -> None:
        self.judge = ShanghaiPolicy()

    def obvious(self, view: dict[str, Any], legal: Sequence[Action]) -> Action | None:
        if view.get("phase") != "play":
            return self.judge.choose(view, legal)
        size = len(view.get("hand") or ())
        if any(isinstance(a, Play) and a.size == size for a in legal):
            return self.judge.choose(view, legal)
        return None

    def rank(self, view: dict[str, Any], legal: Sequence[Action]) -> list[Action]:
        return [a for a in self.judge.rank(view, legal) if isinstance(a, Play | Pass)]

    def sampler(self, view: dict[str, Any]) -> Callable[[random.Random], GameState]:
        return ShanghaiWorlds(view).sample

    def playout(self, world: GameState, action: Action) -> GameState:
        seat = world.to_move
        assert seat is not None
        return play_out(world.apply(seat, action), self.judge)

    def payoff(self, view: dict[str, Any]) -> Callable[[GameState], float]:
        seat = view["seat"]

        def paid(end: GameState) -> float:
            if end.winner is None:
                return 0.0
            payments = settle(end, base=1).payments
            stake = abs(payments[seat]) or 1
            return float(payments[seat]) / stake

        return paid


def play_out(state: GameState, policy: ShanghaiPolicy) -> GameState:
    """``state`` played to its end by ``policy`` in every seat, each seeing its own hand only
    (a game that does not end within 800 actions stops where it is)."""
    for _ in range(_MAX_ACTIONS):
        mover = state.to_move
        if mover is None:
            break
        legal = state.legal_moves()
        if len(legal) == 1:
            action: Action = legal[0]
        else:
            counts = list(counts_of_mask(state.hands[mover]))
            action = policy.choose_play(_lean_view(state, mover), counts, legal)
        state = state.apply(mover, action)
    return state


def make_shanghai_search(
    seed: int = 0,
    *,
    budget_ms: float | None = DEFAULT_BUDGET_MS,
    iterations: int = DEFAULT_ITERATIONS,
    candidates: int = 3,
) -> DeterminizedPolicy[Action, GameState, GameState]:
    """The 上海斗地主 search bot (``make_policy("search", game="shanghai")``)."""
    return DeterminizedPolicy(
        ShanghaiSearch(),
        name="shanghai-search",
        seed=seed,
        budget_ms=budget_ms,
        iterations=iterations,
        candidates=candidates,
    )
