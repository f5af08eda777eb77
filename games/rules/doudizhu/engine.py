"""斗地主 for the platform: ``ENGINE``, the game's ``GameEngine`` (see ``games.rules.protocol``).

>>> state = ENGINE.deal(42, players=3, options=ENGINE.default_options)
>>> state.phase.value, state.to_move
('deal', 2)
>>> ENGINE.deal_from_json(ENGINE.deal_to_json(state), STANDARD) == state
True
>>> ENGINE.action_to_json(ENGINE.timeout_action(state, 2))
{'deal': 17}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..engine_base import EngineBase
from ..errors import IllegalMoveError, NotationError, RecordError
from ..protocol import Phase, check_turn
from ..records import write_record
from .game import DEAL_STEPS, GameState
from .moves import NO_CALL, NO_DOUBLE, NO_ROB, PASS, ROB, SHOW, Action, DealOn, action_from_json
from .options import STANDARD, DoudizhuRules
from .records import (
    FORMAT,
    GameRecord,
    deals_from_json,
    deals_to_json,
    expand_deals,
    position_json,
)
from .settlement import Settlement, pay_coins, settle

if TYPE_CHECKING:
    from ..protocol import GameEngine, GameStateProtocol, SettlementProtocol

__all__ = ["DEAL_STAGES", "ENGINE", "DoudizhuEngine"]

#: The steps of the deal the table shows, one after another by its clock.
DEAL_STAGES = (8, DEAL_STEPS)


class DoudizhuEngine(EngineBase):
    """The rules of classic 斗地主 behind the protocol the platform plays every game through."""

    key = "doudizhu"
    record_type = GameRecord
    title = "斗地主"
    player_counts: tuple[int, ...] = (3,)
    default_options: DoudizhuRules = STANDARD

    def options_from_json(self, data: Mapping[str, Any] | None) -> DoudizhuRules:
        return DoudizhuRules.from_dict(data)

    def options_to_json(self, options: DoudizhuRules) -> dict[str, Any]:
        return options.to_dict()

    def seat_count(self, options: DoudizhuRules) -> int:
        return 3

    def deal(
        self,
        seed: int,
        *,
        players: int,
        options: DoudizhuRules,
        dealer: int | None = None,
        coins: Sequence[int] | None = None,
    ) -> GameState:
        """``GameState.deal``: the shuffle of ``deal_from_seed``; ``dealer`` is the seat that
        bids first (None: the seed draws it); ``coins``, each seat's, for the room's doubling
        threshold (``state.with_coins``)."""
        if players != 3:
            raise ValueError(f"斗地主 seats 3 players, not {players}")
        return GameState.deal(seed, first_bidder=dealer, rules=options, coins=coins)

    def deal_next(self, state: GameState) -> Action:
        """The table shows the deal in two stages: the first 8 cards (明牌 ×4 until the next
        stage), then all 17 (×3); before the first, 明牌 is ×5 (§3)."""
        if state.phase is not Phase.DEAL:
            raise ValueError("the cards are dealt already")
        return DealOn(next(step for step in DEAL_STAGES if step > state.dealt))

    def start_actions(self, options: DoudizhuRules) -> tuple[Action, ...]:
        """明牌开始: the hand shown from before its first card (×5, §3)."""
        return (SHOW,)

    def deal_to_json(self, state: GameState) -> dict[str, Any]:
        """``{"deals": [the first deal], "coins"?}``: the starting position, the redeals drawn
        from its seed. A deal written out by hand (no seed) lists the deals written out after
        it too, and ``"next_seed"`` when it is not 0."""
        first = state.deals[0]
        listed = (first,) if first.seed is not None else (*state.deals, *state.upcoming)
        data = deals_to_json(listed)
        if state.coins is not None:
            data["coins"] = list(state.coins)
        return data

    def deal_from_json(self, data: Mapping[str, Any], options: DoudizhuRules) -> GameState:
        deals = deals_from_json(data["deals"], data.get("next_seed"))
        coins = data.get("coins")
        return GameState.from_deal(deals[0], rules=options, coins=coins, upcoming=deals[1:])

    def action_from_json(self, data: Mapping[str, Any]) -> Action:
        if not isinstance(data, Mapping):
            raise NotationError("an action is a JSON object")
        return action_from_json(data)

    def action_to_json(self, action: Action) -> dict[str, Any]:
        return action.to_json()

    def timeout_action(self, state: GameState, seat: int) -> Action:
        """The deal dealt to its end; 不叫 / 不抢; 不加倍; a pass when following, and leading,
        the smallest lead (the engine lists plays from the smallest single)."""
        phase = state.phase
        if phase is Phase.DOUBLE and type(seat) is int and 0 <= seat < 3:
            if state.doubles[seat] is None:
                return NO_DOUBLE
            raise IllegalMoveError("already_chose", f"seat {seat} has chosen already")
        check_turn(seat, state.to_move)
        if phase is Phase.DEAL:
            return DealOn(DEAL_STEPS)
        if phase is Phase.BID:
            return NO_ROB if ROB in state.legal_actions(seat) else NO_CALL
        if state.table is not None:
            return PASS
        return state.legal_moves()[0]

    def settle(self, state: GameState, *, base: int) -> Settlement:
        return settle(state, base=base)

    def pay(self, settlement: SettlementProtocol, coins: Sequence[int]) -> tuple[int, ...]:
        if not isinstance(settlement, Settlement):
            raise TypeError("a 斗地主 settlement is paid by its pairs")
        return pay_coins(settlement, coins)

    def record_from_deal(
        self,
        *,
        options: DoudizhuRules,
        deal: Mapping[str, Any],
        actions: Sequence[tuple[int, Mapping[str, Any]]],
        base: int,
        seed: int | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """``GameRecord.to_json``'s fields and order. The actions are written as stored; only
        their bids are read, to list the redeals the seeds drew."""
        try:
            deals = deals_from_json(deal["deals"], deal.get("next_seed"))
            moves = [action_from_json(action) for _, action in actions]
        except NotationError as exc:
            raise RecordError(str(exc)) from exc
        return write_record(
            format=FORMAT,
            rules=options.to_dict(),
            base=base,
            position=position_json(deal.get("coins"), expand_deals(deals, moves)),
            actions=actions,
            seed=seed,
            meta=meta,
        )


ENGINE = DoudizhuEngine()

if TYPE_CHECKING:  # mypy checks that 斗地主 follows the protocol
    _engine: GameEngine[GameState, Action, DoudizhuRules] = ENGINE
    _state: GameStateProtocol[Action] = GameState.deal(0)
