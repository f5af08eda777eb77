"""How 斗地主 looks at the table: the deal shown in stages, the bidding (叫地主 / 抢地主), the
bottom cards, 明牌 hands, 加倍, the play with its Hint button, the multiplier with its parts, and
a settlement by farmer–landlord pair. Its templates are ``templates/jinja2/games/doudizhu/``;
every button sends the engine's own action (an ``act`` intent), except a play and a pass, which
the hand's form sends as for 干瞪眼.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django import forms
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

from games.rules import NotationError, Phase, parse_cards
from games.rules.doudizhu import ENGINE, GameState
from games.rules.doudizhu.combos import ComboKind
from games.rules.doudizhu.game import DEAL_STEPS, deal_numbers
from games.rules.doudizhu.moves import Action, DealOn, Double, Pass, Play, Show
from games.rules.doudizhu.options import DOUBLE_THRESHOLD_MAX
from games.rules.history import unwind

from ..form_fields import WholeNumberField
from ..frames.cards import card_chips_html, cards_html
from . import (
    HandsPresentation,
    deals_and_bottoms,
    play_words,
    plays_bot_first,
    sorted_cards,
)

#: The words of the bids, for the buttons and the seats' last actions.
BID_WORDS = {
    "call": lambda: pgettext("斗地主 bid", "Call the landlord"),
    "no_call": lambda: pgettext("斗地主 bid", "Don't call"),
    "rob": lambda: pgettext("斗地主 bid", "Rob the landlord"),
    "no_rob": lambda: pgettext("斗地主 bid", "Don't rob"),
}


#: The names of the combinations, for the plays on the game's page and in its replay.
COMBO_LABELS = {
    "single": pgettext_lazy("斗地主 combination", "Single"),
    "pair": pgettext_lazy("斗地主 combination", "Pair"),
    "triple": pgettext_lazy("斗地主 combination", "Triple"),
    "triple_single": pgettext_lazy("斗地主 combination", "Triple with a single"),
    "triple_pair": pgettext_lazy("斗地主 combination", "Triple with a pair"),
    "straight": pgettext_lazy("斗地主 combination", "Straight"),
    "pair_straight": pgettext_lazy("斗地主 combination", "Pair straight"),
    "airplane": pgettext_lazy("斗地主 combination", "Airplane"),
    "airplane_singles": pgettext_lazy("斗地主 combination", "Airplane with singles"),
    "airplane_pairs": pgettext_lazy("斗地主 combination", "Airplane with pairs"),
    "four_two_singles": pgettext_lazy("斗地主 combination", "Four with two singles"),
    "four_two_pairs": pgettext_lazy("斗地主 combination", "Four with two pairs"),
    "bomb": pgettext_lazy("斗地主 combination", "Bomb"),
    "rocket": pgettext_lazy("斗地主 combination", "Rocket"),
}

#: The stages of a game, as its replay names them.
PHASE_LABELS = {
    "deal": pgettext_lazy("斗地主 phase", "Deal"),
    "bid": pgettext_lazy("斗地主 phase", "Bidding"),
    "double": pgettext_lazy("斗地主 phase", "Doubling"),
    "play": pgettext_lazy("斗地主 phase", "Play"),
    "over": pgettext_lazy("斗地主 phase", "Over"),
}


def play_hints(state: GameState) -> list[dict[str, str]]:
    """The plays the player to move could make, in the order the Hint button offers them
    (``plays_bot_first``)."""
    return plays_bot_first(ENGINE, state, Play)


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


def show_moment(show: Mapping[str, Any]) -> str:
    """When a 明牌 was declared (its resolved JSON), in words."""
    if show["show"] == "start":
        return _("before the first card")
    if show["show"] == "deal":
        return _("with %(count)d cards dealt") % {"count": show["step"]}
    return _("after taking the bottom cards")


def action_words(action: Mapping[str, Any]) -> str:
    """An action (its JSON as stored) in words, without the cards of a play."""
    if "deal" in action:
        if action["deal"] == DEAL_STEPS:
            return _("Dealt: 17 cards each")
        return _("Dealt %(count)d cards each") % {"count": action["deal"]}
    if "show" in action:
        show = ENGINE.action_from_json(action)
        assert isinstance(show, Show)
        return _("Shows the hand %(moment)s (×%(multiplier)d)") % {
            "moment": show_moment(action),
            "multiplier": show.multiplier,
        }
    if "bid" in action:
        return str(BID_WORDS[action["bid"]]())
    if "double" in action:
        return _("Double") if action["double"] else _("No double")
    if "pass" in action:
        return pgettext("table action", "Pass")
    return ""


def _action_kind(action: Mapping[str, Any] | None) -> str:
    if action is None:
        return "deal"
    for kind in ("deal", "show", "bid", "double", "play", "pass"):
        if kind in action:
            return "deal_on" if kind == "deal" else kind
    return ""


def _play(cards: str) -> dict[str, Any]:
    """A play's chips and the name of its combination."""
    play = ENGINE.action_from_json({"play": cards})
    assert isinstance(play, Play) and play.combo is not None
    return {
        "cards": card_chips_html(cards),
        "label": COMBO_LABELS[play.combo.kind.value],
    }


def _chips(cards: Sequence[str] | str | None) -> SafeString:
    """Cards (a list of codes or notation) as chips, lowest first."""
    if not cards:
        return mark_safe("")
    text = cards if isinstance(cards, str) else " ".join(cards)
    return card_chips_html(" ".join(str(card) for card in sorted(parse_cards(text))))


def _multiplier_parts(parts: Mapping[str, int]) -> list[dict[str, Any]]:
    """The parts of the multiplier, each with its name and what it counts."""
    return [
        {"key": "rob", "label": _("Robbing the landlord"), "value": parts["rob"]},
        {"key": "show", "label": _("Hands shown"), "value": parts["show"]},
        {"key": "bombs", "label": _("Bombs and rockets"), "value": parts["bombs"]},
        {"key": "spring", "label": _("Spring or anti-spring"), "value": parts["spring"]},
    ]


def game_summary(
    public: Mapping[str, Any],
    actions: Sequence[Mapping[str, Any]],
    names: Mapping[int, str],
) -> dict[str, Any]:
    """What the game's page and its replay say of a game so far, from a spectator's view of it
    (``public``) and its actions (each the stored JSON with its ``seat``): the deals, the
    bidding and the 明牌 of each, the landlord and the farmers, the bottom cards once taken,
    the 加倍 of each seat and the multiplier with its parts. Nothing a spectator would not see.
    """
    numbers, _next = deal_numbers([ENGINE.action_from_json(_move(a)) for a in actions])
    deals: dict[int, dict[str, Any]] = {}
    for action, number in zip(actions, numbers, strict=True):
        deal = deals.setdefault(number, {"number": number, "bids": [], "shows": []})
        seat = action["seat"]
        if "bid" in action:
            deal["bids"].append(
                {"seat": seat, "name": names.get(seat, ""), "word": BID_WORDS[action["bid"]]()}
            )
        elif "show" in action:
            show = ENGINE.action_from_json(_move(action))
            assert isinstance(show, Show)
            deal["shows"].append(
                {
                    "seat": seat,
                    "name": names.get(seat, ""),
                    "moment": show_moment(action),
                    "multiplier": show.multiplier,
                }
            )
    listed = [deals[number] for number in sorted(deals)]
    for deal in listed[:-1]:
        deal["thrown_in"] = True
    landlord = public["landlord"]
    doubles = public["doubles"]
    return {
        "deals": listed,
        "landlord": landlord,
        "landlord_name": "" if landlord is None else names.get(landlord, ""),
        "farmers": []
        if landlord is None
        else [
            {"seat": seat, "name": names.get(seat, "")}
            for seat in ((landlord + 1) % 3, (landlord + 2) % 3)
        ],
        "bottom": _chips(public["bottom"]),
        "shown": [
            {"seat": int(seat), "name": names.get(int(seat), ""), "cards": _chips(cards)}
            for seat, cards in sorted(public["shown"].items())
        ],
        "doubles": []
        if landlord is None
        else [
            {
                "seat": seat,
                "name": names.get(seat, ""),
                "landlord": seat == landlord,
                "double": doubles[seat],
            }
            for seat in range(3)
        ],
        "multiplier": public["multiplier"],
        "multipliers": _multiplier_parts(public["multipliers"]),
        "spring": public["spring"],
    }


def _move(action: Mapping[str, Any]) -> dict[str, Any]:
    """A stored action without its seat."""
    return {key: value for key, value in action.items() if key != "seat"}


def settlement_pairs(
    result: Mapping[str, Any],
    *,
    base: int,
    names: Mapping[int, str],
    coins: Sequence[int | None],
) -> list[dict[str, Any]]:
    """The settlement by farmer–landlord pair (§7): each pair's stake, ``base × multiplier ×
    the farmer's 加倍 × the landlord's``, who pays it to whom, and what moved in coins (a loser
    pays no more than they have)."""
    landlord = result["landlord"]
    doubles = result["doubles"]
    landlord_factor = 2 if doubles[landlord] else 1
    pairs = []
    for farmer in ((landlord + 1) % 3, (landlord + 2) % 3):
        farmer_factor = 2 if doubles[farmer] else 1
        owed = result["payments"][farmer]  # the farmer's side of the pair
        moved = coins[farmer]
        payer, payee = (landlord, farmer) if owed > 0 else (farmer, landlord)
        pairs.append(
            {
                "farmer": farmer,
                "farmer_name": names.get(farmer, ""),
                "landlord": landlord,
                "landlord_name": names.get(landlord, ""),
                "base": base,
                "multiplier": result["multiplier"],
                "farmer_double": farmer_factor,
                "landlord_double": landlord_factor,
                "amount": abs(owed),
                "stake": base * result["multiplier"] * farmer_factor * landlord_factor,
                "payer": payer,
                "payer_name": names.get(payer, ""),
                "payee": payee,
                "payee_name": names.get(payee, ""),
                "coins": None if moved is None else abs(moved),
            }
        )
    return pairs


def _action_sound(action: Action) -> str:
    """The sound of an action, which also says whether it is a bomb or the rocket (王炸)."""
    if isinstance(action, DealOn):
        return "deal"
    if isinstance(action, Pass):
        return "pass"
    if not isinstance(action, Play):
        return "bid"  # a bid, a 明牌 or a 加倍
    if action.combo is not None and action.combo.kind is ComboKind.ROCKET:
        return "rocket"
    return "bomb" if action.combo is not None and action.combo.is_bomb else "play"


class DoudizhuPresentation(HandsPresentation):
    play_type = Play

    @property
    def title(self) -> str:
        return _("Dou Dizhu")

    # The seat that bids first is not a dealer; the landlord and the farmers are marked.
    marks_dealer = False
    stylesheet = "css/doudizhu.css"

    def seat_cards(self, state: GameState, seat: int) -> int | None:
        return state.visible_count(seat)

    def start_choices(self, rules: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [
            {**choice, "label": _("Start with my hand shown") + f" ×{Show('start').multiplier}"}
            for choice in super().start_choices(rules)
        ]

    def start_label(self, action: Mapping[str, Any]) -> str:
        return _("Hand shown from the start")

    def seat_to_move(self, state: GameState) -> int | None:
        # The table's clock deals; the first bidder's turn comes with the bidding.
        return None if state.phase is Phase.DEAL else state.to_move

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

    def sound(self, state: GameState) -> str:
        if state.log_length == 0:
            return "deal"
        ((_seat, action),) = unwind(state.log, 1)
        return _action_sound(action)

    def is_bomb(self, action: Mapping[str, Any]) -> bool:
        try:
            parsed = ENGINE.action_from_json(action)
        except NotationError:
            return False  # not an action of this game: no bomb
        return _action_sound(parsed) in ("bomb", "rocket")

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
        for action in state.side_actions(seat):
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
        self, parts: Any, *, view: dict[str, Any], game: dict[str, Any] | None
    ) -> SafeString:
        settlement = game["settlement"] if game else None
        multiplier = settlement.get("multiplier") if settlement else view["multiplier"]
        return mark_safe(str(parts.head_facts(view, multiplier, view["multipliers"])))

    def board_html(
        self,
        parts: Any,
        *,
        state: Any | None,
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
                "dealt": bool(cards),  # 明牌 before the first card: nothing to show yet
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

    def room_rules_fields(self) -> dict[str, forms.Field]:
        """The room's 加倍 threshold (``double_threshold``, §4)."""
        return {
            "double_threshold": WholeNumberField(
                label=gettext_lazy("Doubling threshold (coins)"),
                min_value=0,
                max_value=DOUBLE_THRESHOLD_MAX,
                required=False,
                help_text=gettext_lazy(
                    "A farmer may double only when both they and the landlord have more "
                    "coins than this, the landlord only when all three players have. Empty: "
                    "anyone may double."
                ),
            )
        }

    # The game page and the admin's replay -----------------------------------------------------

    def deal_lines(self, record: Mapping[str, Any]) -> list[tuple[str, str]]:
        """Every deal of the game (one more per round of 不叫), each seat's hand and the bottom."""
        return deals_and_bottoms(record)

    def replay_step(
        self,
        *,
        action: Mapping[str, Any] | None,
        views: Sequence[Mapping[str, Any]],
        public: Mapping[str, Any],
        previous: Sequence[Mapping[str, Any]] | None,
    ) -> dict[str, Any]:
        """``kind`` ("deal", "deal_on", "show", "bid", "double", "play" or "pass") and the
        action in ``words``, a play's ``play`` (chips and combination); the ``deal_number`` and
        whether the step threw the cards in (``redealt``); the ``phase`` and its label; the
        ``seats``, each with its hand after the step (as far as it is dealt) and its count,
        whether it is ``shown``, its 加倍 and whether it is to move; the ``landlord``, the
        ``bottom`` once taken, the ``table``, the multiplier with its parts, ``to_move`` and
        ``winner``."""
        kind = _action_kind(action)
        redealt = previous is not None and previous[0]["deal_number"] != public["deal_number"]
        table = public["table"]
        return {
            "kind": kind,
            "words": "" if action is None else action_words(action),
            "play": _play(action["play"]) if action is not None and "play" in action else None,
            "deal_number": public["deal_number"],
            "redealt": redealt,
            "phase": public["phase"],
            "phase_label": PHASE_LABELS[public["phase"]],
            "seats": [
                {
                    "seat": seat,
                    "hand": _chips(view["hand"]),
                    "count": len(view["hand"]),
                    "shown": str(seat) in public["shown"],
                    "landlord": seat == public["landlord"],
                    "double": public["doubles"][seat],
                    "to_move": seat == public["to_move"],
                }
                for seat, view in enumerate(views)
            ],
            "landlord": public["landlord"],
            "bottom": _chips(public["bottom"]),
            "table": None if table is None else {"seat": table["seat"], **_play(table["cards"])},
            "multiplier": public["multiplier"],
            "multipliers": _multiplier_parts(public["multipliers"]),
            "to_move": public["to_move"],
            "winner": public["winner"],
        }

    def replay_words(self, action: Mapping[str, Any]) -> str:
        if "play" in action:
            return play_words(action["play"])
        return action_words(action)

    def replay_frame(
        self,
        *,
        action: Mapping[str, Any] | None,
        views: Sequence[Mapping[str, Any]],
        public: Mapping[str, Any],
        details: Mapping[str, Any],
        round_actions: Mapping[int, Mapping[str, Any]],
    ) -> dict[str, Any]:
        """The cards to beat with their combination; 地主 and 农民; the phase, the deal's number
        after a redeal and the multiplier; the bottom cards, face up once the landlord took
        them (before: how many)."""
        frame = super().replay_frame(
            action=action,
            views=views,
            public=public,
            details=details,
            round_actions=round_actions,
        )
        table = public["table"]
        if table is not None:
            play = ENGINE.action_from_json({"play": table["cards"]})
            assert isinstance(play, Play) and play.combo is not None
            frame["board"] = {
                "seat": table["seat"],
                "cards": sorted_cards(table["cards"]),
                "label": str(COMBO_LABELS[play.combo.kind.value]),
            }
        landlord = public["landlord"]
        if landlord is not None:
            frame["roles"] = [
                _("Landlord") if seat == landlord else _("Farmer") for seat in range(len(views))
            ]
        facts = [
            {"key": "phase", "label": _("Phase"), "value": str(PHASE_LABELS[public["phase"]])},
            {"key": "multiplier", "label": _("Multiplier"), "value": f"×{public['multiplier']}"},
        ]
        if public["deal_number"] > 1:
            facts.append(
                {"key": "deal", "label": _("Deals dealt"), "value": str(public["deal_number"])}
            )
        frame["facts"] = facts
        frame["piles"] = [
            {
                "key": "bottom",
                "label": _("Bottom cards"),
                "cards": sorted_cards(public["bottom"]),
            }
        ]
        return frame

    def replay_page(self, context: dict[str, Any]) -> None:
        """``deals``: every deal of the record (its seed when it has one, the first bidder,
        each seat's 17 cards and the bottom; the ones thrown in after three 不叫 marked);
        ``summary`` (``game_summary``) at the last step; ``pairs``, the engine's settlement by
        farmer–landlord pair; ``roles`` by seat."""
        replay = context["replay"]
        if replay is None or not replay.steps:
            return
        players = context["players"]
        names = {
            player.seat: player.user.get_username() if player.user else _("Bot")
            for player in players
        }
        record_deals = replay.record.get("deals", [])
        context["deals"] = [
            {
                "number": number,
                "seed": deal.get("seed"),
                "first_bidder": deal["first_bidder"],
                "hands": [_chips(hand) for hand in deal["hands"]],
                "bottom": _chips(deal["bottom"]),
                "thrown_in": number < len(record_deals),
            }
            for number, deal in enumerate(record_deals, start=1)
        ]
        last = replay.steps[-1]
        actions = [
            {"seat": step.seat, **step.action} for step in replay.steps if step.action is not None
        ]
        summary = game_summary(last.public, actions, names)
        context["summary"] = summary
        landlord = summary["landlord"]
        context["roles"] = [
            "" if landlord is None else (_("Landlord") if seat == landlord else _("Farmer"))
            for seat in range(3)
        ]
        settlement = replay.settlement
        context["pairs"] = (
            None
            if settlement is None
            else settlement_pairs(
                settlement,
                base=context["game"].base,
                names=names,
                coins=[player.coins for player in players],
            )
        )

    def game_page(self, context: dict[str, Any]) -> None:
        """Each seat's ``role``, ``hand_count``, its hand once shown (``shown_hand``) and, once
        the game is over, its ``final_hand``; ``is_winner`` for the winning side; each action's
        ``kind``, ``words``, ``play`` and ``deal_number`` (``first_of_deal`` on the first action
        of a redeal); the ``summary`` (``game_summary``); ``pairs``, the settlement by pair once
        the game is settled; the reader's hand while it is played (``view.hand_chips``)."""
        public = context["public"]
        names = {seat["seat"]: seat["name"] for seat in context["seats"]}
        landlord = public["landlord"]
        result = context["game"].result
        for seat in context["seats"]:
            number = seat["seat"]
            seat["role"] = (
                "" if landlord is None else ("landlord" if number == landlord else "farmer")
            )
            seat["hand_count"] = public["hand_counts"][number]
            shown = public["shown"].get(str(number))
            seat["shown_hand"] = _chips(shown) if shown else None
            final = seat["view"]
            seat["final_hand"] = None if final is None else _chips(final["hand"])
            if result is not None:
                seat["is_winner"] = (number == result["landlord"]) == result["landlord_won"]
        actions = context["actions"]
        stored = [{"seat": action["seat"], **action["action"]} for action in actions]
        numbers, _next = deal_numbers([ENGINE.action_from_json(_move(a)) for a in stored])
        previous = 1
        for action, number in zip(actions, numbers, strict=True):
            move = action["action"]
            action["kind"] = _action_kind(move)
            action["words"] = action_words(move)
            action["play"] = _play(move["play"]) if "play" in move else None
            action["deal_number"] = number
            action["first_of_deal"] = number != previous
            previous = number
        context["summary"] = game_summary(public, stored, names)
        context["pairs"] = None
        if result is not None:
            context["pairs"] = settlement_pairs(
                result,
                base=context["game"].base,
                names=names,
                coins=[seat["player"].coins for seat in context["seats"]],
            )
        view = context["view"]
        if view is not None:
            view["hand_chips"] = _chips(view.get("hand"))


PRESENTATION = DoudizhuPresentation(ENGINE.key)
