"""上海斗地主 for the platform: ``ENGINE``, the game's ``GameEngine`` (``games.rules.protocol``).

>>> state = ENGINE.deal(42, players=4, options=ENGINE.default_options)
>>> state.phase.value, state.to_move
('bid', 0)
>>> ENGINE.deal_from_json(ENGINE.deal_to_json(state), STANDARD) == state
True
>>> ENGINE.action_to_json(ENGINE.timeout_action(state, 0))
{'bid': 'pass'}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..engine_base import EngineBase
from ..errors import NotationError, RecordError
from ..protocol import Phase, check_turn
from ..records import write_record
from .game import GameState
from .moves import NO_BID, PASS, Action, action_from_json
from .options import STANDARD, ShanghaiRules
from .records import FORMAT, GameRecord, deals_from_json, deals_to_json, expand_deals
from .settlement import Settlement, pay_coins, settle

if TYPE_CHECKING:
    from ..protocol import GameEngine, GameStateProtocol, SettlementProtocol

__all__ = ["ENGINE", "ShanghaiEngine"]


class ShanghaiEngine(EngineBase):
    """The rules of 上海斗地主 behind the protocol the platform plays every game through."""

    key = "shanghai"
    record_type = GameRecord
    title = "上海斗地主"
    player_counts: tuple[int, ...] = (4,)
    default_options: ShanghaiRules = STANDARD

    def options_from_json(self, data: Mapping[str, Any] | None) -> ShanghaiRules:
        return ShanghaiRules.from_dict(data)

    def options_to_json(self, options: ShanghaiRules) -> dict[str, Any]:
        return options.to_dict()

    def seat_count(self, options: ShanghaiRules) -> int:
        return 4

    def deal(
        self,
        seed: int,
        *,
        players: int,
        options: ShanghaiRules,
        dealer: int | None = None,
        coins: Sequence[int] | None = None,
    ) -> GameState:
        """``GameState.deal``: the shuffle of ``deal_from_seed``. The face-up card decides who
        bids first, so ``dealer`` is not read, nor ``coins`` (no rule reads them)."""
        if players != 4:
            raise ValueError(f"上海斗地主 seats 4 players, not {players}")
        return GameState.deal(seed, rules=options)

    def deal_next(self, state: GameState) -> Action:
        raise ValueError("上海斗地主 is dealt at once")

    def start_actions(self, options: ShanghaiRules) -> tuple[Action, ...]:
        return ()

    def deal_to_json(self, state: GameState) -> dict[str, Any]:
        """``{"deals": [the first deal]}``: the starting position, the redeals drawn from its
        seed. A deal written out by hand (no seed) lists the deals written out after it too, and
        ``"next_seed"`` when it is not 0."""
        first = state.deals[0]
        listed = (first,) if first.seed is not None else (*state.deals, *state.upcoming)
        return deals_to_json(listed)

    def deal_from_json(self, data: Mapping[str, Any], options: ShanghaiRules) -> GameState:
        deals = deals_from_json(data["deals"], data.get("next_seed"))
        return GameState.from_deal(deals[0], rules=options, upcoming=deals[1:])

    def action_from_json(self, data: Mapping[str, Any]) -> Action:
        if not isinstance(data, Mapping):
            raise NotationError("an action is a JSON object")
        return action_from_json(data)

    def action_to_json(self, action: Action) -> dict[str, Any]:
        return action.to_json()

    def timeout_action(self, state: GameState, seat: int) -> Action:
        """不叫 while bidding; a pass when following; leading, the smallest single (the engine
        lists plays from the smallest single)."""
        check_turn(seat, state.to_move)
        if state.phase is Phase.BID:
            return NO_BID
        if state.table is not None:
            return PASS
        return state.legal_moves()[0]

    def settle(self, state: GameState, *, base: int) -> Settlement:
        return settle(state, base=base)

    def pay(self, settlement: SettlementProtocol, coins: Sequence[int]) -> tuple[int, ...]:
        if not isinstance(settlement, Settlement):
            raise TypeError("a 上海斗地主 settlement is paid by its own rules")
        return pay_coins(settlement, coins)

    def record_from_deal(
        self,
        *,
        options: ShanghaiRules,
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
            position=deals_to_json(expand_deals(deals, moves)),
            actions=actions,
            seed=seed,
            meta=meta,
        )


ENGINE = ShanghaiEngine()

if TYPE_CHECKING:  # mypy checks that 上海斗地主 follows the protocol
    _engine: GameEngine[GameState, Action, ShanghaiRules] = ENGINE
    _state: GameStateProtocol[Action] = GameState.deal(0)
