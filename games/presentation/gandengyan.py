"""How 干瞪眼 looks at the table: the cards in hand and on the table, the names of their
combinations, the Hint button's plays, the stock and the multiplier, and the intents of its
page (``play`` with cards and a meaning, ``pass``). Its templates are
``templates/jinja2/games/gandengyan/``."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django import forms
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from games.rules import NotationError, format_cards, parse_cards, parse_ranks
from games.rules.gandengyan import ENGINE, ComboKind, GameState, GandengyanRules, Move, Play
from games.rules.gandengyan.combos import combo_from_ranks
from games.rules.gandengyan.options import LIMITS
from games.rules.history import unwind

from ..form_fields import WholeNumberField
from ..frames.cards import card_faces, cards_html
from . import HandsPresentation, hint_plays, play_words, sorted_cards


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
    ordered = hint_plays(
        ENGINE,
        state,
        Play,
        key=lambda move: (move.combo.sort_key if move.combo else (0, 0, 0), move.mask),
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


# House rules ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class HouseRule:
    """One option of the rules (``GandengyanRules``) as people meet it: its form field's
    ``label``, the short ``phrase`` that says a game plays it (from the option's value; None
    when the value is the standard's) and the ``explanation`` of the rules page."""

    name: str
    label: Any
    phrase: Callable[[Any], str | None]
    explanation: Any


def _when(value: Any, words: Any) -> Callable[[Any], str | None]:
    """The phrase ``words`` when the option has ``value``."""
    return lambda option: str(words) if option == value else None


def _count_phrase(singular: str, plural: str) -> Callable[[Any], str | None]:
    return lambda option: (
        None if option is None else ngettext(singular, plural, option) % {"count": option}
    )


HOUSE_RULES: tuple[HouseRule, ...] = (
    HouseRule(
        "players",
        gettext_lazy("Players at the table"),
        lambda option: (
            None
            if option == 3
            else ngettext("%(count)s player", "%(count)s players", option) % {"count": option}
        ),
        gettext_lazy(
            "From 2 to 6 seats instead of 3. The dealer still gets 6 cards and everyone else "
            "5; the rest is the stock. A round still ends when all the others have passed one "
            "after the other."
        ),
    ),
    HouseRule(
        "twos_jump_pairs",
        gettext_lazy("A pair of twos beats any pair"),
        _when(True, gettext_lazy("A pair of twos beats any pair")),
        gettext_lazy(
            "A pair of twos (two twos, or a 2 with a joker) beats any pair but another pair "
            "of twos, not only a pair of As. Pair straights and bombs are unchanged."
        ),
    ),
    HouseRule(
        "twos_top_bombs",
        gettext_lazy("A bomb of twos beats any bomb of its kind"),
        _when(True, gettext_lazy("Bombs of twos top their kind")),
        gettext_lazy(
            "A bomb of twos beats any bomb of its own kind (soft over soft, hard over hard), "
            "never another bomb of twos. A soft bomb of twos still loses to any hard bomb."
        ),
    ),
    HouseRule(
        "pair_straights",
        gettext_lazy("Pair straights allowed"),
        _when(False, gettext_lazy("No pair straights")),
        gettext_lazy(
            "When this is off, pair straights (3 3 4 4 5 5 …) are no combination at all: they "
            "can be neither led nor played on anything."
        ),
    ),
    HouseRule(
        "max_straight",
        gettext_lazy("Longest straight, in cards"),
        _count_phrase(
            "Straights of at most %(count)s card", "Straights of at most %(count)s cards"
        ),
        gettext_lazy(
            "The longest straight allowed, counted in cards, a joker in it included. Without "
            "it a straight may run from 3 to A, 12 cards."
        ),
    ),
    HouseRule(
        "max_pair_straight",
        gettext_lazy("Longest pair straight, in cards"),
        _count_phrase(
            "Pair straights of at most %(count)s card", "Pair straights of at most %(count)s cards"
        ),
        gettext_lazy(
            "The longest pair straight allowed, counted in cards, jokers included; an odd "
            "number allows the even length below it. Without it there is no limit."
        ),
    ),
    HouseRule(
        "draw",
        gettext_lazy("Who draws after a round"),
        _when("winner", gettext_lazy("Only the round winner draws")),
        gettext_lazy(
            "When a round ends only its winner draws a card, and leads the next round; the "
            "others draw nothing. In the standard game everyone draws one card, the winner "
            "first."
        ),
    ),
    HouseRule(
        "lone_joker_last",
        gettext_lazy("A lone joker may be played as the last card"),
        _when(False, gettext_lazy("A lone joker is never played")),
        gettext_lazy(
            "When this is off, a joker can never be played on its own, not even as the last "
            "card: a player whose hand is one joker can only pass, and when they would lead, "
            "the next player leads and nobody draws."
        ),
    ),
    HouseRule(
        "natural_over_wild",
        gettext_lazy("A bomb without a joker beats the same bomb with one"),
        _when(True, gettext_lazy("Natural bombs beat wild ones")),
        gettext_lazy(
            "A bomb made without a joker beats a bomb of the same kind and rank that has a "
            "joker in it, never the reverse."
        ),
    ),
    HouseRule(
        "rocket_multiplier",
        gettext_lazy("The rocket multiplies by"),
        lambda option: None if option == 8 else _("Rocket ×%(times)s") % {"times": option},
        gettext_lazy(
            "The rocket (both jokers) multiplies the stakes by 4 instead of 8; any other bomb "
            "still doubles them."
        ),
    ),
    HouseRule(
        "loser_twos_jokers_double",
        gettext_lazy("Each 2 or joker left doubles a loser's payment"),
        _when(True, gettext_lazy("Twos and jokers left double")),
        gettext_lazy(
            "At the settlement every 2 and every joker left in a loser's hand doubles what "
            "that loser pays: with a 2 and a joker left they pay four times as much."
        ),
    ),
    HouseRule(
        "one_card_free",
        gettext_lazy("A loser with one card left pays nothing"),
        _when(True, gettext_lazy("One card left pays nothing")),
        gettext_lazy(
            "A loser who holds a single card when the game ends pays nothing; the others pay "
            "as usual."
        ),
    ),
    HouseRule(
        "dealer_one_play_spring",
        gettext_lazy("A dealer who played only the first lead counts as spring"),
        _when(True, gettext_lazy("Dealer's lone lead is spring")),
        gettext_lazy(
            "A losing dealer whose only play was the first lead of the game counts as not "
            "having played (spring) and pays double, like a player who never played."
        ),
    ),
    HouseRule(
        "bombs_any_higher",
        gettext_lazy("A bomb beats any lower bomb of its kind"),
        _when(True, gettext_lazy("Any higher bomb beats a bomb")),
        gettext_lazy(
            "A bomb beats a bomb of its kind of any higher rank, with 2 above A, not only the "
            "one just above it. A soft bomb still never beats a hard one."
        ),
    ),
    HouseRule(
        "joker_not_two",
        gettext_lazy("A joker cannot stand for a 2"),
        _when(True, gettext_lazy("A joker is never a 2")),
        gettext_lazy(
            "A joker never stands for a 2: no pair of a 2 and a joker, no bomb of twos with a "
            "joker, and a lone joker counts as at most a K, so it cannot follow an A or a 2."
        ),
    ),
    HouseRule(
        "max_multiplier",
        gettext_lazy("Multiplier cap"),
        lambda option: (
            None if option is None else _("Multiplier capped at ×%(cap)s") % {"cap": option}
        ),
        gettext_lazy(
            "The total multiplier of a game (bombs, the rocket, spring) never goes above this "
            "number, e.g. 64."
        ),
    ),
)
"""Every option of the rules, in the order the forms, the phrases and the rules page list
them."""


def _house_rule_field(name: str, label: Any) -> forms.Field:
    """The form field of the option ``name``: a box to tick for a yes-or-no option, a number
    for a limit (empty: none) and a choice for the rest."""
    # The engine checks the rules as a whole (``GandengyanRules``); the fields take its bounds.
    if name == "players":
        return WholeNumberField(label=label, min_value=2, max_value=6)
    if name in LIMITS:
        return WholeNumberField(
            label=label,
            min_value=1,
            max_value=LIMITS[name],
            required=False,
            help_text=gettext_lazy("Empty: no limit."),
        )
    if name == "draw":
        return forms.ChoiceField(
            label=label,
            choices=[
                ("all", gettext_lazy("Everyone draws, the winner first")),
                ("winner", gettext_lazy("Only the round winner draws")),
            ],
        )
    if name == "rocket_multiplier":
        return forms.TypedChoiceField(
            label=label, coerce=int, choices=[(8, "×8"), (4, "×4")], widget=forms.RadioSelect
        )
    return forms.BooleanField(label=label, required=False)


def rules_phrases(rules: Mapping[str, Any] | None) -> list[str]:
    """The rules options ``rules`` states (a room's, a table's or a game's, as the engine writes
    them) in short words for people, in the active language and in the order of
    ``HOUSE_RULES``; "Standard rules" alone for the standard game."""
    options = {
        field.name: field.default for field in dataclasses.fields(GandengyanRules) if field.init
    } | dict(rules or {})
    phrases = [
        phrase
        for rule in HOUSE_RULES
        if (phrase := rule.phrase(options.get(rule.name))) is not None
    ]
    return phrases or [_("Standard rules")]


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
        return {
            "hand": cards_html(" ".join(engine["hand"]), in_hand=True, language=language)
            if engine and engine.get("hand")
            else "",
            "leading": my_turn and engine is not None and engine["table"] is None,
            "can_beat": bool(hints),
            "multiplier": _multiplier(view, game),
        }

    def action_html(self, parts: Any, action: dict[str, Any] | None, language: str) -> SafeString:
        return mark_safe(str(parts.action(_action_view(action, language))))

    def head_facts_html(
        self, parts: Any, *, view: dict[str, Any], game: dict[str, Any] | None
    ) -> SafeString:
        return mark_safe(str(parts.head_facts(view, game, _multiplier(view, game))))

    def board_html(
        self,
        parts: Any,
        *,
        state: Any | None,
        by_position: dict[int, dict[str, Any]],
        to_move: dict[str, Any] | None,
        language: str,
    ) -> SafeString:
        table_play = None
        played = None if state is None else state.view(None, history=False)["table"]
        if played:
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

    def room_rules_fields(self) -> dict[str, forms.Field]:
        """Every option of the rules (``HOUSE_RULES``)."""
        return {rule.name: _house_rule_field(rule.name, rule.label) for rule in HOUSE_RULES}

    rules_fields_cover_all = True

    def table_rules_fields(self) -> dict[str, forms.Field]:
        """A private table's host chooses every option, as staff do for a room."""
        return self.room_rules_fields()

    def rules_initial(self, rules: Mapping[str, Any]) -> dict[str, Any]:
        """Each option's value in ``rules``, the standard game's where it states none."""
        return {
            field.name: rules.get(field.name, field.default)
            for field in dataclasses.fields(GandengyanRules)
            if field.init  # the options, not what the engine derives from them
        }

    def rules_phrases(self, rules: Mapping[str, Any] | None) -> list[str]:
        return rules_phrases(rules)

    def rules_explained(self) -> list[dict[str, str]]:
        return [
            {"name": rule.name, "title": str(rule.label), "text": str(rule.explanation)}
            for rule in HOUSE_RULES
        ]

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


def _multiplier(view: dict[str, Any], game: dict[str, Any] | None) -> Any:
    """The game's multiplier: the settlement's once it is over, else the table's now."""
    settlement = game["settlement"] if game else None
    return settlement.get("multiplier") if settlement else view["multiplier"]
