"""干瞪眼 for the platform: ``ENGINE``, the game's ``GameEngine`` (see ``games.rules.protocol``).

>>> state = ENGINE.deal(42, players=3, options=ENGINE.default_options)
>>> state.to_move, ENGINE.deal_from_json(ENGINE.deal_to_json(state), STANDARD) == state
(2, True)
>>> ENGINE.action_to_json(ENGINE.timeout_action(state, 2))
{'play': '7c'}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..cards import format_cards
from ..engine_base import EngineBase
from ..errors import NotationError
from ..protocol import SettlementProtocol, check_turn, pay_one_winner
from ..records import write_record
from .game import GameState
from .moves import PASS, Move, move_from_json
from .options import STANDARD, GandengyanRules
from .records import FORMAT, GameRecord, action_json
from .settlement import Settlement, settle

if TYPE_CHECKING:
    from ..protocol import GameEngine, GameStateProtocol

__all__ = ["ENGINE", "GandengyanEngine"]


class GandengyanEngine(EngineBase):
    """The rules of 干瞪眼 behind the protocol the platform plays every game through."""

    key = "gandengyan"
    record_type = GameRecord
    title = "干瞪眼"
    player_counts: tuple[int, ...] = (2, 3, 4, 5, 6)
    default_options: GandengyanRules = STANDARD

    def options_from_json(self, data: Mapping[str, Any] | None) -> GandengyanRules:
        return GandengyanRules.from_dict(data)

    def options_to_json(self, options: GandengyanRules) -> dict[str, Any]:
        return options.to_dict()

    def seat_count(self, options: GandengyanRules) -> int:
        return options.players

    def deal(
        self,
        seed: int,
        *,
        players: int,
        options: GandengyanRules,
        dealer: int | None = None,
        coins: Sequence[int] | None = None,
    ) -> GameState:
        """``GameState.deal``: the shuffle of ``deal_from_seed``, the dealer leading (the coins
        play no part in the rules)."""
        if players != options.players:
            raise ValueError(f"these rules seat {options.players} players, not {players}")
        return GameState.deal(seed, dealer=dealer, rules=options)

    def deal_to_json(self, state: GameState) -> dict[str, Any]:
        """``{"dealer", "hands", "stock"}`` as a game row keeps them: each hand sorted, the
        stock top first."""
        return {
            "dealer": state.dealer,
            "hands": [format_cards(state.starting_hand(seat)) for seat in range(state.players)],
            "stock": " ".join(str(card) for card in state.starting_stock()),
        }

    def deal_from_json(self, data: Mapping[str, Any], options: GandengyanRules) -> GameState:
        return GameState.from_position(data["hands"], data["stock"], data["dealer"], rules=options)

    def action_from_json(self, data: Mapping[str, Any]) -> Move:
        if not isinstance(data, Mapping) or set(data) - {"play", "pass", "as"}:
            raise NotationError('an action is {"play": "cards", "as": "ranks"} or {"pass": true}')
        return move_from_json(dict(data))

    def action_to_json(self, action: Move) -> dict[str, Any]:
        return action_json(action)

    def timeout_action(self, state: GameState, seat: int) -> Move:
        """A pass when following; leading, the smallest lead (the engine lists plays from the
        smallest), or the pass that is a lone unplayable joker's only action."""
        check_turn(seat, state.to_move)
        if state.table is not None:
            return PASS
        return state.legal_moves()[0]

    def deal_next(self, state: GameState) -> Move:
        raise ValueError("干瞪眼 is dealt at once")

    def start_actions(self, options: GandengyanRules) -> tuple[Move, ...]:
        return ()

    def settle(self, state: GameState, *, base: int) -> Settlement:
        return settle(state, base=base)

    def pay(self, settlement: SettlementProtocol, coins: Sequence[int]) -> tuple[int, ...]:
        """The winner takes what the losers can pay; a deal with no winner moves nothing."""
        if settlement.winner is None:
            return (0,) * len(settlement.payments)
        return pay_one_winner(settlement.winner, settlement.payments, coins)

    def record_from_deal(
        self,
        *,
        options: GandengyanRules,
        deal: Mapping[str, Any],
        actions: Sequence[tuple[int, Mapping[str, Any]]],
        base: int,
        seed: int | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """``GameRecord.to_json``'s fields and order, the deal's hands and stock as stored."""
        return write_record(
            format=FORMAT,
            rules=options.to_dict(),
            base=base,
            position={
                "dealer": deal["dealer"],
                "hands": list(deal["hands"]),
                "stock": deal["stock"],
            },
            actions=actions,
            seed=seed,
            meta=meta,
        )


ENGINE = GandengyanEngine()

if TYPE_CHECKING:  # mypy checks that 干瞪眼 follows the protocol
    _engine: GameEngine[GameState, Move, GandengyanRules] = ENGINE
    _state: GameStateProtocol[Move] = GameState.deal(0)
