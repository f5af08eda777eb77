"""How 干瞪眼 looks at the table: the cards in hand and on the table, the names of their
combinations, the Hint button's plays, the stock and the multiplier, and the intents of its
page (``play`` with cards and a meaning, ``pass``). Its templates are
``templates/jinja2/games/gandengyan/``."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils import translation
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from games.bots import SensiblePolicy, choose_for
from games.rules import NotationError, format_cards, parse_cards, parse_ranks
from games.rules.gandengyan import ENGINE, ComboKind, GameState, Move, Play
from games.rules.gandengyan.combos import combo_from_ranks
from games.rules.history import unwind

from ..frames.cards import card_faces, cards_html
from . import HandsPresentation, play_words, sorted_cards


def combo_label(ranks: str, language: str | None = None) -> str:
    """A combination's name for people: 顺子 4-5-6, 对 5, 炸弹 ... (``language``: the active
    one)."""
    return _combo_label(ranks, language or translation.get_language() or "")


@functools.lru_cache(maxsize=4096)
def _combo_label(ranks: str, language: str) -> str:
    """``combo_label`` in ``language`` (the active one): a frame names the combination on the
    table and each seat's last play, and there are only so many."""
    combo = combo_from_ranks(parse_ranks(ranks))
    names = {
        ComboKind.SINGLE: _("Single"),
        ComboKind.PAIR: _("Pair"),
        ComboKind.STRAIGHT: _("Straight"),
        ComboKind.PAIR_STRAIGHT: _("Pair straight"),
        ComboKind.SOFT_BOMB: _("Bomb of three"),
        ComboKind.HARD_BOMB: _("Bomb of four"),
        ComboKind.ROCKET: _("Rocket"),
    }
    shown = " ".join("10" if part == "T" else part for part in ranks.split())
    return f"{names[combo.kind]} {shown}"


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


def _action_view(action: dict[str, Any] | None, language: str) -> dict[str, Any] | None:
    if action is None:
        return None
    if action.get("pass"):
        return {"pass": True}
    return {
        "pass": False,
        "cards": cards_html(action["play"], language=language),
        "label": combo_label(action["as"], language),
    }


COMBO_KIND_LABELS = {
    "single": gettext_lazy("single"),
    "pair": gettext_lazy("pair"),
    "straight": gettext_lazy("straight"),
    "pair_straight": gettext_lazy("pair straight"),
    "soft_bomb": gettext_lazy("soft bomb"),
    "hard_bomb": gettext_lazy("hard bomb"),
    "rocket": gettext_lazy("rocket"),
}


BOMBS = (ComboKind.SOFT_BOMB, ComboKind.HARD_BOMB)


def _move_sound(move: Move) -> str:
    """The sound of a move, which also says whether it is a bomb or the rocket."""
    if not isinstance(move, Play) or move.combo is None:
        return "pass"
    if move.combo.kind is ComboKind.ROCKET:
        return "rocket"
    return "bomb" if move.combo.kind in BOMBS else "play"


class GandengyanPresentation(HandsPresentation):
    play_type = Play

    @property
    def title(self) -> str:
        return _("Gan Deng Yan")

    def seat_cards(self, state: GameState, seat: int) -> int | None:
        return state.hand_count(seat)

    def last_actions(self, state: GameState) -> dict[int, dict[str, Any]]:
        return {acting: dict(move.to_json()) for acting, move in state.round_actions}

    def sound(self, state: GameState) -> str:
        if state.log_length == 0:
            return "deal"
        ((_seat, move),) = unwind(state.log, 1)
        return _move_sound(move)

    def is_bomb(self, action: Mapping[str, Any]) -> bool:
        try:
            move = ENGINE.action_from_json(action)
        except NotationError:
            return False  # not a move of this game: no bomb
        return _move_sound(move) in ("bomb", "rocket")

    def table_facts(self, state: GameState | None) -> dict[str, Any]:
        return {
            "stock": None if state is None else state.stock_count,
            "multiplier": None if state is None else state.multiplier,
        }

    def shown_hand(self, state: GameState, seat: int) -> Any:
        # 亮牌: once the game is over its hands are public, as on its record.
        return " ".join(map(str, state.hand(seat)))

    def hints(self, state: GameState, seat: int) -> list[Any]:
        return play_hints(state)

    def frame_context(
        self, *, view: dict[str, Any], game: dict[str, Any] | None, language: str
    ) -> dict[str, Any]:
        engine = game["view"] if game else None
        hints = game["hints"] if game else None
        my_turn = hints is not None
        settlement = game["settlement"] if game else None
        return {
            "hand": cards_html(" ".join(engine["hand"]), in_hand=True, language=language)
            if engine and engine.get("hand")
            else "",
            "leading": my_turn and engine is not None and engine["table"] is None,
            "can_beat": bool(hints),
            "multiplier": settlement.get("multiplier") if settlement else view["multiplier"],
        }

    def action_html(self, parts: Any, action: dict[str, Any] | None, language: str) -> SafeString:
        return mark_safe(str(parts.action(_action_view(action, language))))

    def head_facts_html(
        self, parts: Any, *, view: dict[str, Any], game: dict[str, Any] | None, context: Any
    ) -> SafeString:
        return mark_safe(str(parts.head_facts(view, game, context["multiplier"])))

    def board_html(
        self,
        parts: Any,
        *,
        state: Any | None,
        engine_view: dict[str, Any] | None,
        by_position: dict[int, dict[str, Any]],
        to_move: dict[str, Any] | None,
        language: str,
    ) -> SafeString:
        table_play = None
        if engine_view and engine_view.get("table"):
            played = engine_view["table"]
            table_play = {
                "seat": by_position[played["seat"]],
                "cards": cards_html(played["cards"], language=language),
                "label": combo_label(played["as"], language),
            }
        return mark_safe(str(parts.board(table_play, to_move)))

    def shown_hand_html(self, hand: Any, language: str) -> SafeString:
        return cards_html(hand, language=language)

    def choice_label(self, choice: str, language: str) -> str:
        return combo_label(choice, language)

    def action_of_intent(self, intent: dict[str, Any]) -> dict[str, Any] | None:
        """``pass``, ``play`` with ``cards`` (and ``as``, the meaning chosen), or any game's
        ``act``."""
        if intent["action"] == "pass":
            return {"pass": True}
        if intent["action"] != "play":
            return super().action_of_intent(intent)
        if not intent["cards"]:
            return None
        move: dict[str, Any] = {"play": intent["cards"]}
        if intent["as"]:
            move["as"] = intent["as"]
        return move

    def refusal_message(self, code: str) -> str | None:
        messages = {
            "does_not_beat": _("These cards do not beat the cards on the table."),
            "not_a_combination": _("These cards do not form a combination."),
            "cards_not_in_hand": _("You do not hold these cards."),
            "leader_must_play": _("You lead this round, so you must play."),
            "lone_joker": _(
                "A joker may be played alone only as your last card, when the stock is empty, "
                "and never where the table's rules forbid it."
            ),
            "meaning_not_possible": _("These cards cannot be played that way."),
        }
        return messages.get(code)

    def replay_step(
        self,
        *,
        action: Mapping[str, Any] | None,
        views: Sequence[Mapping[str, Any]],
        public: Mapping[str, Any],
        previous: Sequence[Mapping[str, Any]] | None,
    ) -> dict[str, Any]:
        """``kind`` ("deal", "play" or "pass"), ``cards`` played, the ranks they stand for
        (``meaning``) and whether the cards alone do not tell it (``wild``: a joker, or several
        meanings); every seat's ``hands`` and what each ``drawn`` from the stock; the ``table``
        with its label, ``multiplier``, ``stock`` (cards left), ``to_move`` and ``winner``."""
        table = public["table"]
        if table is not None:
            table = {**table, "label": COMBO_KIND_LABELS[table["kind"]]}
        kind, cards, meaning, wild = "deal", "", "", False
        if action is not None and "play" in action:
            assert table is not None
            kind, cards, meaning = "play", action["play"], table["as"]
            wild = "as" in action or any(card.rank.is_joker for card in parse_cards(cards))
        elif action is not None:
            kind = "pass"
        hands = [view["hand"] for view in views]
        before = hands if previous is None else [view["hand"] for view in previous]
        return {
            "kind": kind,
            "cards": cards,
            "meaning": meaning,
            "wild": wild,
            "hands": tuple(" ".join(hand) for hand in hands),
            "drawn": tuple(
                " ".join(card for card in hand if card not in set(old))
                for hand, old in zip(hands, before, strict=True)
            ),
            "table": table,
            "multiplier": public["multiplier"],
            "stock": public["stock"],
            "to_move": public["to_move"],
            "winner": public["winner"],
        }

    def replay_words(self, action: Mapping[str, Any]) -> str:
        if "play" not in action:
            return pgettext("table action", "Pass")
        words = play_words(action["play"])
        ranks = " ".join(card.rank.symbol for card in sorted(parse_cards(action["play"])))
        if action.get("as") and action["as"] != ranks:
            # A joker stood for another card: say what the play meant.
            words += " = " + combo_label(action["as"])
        return words

    def replay_frame(
        self,
        *,
        action: Mapping[str, Any] | None,
        views: Sequence[Mapping[str, Any]],
        public: Mapping[str, Any],
        details: Mapping[str, Any],
        round_actions: Mapping[int, Mapping[str, Any]],
    ) -> dict[str, Any]:
        """The cards to beat with their combination; the multiplier and the stock's count."""
        frame = super().replay_frame(
            action=action,
            views=views,
            public=public,
            details=details,
            round_actions=round_actions,
        )
        table = public["table"]
        if table is not None:
            frame["board"] = {
                "seat": table["seat"],
                "cards": sorted_cards(table["cards"]),
                "label": combo_label(table["as"]),
            }
        frame["facts"] = [
            {"key": "multiplier", "label": _("Multiplier"), "value": f"×{public['multiplier']}"},
            {"key": "stock", "label": _("Stock"), "value": str(public["stock"])},
        ]
        return frame

    def game_page(self, context: dict[str, Any]) -> None:
        """Each seat's ``hand_count`` and, once the game is over, ``final_hand`` (card faces);
        each action's ``is_pass``, ``cards`` and ``meaning``; the reader's ``view`` with its
        ``hand_faces`` and the table's faces and label; the ``multiplier``."""
        public = context["public"]
        for seat in context["seats"]:
            seat["hand_count"] = public["hand_counts"][seat["seat"]]
            final = seat["view"]
            seat["final_hand"] = None if final is None else card_faces(" ".join(final["hand"]))
        for action in context["actions"]:
            play = action["action"].get("play")
            action["is_pass"] = play is None
            action["cards"] = card_faces(play) if play else []
            action["meaning"] = action["action"].get("as", "")
        view = context["view"]
        if view is not None:
            view["hand_faces"] = card_faces(" ".join(view.get("hand", [])))
            if view["table"] is not None:
                view["table"]["faces"] = card_faces(view["table"]["cards"])
                view["table"]["label"] = COMBO_KIND_LABELS.get(view["table"]["kind"], "")
        context["multiplier"] = public["multiplier"]


PRESENTATION = GandengyanPresentation(ENGINE.key)
