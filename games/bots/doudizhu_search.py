"""A 斗地主 bot that thinks ahead: the determinized search of ``games.bots.determinized`` over
the hidden cards, with the sensible 斗地主 bot (``DoudizhuPolicy``) for its candidates and
playouts.

Only the play phase is searched: the deal, the bidding, 明牌 and 加倍 are the sensible bot's.
In the play:

* **At once**: one legal action, or a play that empties its hand (the sensible bot's), or a
  single candidate.
* **Candidates**: the sensible bot's three best (``DoudizhuPolicy.rank``), its choice first.
* **Worlds** (``DoudizhuWorlds``): the cards it has not seen (the deck less its hand, every card
  played in this deal, the hands shown by 明牌, and the bottom cards still in the landlord's
  hand) dealt at random into the hidden hands, as many as each holds; the landlord holds the
  bottom cards it has not played. Nothing more is inferred (a pass may be a choice).
* **Playouts**: the sensible bot in every seat, each seeing only its own hand; the result is
  what the engine's settlement pays its seat, divided by the multiplier so far (a farmer's is its
  team's: both farmers win or lose together).

>>> from games.rules.doudizhu import GameState
>>> state = GameState.play_position(["3s 4s 5s 6s 7s", "8s 9s", "Ts Js"], landlord=0)
>>> str(make_doudizhu_search(seed=1).choose(state.view(0), state.legal_actions(0)))
'3s 4s 5s 6s 7s'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from games.rules.cards import DECK_MASK, parse_cards
from games.rules.doudizhu import GameState
from games.rules.doudizhu.game import DEAL_STEPS, Deal, TablePlay
from games.rules.doudizhu.movegen import rank_counts
from games.rules.doudizhu.moves import Action, Pass, Play, Show, action_from_json
from games.rules.doudizhu.options import STANDARD
from games.rules.doudizhu.settlement import settle

from .determinized import DEFAULT_BUDGET_MS, DeterminizedPolicy
from .doudizhu import DoudizhuPolicy
from .hidden_hands import HiddenHands

__all__ = [
    "DEFAULT_ITERATIONS",
    "DoudizhuSearch",
    "DoudizhuWorlds",
    "make_doudizhu_search",
]

#: The most playouts per move, by default (the time budget usually stops it first).
DEFAULT_ITERATIONS = 90
_MAX_ACTIONS = 500


def _mask(texts: Sequence[str] | str) -> int:
    if isinstance(texts, str):
        texts = texts.split()
    mask = 0
    for card in parse_cards(" ".join(texts)):
        mask |= card.bit
    return mask


class DoudizhuWorlds(HiddenHands):
    """Everything public in a play-phase view, read once, and worlds made from it (``sample``):
    the hands as ``HiddenHands`` deals them and the rest of the position as the view states it."""

    def __init__(self, view: dict[str, Any]) -> None:
        super().__init__(view, mask_of=_mask, deck_mask=DECK_MASK)
        bottom = parse_cards(" ".join(view.get("bottom") or ()))
        table = view.get("table")
        self.table = (
            None
            if table is None
            else TablePlay(int(table["seat"]), Play(parse_cards(table["cards"])))
        )
        shows = []
        for show in view.get("shows") or ():
            action = action_from_json({k: v for k, v in show.items() if k != "seat"})
            assert isinstance(action, Show)
            shows.append((int(show["seat"]), action))
        self.shows = tuple(shows)
        multipliers = view.get("multipliers") or {}
        self.robs = int(multipliers.get("rob", 1)).bit_length() - 1
        self.bombs = int(multipliers.get("bombs", 1)).bit_length() - 1
        self.doubles = tuple(bool(d) for d in view.get("doubles") or (False,) * 3)
        self.plays_made = tuple(int(n) for n in view.get("plays_made") or (0, 0, 0))
        self.deal = Deal(None, ((), (), ()), bottom, int(view.get("first_bidder") or 0), 0)
        self.to_move: int | None = view.get("to_move", self.seat)
        self.passes = int(view.get("passes") or 0)
        self.log_length = len(view.get("history") or ())

    def sample(self, rng: random.Random) -> GameState:
        """A whole state agreeing with everything public: the hidden cards dealt at random."""
        hands = self.deal_hands(rng)
        return GameState._make(
            (
                STANDARD,
                (self.deal,),
                (),
                None,
                DEAL_STEPS,
                self.shows,
                (),
                self.deal.first_bidder,
                self.landlord,
                self.robs,
                hands,
                self.doubles,
                self.to_move,
                self.table,
                self.passes,
                self.bombs,
                self.plays_made,
                None,
                None,
                self.log_length,
            )
        )


def _lean_view(state: GameState, seat: int) -> dict[str, Any]:
    """The part of a play-phase view that ``DoudizhuPolicy.choose_play`` reads."""
    table = state.table
    return {
        "phase": "play",
        "seat": seat,
        "landlord": state.landlord,
        "hand_counts": [hand.bit_count() for hand in state.hands],
        "table": None if table is None else {"seat": table.seat},
    }


class DoudizhuSearch:
    """斗地主 for the search (``games.bots.determinized.SearchGame``)."""

    def __init__(self) -> None:
        self.judge = DoudizhuPolicy()

    def obvious(self, view: dict[str, Any], legal: Sequence[Action]) -> Action | None:
        if view.get("phase") != "play":
            return self.judge.choose(view, legal)
        size = len(view.get("hand") or ())
        if sum(isinstance(a, Play | Pass) for a in legal) <= 1 or any(
            isinstance(a, Play) and a.size == size for a in legal
        ):
            return self.judge.choose(view, legal)
        return None

    def rank(self, view: dict[str, Any], legal: Sequence[Action]) -> list[Action]:
        return [a for a in self.judge.rank(view, legal) if isinstance(a, Play | Pass)]

    def sampler(self, view: dict[str, Any]) -> Callable[[random.Random], GameState]:
        return DoudizhuWorlds(view).sample

    def playout(self, world: GameState, action: Action) -> GameState:
        seat = world.to_move
        assert seat is not None
        return play_out(world.apply(seat, action), self.judge)

    def payoff(self, view: dict[str, Any]) -> Callable[[GameState], float]:
        seat = view["seat"]
        scale = float(view.get("multiplier") or 1)

        def paid(end: GameState) -> float:
            if end.winner is None:
                return 0.0
            return float(settle(end, base=1).payments[seat]) / scale

        return paid


def play_out(state: GameState, policy: DoudizhuPolicy) -> GameState:
    """``state`` played to its end by ``policy`` in every seat, each seeing its own hand only
    (a game that does not end within 500 actions stops where it is)."""
    for _ in range(_MAX_ACTIONS):
        mover = state.to_move
        if mover is None:
            break
        legal = state.legal_moves()
        if len(legal) == 1:
            action: Action = legal[0]
        else:
            counts = rank_counts(state.hands[mover])
            action = policy.choose_play(_lean_view(state, mover), counts, legal)
        state = state.apply(mover, action)
    return state


def make_doudizhu_search(
    seed: int = 0,
    *,
    budget_ms: float | None = DEFAULT_BUDGET_MS,
    iterations: int = DEFAULT_ITERATIONS,
    candidates: int = 3,
) -> DeterminizedPolicy[Action, GameState, GameState]:
    """The 斗地主 search bot (``make_policy("search", game="doudizhu")``)."""
    return DeterminizedPolicy(
        DoudizhuSearch(),
        name="doudizhu-search",
        seed=seed,
        budget_ms=budget_ms,
        iterations=iterations,
        candidates=candidates,
    )
