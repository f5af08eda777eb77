"""What a player to move may play: the Hint button's plays, and the meanings of a set of cards."""

from __future__ import annotations

from games.bots import SensiblePolicy, choose_for
from games.rules import format_cards
from games.rules.gandengyan import GameState, Play


def play_hints(state: GameState) -> list[dict[str, str]]:
    """The plays the player to move could make, in the order the Hint button offers them: the
    bot's choice first (when it plays), then the others from the lowest, one per set of cards.
    Each is ``{"cards": "3s 4h", "as": "3 4"}``. Empty when nothing can be played."""
    legal = [move for move in state.legal_moves() if isinstance(move, Play)]
    if not legal:
        return []
    choice = choose_for(state, SensiblePolicy())
    ordered = ([choice] if isinstance(choice, Play) else []) + sorted(
        legal, key=lambda move: (move.combo.sort_key if move.combo else (0, 0, 0), move.mask)
    )
    hints: list[dict[str, str]] = []
    seen: set[int] = set()
    for move in ordered:
        if move.mask in seen:
            continue
        seen.add(move.mask)
        assert move.combo is not None
        hints.append({"cards": format_cards(move.cards), "as": move.combo.ranks_text()})
    return hints


def play_meanings(state: GameState, cards: Play) -> list[str]:
    """The meanings (``"4 5 6"``) ``cards`` may legally be played as now, when it has any."""
    return [
        move.combo.ranks_text()
        for move in state.legal_moves()
        if isinstance(move, Play) and move.mask == cards.mask and move.combo is not None
    ]
