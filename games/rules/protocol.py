"""The protocol every game's engine follows, so that the platform can play any of them alike.

It follows OpenSpiel's ``State`` (``legal_actions``, ``apply_action``, ``observation(player)``,
``is_terminal``, ``returns``) and boardgame.io's game object (``setup`` from a seed, ``moves``,
``playerView`` stripping secrets, ``phases``, ``endIf``), with immutable states: ``apply``
returns a new state, as the style of the engines wants.

Each game's package exposes one module-level object ``ENGINE`` that is a ``GameEngine`` (for
干瞪眼, ``games.rules.gandengyan.ENGINE``). Its states are ``GameStateProtocol`` values; its actions
are small frozen values of the game's own type. The platform's life of a game, through the
protocol only::

    options = ENGINE.options_from_json(room.rules)          # RulesError if not playable
    state = ENGINE.deal(seed, players=ENGINE.seat_count(options), options=options)
    stored_deal = ENGINE.deal_to_json(state)                # ENGINE.deal_from_json gives it back
    stored_actions = []
    while not state.is_terminal:
        seat = state.to_move                                # never None before the end
        action = ENGINE.action_from_json(intent)            # NotationError if badly written
        action = state.resolve(seat, action, strict=True)   # IllegalMoveError (not_your_turn ...)
        stored_actions.append((seat, ENGINE.action_to_json(action)))  # GameEvent.action
        state = state.apply(seat, action)
    # a seat whose time ran out: ENGINE.timeout_action(state, seat); a bot:
    # games.bots.choose_for(state, ENGINE.bot_policy())
    settlement = ENGINE.settle(state, base=room.base)        # payments sum to zero
    record = ENGINE.record_to_json(state, base=room.base, seed=seed)
    # the same record from what a game's row and events keep, without replaying them:
    record = ENGINE.record_from_deal(
        options=options, deal=stored_deal, actions=stored_actions, base=room.base, seed=seed
    )

Phases are shared (``Phase``): the deal (斗地主's 发牌), bidding (叫地主), doubling (加倍),
playing, and the end. A game uses the ones it has; 干瞪眼 and the test games go straight to play.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from .errors import IllegalMoveError

__all__ = [
    "GameEngine",
    "GameStateProtocol",
    "Phase",
    "Policy",
    "ReplayOutcome",
    "SettlementProtocol",
    "check_turn",
    "pay_one_winner",
]


class Phase(enum.Enum):
    """Where a game is. Its ``value`` is what views show."""

    DEAL = "deal"  # the cards are being dealt, shown step by step (斗地主's 发牌明牌)
    BID = "bid"  # seats bid or call for a role (斗地主's 叫地主 / 叫分) before the play
    DOUBLE = "double"  # seats choose to double the stakes before the play (斗地主's 加倍)
    PLAY = "play"  # seats play cards in turn
    OVER = "over"  # the game has ended: ``winner`` is set (None: no winner), it can be settled


ActionT = TypeVar("ActionT")
StateT = TypeVar("StateT", bound="GameStateProtocol[Any]")
OptionsT = TypeVar("OptionsT")
_S = TypeVar("_S", bound="GameStateProtocol[Any]")
_StateT_co = TypeVar("_StateT_co", covariant=True)


@runtime_checkable
class GameStateProtocol(Protocol[ActionT]):
    """An immutable position of a game, with everything needed to go on from it.

    Seats are numbered from 0. The state never shows a seat's hidden cards except through
    ``view(seat)``; the platform sends players views only.
    """

    @property
    def phase(self) -> Phase: ...

    @property
    def players(self) -> int:
        """How many seats play."""
        ...

    @property
    def to_move(self) -> int | None:
        """The seat whose turn it is; None once the game is over."""
        ...

    @property
    def is_terminal(self) -> bool: ...

    @property
    def winner(self) -> int | None:
        """The seat that won, once the game is over (None while it goes on, or for a deal that
        ended with no winner)."""
        ...

    @property
    def log_length(self) -> int:
        """How many actions led here from the deal (the number of the last stored event)."""
        ...

    def legal_actions(self, seat: int) -> Sequence[ActionT]:
        """Every distinct legal action of ``seat``, in a fixed order (the interface's hints and
        the timeout depend on it); empty when it is not that seat's turn."""
        ...

    def resolve(self, seat: int, action: ActionT, *, strict: bool = False) -> ActionT:
        """``action`` by ``seat`` as it counts here (completed where the rules complete it),
        or ``IllegalMoveError`` with a stable code: ``game_over``, ``not_your_turn`` (with the
        message ``IllegalMoveError.out_of_turn`` gives) and the game's own codes.

        ``strict``: an action the rules would complete one of several ways raises
        ``AmbiguousPlayError`` (``choose_meaning``) with the choices instead; for a person's
        action, which should say what it means. Records and replays leave it off."""
        ...

    def apply(self: _S, seat: int, action: ActionT) -> _S:
        """The state after ``seat`` makes ``action``; this one is left as it was. Raises as
        ``resolve`` does, and then nothing changes."""
        ...

    def view(self, seat: int | None, *, history: bool = True) -> dict[str, Any]:
        """What ``seat`` may see, JSON-safe: its own hidden cards, never another seat's (None:
        a spectator, who sees none). ``history=False`` leaves the list of past actions empty,
        for a caller that shows only the present."""
        ...


@runtime_checkable
class SettlementProtocol(Protocol):
    """The nominal result of a finished game: what each seat pays (negative) or receives."""

    @property
    def winner(self) -> int | None:
        """The seat that won; None for a deal that ended with no winner, where nobody pays
        (干瞪眼's two unplayable lone jokers)."""
        ...

    @property
    def base(self) -> int: ...

    @property
    def payments(self) -> tuple[int, ...]:
        """By seat; they sum to zero."""
        ...

    def to_json(self) -> dict[str, Any]: ...


class ReplayOutcome(Protocol[_StateT_co]):
    """How far a record replays (see ``games.rules.replay``)."""

    @property
    def ok(self) -> bool: ...

    @property
    def applied(self) -> int: ...

    @property
    def error(self) -> Any:
        """None, or the first illegal action: ``index``, ``code``, ``message``, ``to_json()``."""
        ...

    @property
    def state(self) -> _StateT_co: ...

    @property
    def settlement(self) -> SettlementProtocol | None: ...


@runtime_checkable
class Policy(Protocol[ActionT]):
    """A bot: chooses an action from a seat's view (``state.view(seat)``) and the seat's legal
    actions (never empty, in the engine's order), and returns one of them."""

    @property
    def name(self) -> str: ...

    def choose(self, state_view: dict[str, Any], legal: Sequence[ActionT]) -> ActionT: ...


@runtime_checkable
class GameEngine(Protocol[StateT, ActionT, OptionsT]):
    """One game for the platform: its options, deal, actions in JSON, clock, bot, settlement and
    records. Stateless; every method is a pure function of its arguments."""

    @property
    def key(self) -> str:
        """The stable id the database stores (``"gandengyan"``)."""
        ...

    @property
    def title(self) -> str:
        """The game's name for people."""
        ...

    @property
    def player_counts(self) -> tuple[int, ...]:
        """The numbers of seats the game may be played with."""
        ...

    @property
    def default_options(self) -> OptionsT: ...

    def options_from_json(self, data: Mapping[str, Any] | None) -> OptionsT:
        """Options from a room's or a record's ``rules`` object (``{}`` or None: the default);
        ``RulesError`` for unknown or unplayable ones."""
        ...

    def options_to_json(self, options: OptionsT) -> dict[str, Any]:
        """Only what differs from the default, so that ``{}`` is the standard game."""
        ...

    def seat_count(self, options: OptionsT) -> int:
        """How many seats a game with ``options`` needs."""
        ...

    def deal(
        self,
        seed: int,
        *,
        players: int,
        options: OptionsT,
        dealer: int | None = None,
        coins: Sequence[int] | None = None,
    ) -> StateT:
        """A new game shuffled and dealt from ``seed`` (the same seed deals the same cards);
        ``dealer`` None lets the seed choose, as for a table's first game. ``coins``: what each
        seat has to play with, for rules that read it (斗地主's doubling threshold; the deal
        keeps it); others ignore it. ``ValueError`` when ``players`` is not what ``options``
        seat."""
        ...

    def deal_next(self, state: StateT) -> ActionT:
        """While ``state`` is in ``Phase.DEAL``: the action that shows the next stage of the
        deal, which the table's clock makes in the name of the seat to move, one stage after
        another (``ValueError`` in any other phase, and for a game dealt at once)."""
        ...

    def start_actions(self, options: OptionsT) -> Sequence[ActionT]:
        """What a player may choose before a game is dealt, for the table to make in the
        player's name as soon as it is (斗地主's 明牌开始); none for most games."""
        ...

    def deal_to_json(self, state: StateT) -> dict[str, Any]:
        """The game's deal (its starting position, from any later state of it), JSON-safe."""
        ...

    def deal_from_json(self, data: Mapping[str, Any], options: OptionsT) -> StateT:
        """The starting position ``deal_to_json`` wrote."""
        ...

    def action_from_json(self, data: Mapping[str, Any]) -> ActionT:
        """An action from its JSON form; ``NotationError`` when it is not one."""
        ...

    def action_to_json(self, action: ActionT) -> dict[str, Any]:
        """The canonical JSON of an action (as ``resolve`` returned it): what a game's stored
        events hold, and what ``action_from_json`` reads back to the same action."""
        ...

    def timeout_action(self, state: StateT, seat: int) -> ActionT:
        """What is played for ``seat`` when its time runs out; ``IllegalMoveError`` when it is
        not that seat's turn."""
        ...

    def settle(self, state: StateT, *, base: int) -> SettlementProtocol:
        """The payments of a finished game at stake ``base``; ``ValueError`` before the end."""
        ...

    def pay(self, settlement: SettlementProtocol, coins: Sequence[int]) -> tuple[int, ...]:
        """The payments as coins move, by seat, given what each seat has (``coins``): nobody
        pays more than it has, and the winners share what was paid as the rules say. They sum
        to zero."""
        ...

    def record_to_json(
        self,
        state: StateT,
        *,
        base: int,
        seed: int | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The game's record so far: its deal and every action that led to ``state``."""
        ...

    def record_from_deal(
        self,
        *,
        options: OptionsT,
        deal: Mapping[str, Any],
        actions: Sequence[tuple[int, Mapping[str, Any]]],
        base: int,
        seed: int | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The record ``record_to_json`` writes, from a stored deal (as ``deal_to_json`` wrote
        it, keys it does not know ignored) and the stored ``(seat, action JSON)`` pairs, written
        as they are without replaying them: ``replay_record`` is what checks a record."""
        ...

    def replay_record(self, data: Any) -> ReplayOutcome[StateT]:
        """Replay a record (decoded JSON), stopping at the first illegal action; ``RecordError``
        when it is malformed."""
        ...

    def bot_policy(
        self, level: str = "normal", *, seed: int = 0, budget_ms: float | None = None
    ) -> Policy[ActionT]:
        """The bot of ``level`` (``easy``, ``normal`` or ``hard``: 简单, 普通, 困难) that plays
        for the house at a table of that level; the ``normal`` one also plays for seats in 托管
        and gives the Hint button's first play. ``seed`` seeds a bot that draws at random, and
        ``budget_ms`` (None: its own) bounds a searching bot's time per move. A game with fewer
        bots may give the same one at several levels."""
        ...


def pay_one_winner(winner: int, payments: Sequence[int], coins: Sequence[int]) -> tuple[int, ...]:
    """``GameEngine.pay`` for a game one seat wins from all the others: each loser pays its
    payment or what it has, if less, and the winner receives what they paid."""
    paid = [0 if seat == winner else -min(-owed, coins[seat]) for seat, owed in enumerate(payments)]
    paid[winner] = -sum(paid)
    return tuple(paid)


def check_turn(seat: object, to_move: int | None) -> None:
    """Raise ``IllegalMoveError.out_of_turn`` unless ``seat`` is the seat ``to_move``."""
    if seat != to_move or type(seat) is not int:
        raise IllegalMoveError.out_of_turn(seat, to_move)
