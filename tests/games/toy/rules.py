"""High card (``highcard``): a tiny second game behind the engine protocol, for the tests.

It exists to show that the platform plays any ``GameEngine`` (``games.rules.protocol``), not only
干瞪眼: the same calls deal it, check and store its actions, run its clock and its bot, settle and
replay it. The whole game:

* 2 or 3 seats (option ``players``, 3 by default). The deck is eight cards valued 7 to 14.
* A seed shuffles the deck with ``random.Random(seed).shuffle`` and, for a table's first game,
  picks the dealer with ``randrange(players)``; the dealer gets the first two cards, each next
  seat the next two. Nobody sees another seat's cards until they are revealed.
* From the dealer on, in seat order, each seat reveals one of its hidden cards (``reveal``):
  two rounds, one card a turn, the choice of which card first being the seat's.
* When every card is shown, the seat holding the highest card wins; each other seat pays the
  base stake to it.
* A seat whose time runs out reveals its lowest hidden card; the bot reveals its highest.

>>> state = ENGINE.deal(1, players=3, options=ENGINE.default_options)
>>> [ENGINE.action_to_json(action) for action in state.legal_actions(state.to_move)]
[{'reveal': 10}, {'reveal': 13}]
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from games.rules.errors import IllegalMoveError, NotationError, RecordError, RulesError
from games.rules.protocol import Phase, SettlementProtocol, check_turn, pay_one_winner
from games.rules.replay import ReplayResult, replay_actions

if TYPE_CHECKING:
    from games.rules.protocol import GameEngine

__all__ = [
    "DECK",
    "ENGINE",
    "FORMAT",
    "HighcardEngine",
    "HighcardOptions",
    "HighcardSettlement",
    "HighcardState",
    "HighestFirst",
    "Reveal",
]

DECK = tuple(range(7, 15))
CARDS_EACH = 2
FORMAT = "highcard-record/1"


@dataclasses.dataclass(frozen=True, slots=True)
class HighcardOptions:
    players: int = 3


DEFAULT = HighcardOptions()


@dataclasses.dataclass(frozen=True, slots=True)
class Reveal:
    """Turning one of the seat's hidden cards face up."""

    card: int

    def __str__(self) -> str:
        return f"reveal {self.card}"


@dataclasses.dataclass(frozen=True, slots=True)
class HighcardState:
    options: HighcardOptions
    dealer: int
    hands: tuple[tuple[int, ...], ...]  # the cards dealt to each seat, ascending
    shown: tuple[tuple[int, ...], ...]  # each seat's revealed cards, in the order revealed
    to_move: int | None
    log: tuple[tuple[int, Reveal], ...] = ()

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def phase(self) -> Phase:
        return Phase.OVER if self.to_move is None else Phase.PLAY

    @property
    def is_terminal(self) -> bool:
        return self.to_move is None

    @property
    def winner(self) -> int | None:
        if self.to_move is not None:
            return None
        return max(range(self.players), key=lambda seat: max(self.hands[seat]))

    @property
    def log_length(self) -> int:
        return len(self.log)

    def hidden(self, seat: int) -> tuple[int, ...]:
        return tuple(card for card in self.hands[seat] if card not in self.shown[seat])

    def legal_actions(self, seat: int) -> list[Reveal]:
        if seat != self.to_move or type(seat) is not int:
            return []
        return [Reveal(card) for card in self.hidden(seat)]

    def resolve(self, seat: int, action: Reveal, *, strict: bool = False) -> Reveal:
        check_turn(seat, self.to_move)
        if not isinstance(action, Reveal):
            raise IllegalMoveError("not_a_move", f"{action!r} is not a move")
        if action.card not in self.hidden(seat):
            raise IllegalMoveError(
                "card_not_hidden", f"seat {seat} holds no hidden card {action.card}"
            )
        return action

    def apply(self, seat: int, action: Reveal) -> HighcardState:
        action = self.resolve(seat, action)
        shown = list(self.shown)
        shown[seat] = (*shown[seat], action.card)
        done = sum(len(cards) for cards in shown) == CARDS_EACH * self.players
        return dataclasses.replace(
            self,
            shown=tuple(shown),
            to_move=None if done else (seat + 1) % self.players,
            log=(*self.log, (seat, action)),
        )

    def view(self, seat: int | None, *, history: bool = True) -> dict[str, Any]:
        if seat is not None and not (type(seat) is int and 0 <= seat < self.players):
            raise ValueError(f"no seat {seat!r} in a game of {self.players}")
        view: dict[str, Any] = {
            "seat": seat,
            "players": self.players,
            "phase": self.phase.value,
            "dealer": self.dealer,
            "to_move": self.to_move,
            "shown": [list(cards) for cards in self.shown],
            "hidden_counts": [len(self.hidden(s)) for s in range(self.players)],
            "winner": self.winner,
            "history": [{"seat": s, "reveal": a.card} for s, a in self.log] if history else [],
        }
        if seat is not None:
            view["hand"] = list(self.hidden(seat))
        return view


@dataclasses.dataclass(frozen=True, slots=True)
class HighcardSettlement:
    winner: int
    base: int
    payments: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "payments": list(self.payments)}


class HighestFirst:
    """The bot: reveals its highest hidden card."""

    name = "highest-first"

    def choose(self, state_view: dict[str, Any], legal: Sequence[Reveal]) -> Reveal:
        if not legal:
            raise ValueError("there are no legal moves to choose from")
        return max(legal, key=lambda action: action.card)


class HighcardEngine:
    key = "highcard"
    title = "High card"
    player_counts: tuple[int, ...] = (2, 3)
    default_options = DEFAULT

    def options_from_json(self, data: Mapping[str, Any] | None) -> HighcardOptions:
        if not data:
            return DEFAULT
        unknown = sorted(set(data) - {"players"})
        if unknown:
            raise RulesError(f"unknown rules option(s): {', '.join(unknown)}")
        players = data["players"]
        if type(players) is not int or players not in self.player_counts:
            raise RulesError("'players' must be 2 or 3")
        return HighcardOptions(players=players)

    def options_to_json(self, options: HighcardOptions) -> dict[str, Any]:
        return {} if options == DEFAULT else {"players": options.players}

    def seat_count(self, options: HighcardOptions) -> int:
        return options.players

    def deal(
        self,
        seed: int,
        *,
        players: int,
        options: HighcardOptions,
        dealer: int | None = None,
        coins: Sequence[int] | None = None,
    ) -> HighcardState:
        if players != options.players:
            raise ValueError(f"these rules seat {options.players} players, not {players}")
        if type(seed) is not int or seed < 0:
            raise ValueError("a seed is a non-negative whole number")
        rng = random.Random(seed)
        deck = list(DECK)
        rng.shuffle(deck)
        if dealer is None:
            dealer = rng.randrange(players)
        hands: list[tuple[int, ...]] = [()] * players
        for offset in range(players):
            cards = deck[CARDS_EACH * offset : CARDS_EACH * (offset + 1)]
            hands[(dealer + offset) % players] = tuple(sorted(cards))
        return self._start(options, dealer, hands)

    def _start(
        self, options: HighcardOptions, dealer: int, hands: Sequence[Sequence[int]]
    ) -> HighcardState:
        if type(dealer) is not int or not 0 <= dealer < options.players:
            raise ValueError(f"dealer must be a seat from 0 to {options.players - 1}")
        if len(hands) != options.players or any(len(hand) != CARDS_EACH for hand in hands):
            raise ValueError(f"each of the {options.players} seats holds {CARDS_EACH} cards")
        cards = [card for hand in hands for card in hand]
        if len(set(cards)) != len(cards) or not set(cards) <= set(DECK):
            raise ValueError("the hands are not cards of one deck")
        return HighcardState(
            options=options,
            dealer=dealer,
            hands=tuple(tuple(sorted(hand)) for hand in hands),
            shown=((),) * options.players,
            to_move=dealer,
        )

    def deal_to_json(self, state: HighcardState) -> dict[str, Any]:
        return {"dealer": state.dealer, "hands": [list(hand) for hand in state.hands]}

    def deal_from_json(self, data: Mapping[str, Any], options: HighcardOptions) -> HighcardState:
        return self._start(options, data["dealer"], data["hands"])

    def action_from_json(self, data: Mapping[str, Any]) -> Reveal:
        if not isinstance(data, Mapping) or set(data) != {"reveal"}:
            raise NotationError('an action is {"reveal": card}')
        card = data["reveal"]
        if type(card) is not int:
            raise NotationError("a card is a whole number")
        return Reveal(card)

    def action_to_json(self, action: Reveal) -> dict[str, Any]:
        return {"reveal": action.card}

    def timeout_action(self, state: HighcardState, seat: int) -> Reveal:
        check_turn(seat, state.to_move)
        return Reveal(min(state.hidden(seat)))

    def deal_next(self, state: HighcardState) -> Reveal:
        raise ValueError("highcard is dealt at once")

    def start_actions(self, options: HighcardOptions) -> tuple[Reveal, ...]:
        return ()

    def pay(self, settlement: SettlementProtocol, coins: Sequence[int]) -> tuple[int, ...]:
        return pay_one_winner(settlement.winner, settlement.payments, coins)

    def settle(self, state: HighcardState, *, base: int) -> HighcardSettlement:
        winner = state.winner
        if winner is None:
            raise ValueError("the game is not over: there is nothing to settle yet")
        if type(base) is not int or base < 1:
            raise ValueError("the base stake is a positive whole number")
        payments = [-base] * state.players
        payments[winner] = base * (state.players - 1)
        return HighcardSettlement(winner=winner, base=base, payments=tuple(payments))

    def record_to_json(
        self,
        state: HighcardState,
        *,
        base: int,
        seed: int | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT,
            "rules": self.options_to_json(state.options),
            "base": base,
            **self.deal_to_json(state),
            "actions": [{"seat": seat, **self.action_to_json(a)} for seat, a in state.log],
        }
        if seed is not None:
            data["seed"] = seed
        if meta is not None:
            data["meta"] = dict(meta)
        return data

    def record_from_deal(
        self,
        *,
        options: HighcardOptions,
        deal: Mapping[str, Any],
        actions: Sequence[tuple[int, Mapping[str, Any]]],
        base: int,
        seed: int | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT,
            "rules": self.options_to_json(options),
            "base": base,
            "dealer": deal["dealer"],
            "hands": [list(hand) for hand in deal["hands"]],
            "actions": [{"seat": seat, **action} for seat, action in actions],
        }
        if seed is not None:
            data["seed"] = seed
        if meta is not None:
            data["meta"] = dict(meta)
        return data

    def replay_record(self, data: Any) -> ReplayResult[HighcardState, HighcardSettlement]:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError(f'a record is a JSON object with "format": {FORMAT!r}')
        try:
            options = self.options_from_json(data.get("rules"))
            state = self.deal_from_json(data, options)
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"impossible starting position: {exc}") from exc
        base = data.get("base")
        if type(base) is not int or base < 1:
            raise RecordError('"base" must be a positive whole number')
        seed = data.get("seed")
        if seed is not None:
            try:
                dealt = self.deal(
                    seed, players=options.players, options=options, dealer=state.dealer
                )
            except ValueError as exc:
                raise RecordError(f'"seed": {exc}') from exc
            if dealt != state:
                raise RecordError('the hands are not the deal of "seed"')
        return replay_actions(
            state, self._actions(data.get("actions", [])), lambda s: self.settle(s, base=base)
        )

    def _actions(self, items: Any) -> Iterator[tuple[int, Reveal]]:
        if not isinstance(items, list):
            raise RecordError('"actions" must be a list')
        actions = []
        for index, item in enumerate(items):
            if not isinstance(item, dict) or type(item.get("seat")) is not int:
                raise RecordError(f'"actions"[{index}] must be an object with a "seat"')
            rest = {key: value for key, value in item.items() if key != "seat"}
            try:
                actions.append((item["seat"], self.action_from_json(rest)))
            except NotationError as exc:
                raise RecordError(f'"actions"[{index}]: {exc}') from exc
        return iter(actions)

    def bot_policy(
        self, level: str = "normal", *, seed: int = 0, budget_ms: float | None = None
    ) -> HighestFirst:
        return HighestFirst()  # one bot at every level

    def __repr__(self) -> str:
        return "tests.games.toy.rules.ENGINE"


ENGINE = HighcardEngine()

if TYPE_CHECKING:  # mypy checks that the game follows the protocol
    _engine: GameEngine[HighcardState, Reveal, HighcardOptions] = ENGINE
