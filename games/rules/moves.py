"""What the moves of every climbing game share: the pass (不出).

A game's own moves (its plays, and 斗地主's deal steps, bids and 加倍) live in its package; the
pass is one value for all of them, written ``pass`` and ``{"pass": true}``:

>>> str(PASS), PASS.to_json(), Pass() is PASS
('pass', {'pass': True}, True)
"""

from __future__ import annotations

from typing import Any

__all__ = ["PASS", "Pass"]


class Pass:
    """Passing (不出): letting the turn go by without a play. There is one instance, ``PASS``."""

    __slots__ = ()
    _instance: Pass | None = None

    def __new__(cls) -> Pass:
        if cls._instance is None:
            cls._instance = object.__new__(cls)
        return cls._instance

    def __str__(self) -> str:
        return "pass"

    def __repr__(self) -> str:
        return "PASS"

    def __reduce__(self) -> tuple[type[Pass], tuple[()]]:
        return (Pass, ())

    def to_json(self) -> dict[str, Any]:
        return {"pass": True}


PASS = Pass()
