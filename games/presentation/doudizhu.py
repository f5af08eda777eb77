"""How 斗地主 looks at the table: the deal shown in stages, the bidding (叫地主 / 抢地主), the
bottom cards, 明牌 hands, 加倍, the play with its Hint button, the multiplier with its parts, and
a settlement by farmer–landlord pair. Its templates are ``templates/jinja2/games/doudizhu/``;
every button sends the engine's own action (an ``act`` intent), except a play and a pass, which
the hand's form sends as for 干瞪眼.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from games.bots import choose_for
from games.rules.doudizhu import ENGINE, GameState
from games.rules.doudizhu.moves import Double, Pass, Play, Show

from ..frames.cards import cards_html
from . import Presentation

#: The words of the bids, for the buttons and the seats' last actions.
BID_WORDS = {
    "call": lambda: pgettext("斗地主 bid", "Call the landlord"),
    "no_call": lambda: pgettext("斗地主 bid", "Don't call"),
    "rob": lambda: pgettext("斗地主 bid", "Rob the landlord"),
    "no_rob": lambda: pgettext("斗地主 bid", "Don't rob"),
}


def play_hints(state: GameState) -> list[dict[str, str]]:
    """The plays the player to move could make, in the order the Hint button offers them: the
    bot's choice first (when it plays), then the others from the smallest. Empty when nothing
    beats the table."""
    plays = [move for move in state.legal_moves() if isinstance(move, Play)]
    if not plays:
        return []
    choice = choose_for(state, ENGINE.bot_policy())
    ordered = ([choice] if isinstance(choice, Play) else []) + plays
    hints: list[dict[str, str]] = []
    seen: set[str] = set()
    for play in ordered:
        cards = str(play)
        if cards not in seen:
            seen.add(cards)
            hints.append({"cards": cards})
    return hints


def _action_view(action: Mapping[str, Any] | None, language: str) -> dict[str, Any] | None:
    """A seat's last action as its box shows it."""
    if action is None:
        return None
    if "play" in action:
        return {"kind": "play", "cards": cards_html(action["play"], language=language)}
    if "pass" in action:
        return {"kind": "pass", "text": pgettext("table action", "Pass")}
    if "bid" in action:
        return {"kind": "bid", "text": BID_WORDS[action["bid"]]()}
    if "double" in action:
        return {"kind": "double", "text": _("Double") if action["double"] else _("No double")}
    return None


class DoudizhuPresentation(Presentation):
    @property
    def title(self) -> str:
        return _("Dou Dizhu")

    # The seat that bids first is not a dealer; the landlord and the farmers are marked.
    marks_dealer = False
    stylesheet = "css/doudizhu.css"

    def seat_cards(self, state: GameState, seat: int) -> int | None:
        return int(state.view_for(None, history=False)["hand_counts"][seat])

    def start_choices(self, rules: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [
            {**choice, "label": _("Start with my hand shown") + f" ×{Show('start').multiplier}"}
            for choice in super().start_choices(rules)
        ]

    def start_label(self, action: Mapping[str, Any]) -> str:
        return _("Hand shown from the start")

    def seat_role(self, state: GameState, seat: int) -> str:
        if state.landlord is None:
            return ""
        return _("Landlord") if seat == state.landlord else _("Farmer")

    def last_actions(self, state: GameState) -> dict[int, dict[str, Any]]:
        """What each seat did last in the current stage: its bid while bidding, its 加倍 while
        doubling, its play or pass in the current round."""
        last: dict[int, dict[str, Any]] = {}
        phase = state.phase.value
        if phase == "bid":
            for seat, bid in state.bids:
                last[seat] = bid.to_json()
        elif phase == "double":
            for seat, double in enumerate(state.doubles):
                if double is not None:
                    last[seat] = Double(double).to_json()
        elif phase == "play":
            for seat, action in state.round_actions:
                last[seat] = action.to_json()
        return last

    def table_facts(self, state: GameState | None) -> dict[str, Any]:
        if state is None:
            return {"multiplier": None, "multipliers": None, "phase": None}
        public = state.view_for(None, history=False)
        return {
            "multiplier": public["multiplier"],
            "multipliers": public["multipliers"],
            "phase": public["phase"],
        }

    def shown_hand(self, state: GameState, seat: int) -> Any:
        # 亮牌: once the game is over its hands are public, as on its record.
        return " ".join(str(card) for card in state.hand(seat))

    def hints(self, state: GameState, seat: int) -> list[Any]:
        if state.phase.value != "play":
            return [ENGINE.action_to_json(action) for action in state.legal_actions(seat)]
        return play_hints(state)

    def seat_actions(self, state: GameState, seat: int) -> list[Any]:
        """明牌 (with the multiplier it would bring) and 加倍, whoever is to move."""
        actions: list[dict[str, Any]] = []
        for action in state.legal_actions(seat):
            if isinstance(action, Show):
                actions.append({"show": True, "multiplier": action.multiplier})
            elif isinstance(action, Double):
                actions.append(action.to_json())
        return actions

    def frame_context(
        self, *, view: dict[str, Any], game: dict[str, Any] | None, language: str
    ) -> dict[str, Any]:
        engine = game["view"] if game else None
        hints = game["hints"] if game else None
        phase = engine["phase"] if engine else None
        my_turn = hints is not None
        playing = phase == "play"
        leading = my_turn and playing and engine is not None and engine["table"] is None
        actions = game["actions"] if game else []
        show = next((action for action in actions if "show" in action), None)
        doubles = [action for action in actions if "double" in action]
        bids = [
            {"move": hint, "label": BID_WORDS[hint["bid"]]()}
            for hint in (hints or [])
            if phase == "bid" and "bid" in hint
        ]
        settlement = game["settlement"] if game else None
        return {
            "phase": phase,
            "hand": cards_html(" ".join(engine["hand"]), in_hand=True, language=language)
            if engine and engine.get("hand")
            else "",
            "playing": playing,
            "leading": leading,
            "can_beat": bool(hints) if playing else True,
            "bids": bids,
            "show": show,
            "doubles": doubles,
            "multiplier": settlement.get("multiplier") if settlement else view["multiplier"],
            "multipliers": view["multipliers"],
        }

    def action_html(self, parts: Any, action: dict[str, Any] | None, language: str) -> SafeString:
        return mark_safe(str(parts.action(_action_view(action, language))))

    def head_facts_html(
        self, parts: Any, *, view: dict[str, Any], game: dict[str, Any] | None, context: Any
    ) -> SafeString:
        return mark_safe(str(parts.head_facts(view, context["multiplier"], context["multipliers"])))

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
        if state is None:
            return mark_safe("")
        public = state.view_for(None, history=False)
        played = public["table"]
        table_play = None
        if played is not None:
            table_play = {
                "seat": by_position[played["seat"]],
                "cards": cards_html(played["cards"], language=language),
            }
        bottom = (
            cards_html(" ".join(public["bottom"]), language=language) if public["bottom"] else None
        )
        shown = [
            {
                "seat": by_position[int(seat)],
                "cards": cards_html(" ".join(cards), language=language),
            }
            for seat, cards in sorted(public["shown"].items())
        ]
        return mark_safe(str(parts.board(public, table_play, bottom, shown, to_move, by_position)))

    def shown_hand_html(self, hand: Any, language: str) -> SafeString:
        return cards_html(hand, language=language)

    def action_of_intent(self, intent: dict[str, Any]) -> dict[str, Any] | None:
        """``pass`` and ``play`` with ``cards`` from the hand's form; the engine's action of an
        ``act`` (a bid, 明牌, 加倍)."""
        if intent["action"] == "pass":
            return Pass().to_json()
        if intent["action"] == "play":
            return {"play": intent["cards"]} if intent["cards"] else None
        return super().action_of_intent(intent)

    def refusal_message(self, code: str) -> str | None:
        messages = {
            "does_not_beat": _("These cards do not beat the cards on the table."),
            "not_a_combination": _("These cards do not form a combination."),
            "cards_not_in_hand": _("You do not hold these cards."),
            "leader_must_play": _("You lead this round, so you must play."),
            "may_not_double": _("You may not double: your coins or the landlord's are too few."),
            "already_shown": _("Your hand is shown already."),
            "show_too_late": _("It is too late to show your hand."),
            "landlord_only": _("Only the landlord may show the hand now."),
            "dealt_by_the_clock": _("The table deals the cards."),
        }
        return messages.get(code)


PRESENTATION = DoudizhuPresentation(ENGINE.key)
