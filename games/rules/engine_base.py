"""What every game's engine does alike: records written and replayed through the game's own
``GameRecord``, and the game's bots by level. A game's engine (``games.rules.<key>.engine``)
inherits it and names its record type."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

__all__ = ["EngineBase"]


class EngineBase:
    """The protocol's record and bot methods (``games.rules.protocol.GameEngine``) for a game
    whose ``record_type`` has ``from_state``, ``from_json``, ``to_json``, ``replay`` and a
    ``meta`` field."""

    key: ClassVar[str]
    record_type: ClassVar[Any]

    def record_to_json(
        self,
        state: Any,
        *,
        base: int,
        seed: int | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        record = self.record_type.from_state(state, base=base, seed=seed)
        return dataclasses.replace(record, meta=meta).to_json()  # type: ignore[no-any-return]

    def replay_record(self, data: Any) -> Any:
        return self.record_type.from_json(data).replay()

    def bot_policy(
        self, level: str = "normal", *, seed: int = 0, budget_ms: float | None = None
    ) -> Any:
        """The bots of ``games.bots.levels``: greedy, sensible, search."""
        from games.bots.levels import policy_for  # the bots import the engine

        return policy_for(self.key, level, seed=seed, budget_ms=budget_ms)

    def __repr__(self) -> str:
        return f"games.rules.{self.key}.ENGINE"
