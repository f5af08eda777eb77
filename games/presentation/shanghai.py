"""How 上海斗地主 looks at the table: four seats, the bidding (小地主 / 大地主 / 不叫), the eight
bottom cards once the landlord takes them, each seat's bombs left, the play with its Hint
button, and a settlement in points × the base. Its templates are
``templates/jinja2/games/shanghai/``; a bid button sends the engine's own action (an ``act``
intent), a play and a pass go by the hand's form as for the other games.

Two decks: every card's code carries its deck (``As.1``, ``As.2``), so the two copies of a card
are two checkboxes of the hand; a card's face and its name for screen readers are its deck's.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.utils import translation
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext, pgettext_lazy

from games.rules import NotationError
from games.rules.history import unwind
from games.rules.shanghai import ENGINE, GameState
from games.rules.shanghai.cards import CARDS, format_cards, parse_cards
from games.rules.shanghai.combos import ComboKind
from games.rules.shanghai.game import deal_numbers
from games.rules.shanghai.moves import Action, Bid, Pass, Play

from ..frames.cards import card_chips_html, card_face
from . import HandsPresentation, deals_and_bottoms, plays_bot_first

#: The words of the bids, for the buttons, the seats' last actions and the pages.
BID_WORDS = {
    "small": lambda: pgettext("上海斗地主 bid", "Small landlord"),
    "big": lambda: pgettext("上海斗地主 bid", "Big landlord"),
    "pass": lambda: pgettext("上海斗地主 bid", "No bid"),
}

#: The names of the combinations (rules §10).
COMBO_LABELS = {
    "single": pgettext_lazy("上海斗地主 combination", "Single"),
    "pair": pgettext_lazy("上海斗地主 combination", "Pair"),
    "triple": pgettext_lazy("上海斗地主 combination", "Triple"),
    "full_house": pgettext_lazy("上海斗地主 combination", "Full house"),
    "straight": pgettext_lazy("上海斗地主 combination", "Straight"),
    "sister_pairs": pgettext_lazy("上海斗地主 combination", "Sister pairs"),
    "airplane": pgettext_lazy("上海斗地主 combination", "Airplane"),
    "airplane_cannons": pgettext_lazy("上海斗地主 combination", "Airplane with cannons"),
    "bomb": pgettext_lazy("上海斗地主 combination", "Bomb"),
    "joker_bomb": pgettext_lazy("上海斗地主 combination", "Four-joker bomb"),
}

#: The stages of a game, as its replay names them.
PHASE_LABELS = {
    "bid": pgettext_lazy("上海斗地主 phase", "Bidding"),
    "play": pgettext_lazy("上海斗地主 phase", "Play"),
    "over": pgettext_lazy("上海斗地主 phase", "Over"),
}

# Cards of two decks ----------------------------------------------------------------------------


def _base_code(code: str) -> str:
    """A card's code without its deck (``As.2`` -> ``As``): how it looks and is named."""
    return code.split(".", 1)[0]


def sorted_codes(cards: Iterable[str] | str | None) -> list[str]:
    """Cards (codes with their decks, or notation) in the engine's order, lowest first."""
    if not cards:
        return []
    text = cards if isinstance(cards, str) else " ".join(cards)
    return format_cards(parse_cards(text)).split()


def sh_cards_html(
    cards: Iterable[str] | str | None, *, in_hand: bool = False, language: str | None = None
) -> SafeString:
    """Cards of two decks as HTML, lowest first: as ``cards_html`` draws a deck's cards, each
    face and full name its card's, with its deck in its code (``data-card``, the checkbox's
    value and the id of a card in hand), so the two copies of a card are distinct."""
    language = language or translation.get_language() or ""
    return mark_safe(
        "".join(_sh_card_html(code, language, in_hand) for code in sorted_codes(cards))
    )


@functools.lru_cache(maxsize=1024)
def _sh_card_html(code: str, language: str, in_hand: bool) -> str:
    face = card_face(_base_code(code))
    classes = "card" + (" is-red" if face.red else "")
    if face.joker:
        classes += f" is-joker joker-{face.joker}"
    inner = format_html(
        '<span class="card-rank">{}</span><span class="card-suit" aria-hidden="true">{}</span>',
        face.rank,
        face.suit,
    )
    if in_hand:
        return format_html(
            '<label id="hand-{}" class="{}" data-card="{}" title="{}"><input type="checkbox"'
            ' name="cards" value="{}" class="visually-hidden" aria-label="{}">{}</label>',
            code.replace(".", "-"),
            classes,
            code,
            face.label,
            code,
            face.label,
            inner,
        )
    return format_html(
        '<span class="{}" data-card="{}" title="{}" role="img" aria-label="{}">{}</span>',
        classes,
        code,
        face.label,
        face.label,
        inner,
    )


def sh_chips_html(cards: Iterable[str] | str | None) -> SafeString:
    """Cards of two decks as the small chips of the game's pages, lowest first."""
    return card_chips_html(" ".join(_base_code(code) for code in sorted_codes(cards)))


def bid_word(word: str) -> str:
    return str(BID_WORDS[word]())


def bombs_note(left: int | None, played: int) -> str:
    """A seat's bombs as its box shows them: "Bombs 1/2" (left of what the bidding allows),
    "Bombs ∞" without a limit."""
    if left is None:
        return pgettext("上海斗地主 bombs", "Bombs ∞")
    return pgettext("上海斗地主 bombs", "Bombs %(left)d/%(allowed)d") % {
        "left": left,
        "allowed": left + played,
    }


def bombs_sentence(left: int | None) -> str:
    """The player's own bombs left, in words under the hand."""
    if left is None:
        return _("You may play any number of bombs.")
    if left == 0:
        return _("You have played every bomb the bidding allows you.")
    return _("You may play %(count)d more bomb(s).") % {"count": left}


def play_hints(state: GameState) -> list[dict[str, str]]:
    """The plays the player to move could make, in the order the Hint button offers them
    (``plays_bot_first``); a play's cards are the seat's own copies."""
    return plays_bot_first(ENGINE, state, Play)


def _action_view(action: Mapping[str, Any] | None, language: str) -> dict[str, Any] | None:
    """A seat's last action as its box shows it."""
    if action is None:
        return None
    if "play" in action:
        return {"kind": "play", "cards": sh_cards_html(action["play"], language=language)}
    if "pass" in action:
        return {"kind": "pass", "text": pgettext("table action", "Pass")}
    if "bid" in action:
        return {"kind": "bid-" + action["bid"], "text": bid_word(action["bid"])}
    return None


def _action_sound(state: GameState, action: Action) -> str:
    if isinstance(action, Bid):
        # Four 不叫 deal the cards again.
        return "deal" if state.landlord is None and not state.bids else "bid"
    if isinstance(action, Pass):
        return "pass"
    combo = action.combo
    if combo is not None and combo.kind is ComboKind.JOKER_BOMB:
        return "rocket"
    return "bomb" if combo is not None and combo.is_bomb else "play"


def combo_label(cards: str) -> str:
    play = ENGINE.action_from_json({"play": cards})
    assert isinstance(play, Play) and play.combo is not None
    return str(COMBO_LABELS[play.combo.kind.value])


def play_words(cards: str) -> str:
    """A play in words: its ranks, lowest first (``plays 3 3 3 4 4``)."""
    ranks = " ".join(_rank_text(code) for code in sorted_codes(cards))
    return pgettext("replay action", "plays %(ranks)s") % {"ranks": ranks}


def _rank_text(code: str) -> str:
    base = _base_code(code)
    if base in ("BJ", "RJ"):
        return base
    return "10" if base[0] == "T" else base[0]


def action_words(action: Mapping[str, Any]) -> str:
    """An action (its JSON as stored) in words, without the cards of a play."""
    if "bid" in action:
        return bid_word(action["bid"])
    if "pass" in action:
        return pgettext("table action", "Pass")
    return ""


def _action_kind(action: Mapping[str, Any] | None) -> str:
    if action is None:
        return "deal"
    for kind in ("bid", "play", "pass"):
        if kind in action:
            return kind
    return ""


def _play(cards: str) -> dict[str, Any]:
    """A play's chips and the name of its combination."""
    return {"cards": sh_chips_html(cards), "label": combo_label(cards)}


def _move(action: Mapping[str, Any]) -> dict[str, Any]:
    """A stored action without its seat."""
    return {key: value for key, value in action.items() if key != "seat"}


def game_summary(
    public: Mapping[str, Any],
    actions: Sequence[Mapping[str, Any]],
    names: Mapping[int, str],
) -> dict[str, Any]:
    """What the game's page and its replay say of a game so far, from a spectator's view of it
    (``public``) and its actions (each the stored JSON with its ``seat``): the bidding of each
    deal, the landlord and the bid, the farmers with their bombs, the bottom cards once taken.
    Nothing a spectator would not see."""
    numbers, _next = deal_numbers([ENGINE.action_from_json(_move(a)) for a in actions])
    deals: dict[int, dict[str, Any]] = {}
    for action, number in zip(actions, numbers, strict=True):
        deal = deals.setdefault(number, {"number": number, "bids": []})
        if "bid" in action:
            seat = action["seat"]
            deal["bids"].append(
                {"seat": seat, "name": names.get(seat, ""), "word": bid_word(action["bid"])}
            )
    listed = [deals[number] for number in sorted(deals)] or [{"number": 1, "bids": []}]
    for deal in listed[:-1]:
        deal["thrown_in"] = True
    landlord = public["landlord"]
    return {
        "deals": listed,
        "landlord": landlord,
        "landlord_name": "" if landlord is None else names.get(landlord, ""),
        "bid": public["bid"],
        "bid_word": bid_word(public["bid"]) if public["bid"] else "",
        "points": None if public["bid"] is None else (6 if public["bid"] == "small" else 9),
        "bottom": sh_chips_html(public["bottom"]),
        "seats": [
            {
                "seat": seat,
                "name": names.get(seat, ""),
                "landlord": seat == landlord,
                "bombs": bombs_note(public["bombs_left"][seat], public["bombs_played"][seat]),
                "bombs_played": public["bombs_played"][seat],
            }
            for seat in range(4)
        ]
        if landlord is not None
        else [],
    }


class ShanghaiPresentation(HandsPresentation):
    play_type = Play
    decks = 2
    # The seat that bids first is not a dealer; the landlord and the farmers are marked.
    marks_dealer = False
    stylesheet = "css/shanghai.css"

    @property
    def title(self) -> str:
        return _("Shanghai Dou Dizhu")

    def seat_cards(self, state: GameState, seat: int) -> int | None:
        return state.hand_count(seat)

    def seat_role(self, state: GameState, seat: int) -> str:
        if state.landlord is None:
            return ""
        return _("Landlord") if seat == state.landlord else _("Farmer")

    def seat_note(self, state: GameState, seat: int) -> str:
        if state.landlord is None or state.is_terminal:
            return ""
        return bombs_note(state.bombs_left[seat], state.bombs_played[seat])

    def last_actions(self, state: GameState) -> dict[int, dict[str, Any]]:
        """Each seat's bid while bidding, its play or pass in the current round."""
        if state.landlord is None:
            return {seat: bid.to_json() for seat, bid in state.bids}
        return {seat: action.to_json() for seat, action in state.round_actions}

    def sound(self, state: GameState) -> str:
        if state.log_length == 0:
            return "deal"
        ((_seat, action),) = unwind(state.log, 1)
        return _action_sound(state, action)

    def is_bomb(self, action: Mapping[str, Any]) -> bool:
        try:
            parsed = ENGINE.action_from_json(action)
        except NotationError:
            return False
        return isinstance(parsed, Play) and parsed.combo is not None and parsed.combo.is_bomb

    def table_facts(self, state: GameState | None) -> dict[str, Any]:
        if state is None:
            return {"phase": None, "bid": None}
        return {"phase": state.phase.value, "bid": state.bid}

    def shown_hand(self, state: GameState, seat: int) -> Any:
        # Once the game is over its hands are public, as on its record.
        return format_cards(state.hand(seat))

    def shown_hand_html(self, hand: Any, language: str) -> SafeString:
        return sh_cards_html(hand, language=language)

    def hints(self, state: GameState, seat: int) -> list[Any]:
        if state.landlord is None:
            return [ENGINE.action_to_json(action) for action in state.legal_actions(seat)]
        return play_hints(state)

    def frame_context(
        self, *, view: dict[str, Any], game: dict[str, Any] | None, language: str
    ) -> dict[str, Any]:
        engine = game["view"] if game else None
        hints = game["hints"] if game else None
        phase = engine["phase"] if engine else None
        my_turn = hints is not None
        playing = phase == "play"
        leading = my_turn and playing and engine is not None and engine["table"] is None
        bids = [
            {
                "move": hint,
                "label": bid_word(hint["bid"]),
                "name": "bid-" + hint["bid"],
                "primary": hint["bid"] != "pass" and index == 0,
            }
            for index, hint in enumerate(hints or [])
            if phase == "bid" and "bid" in hint
        ]
        hand = engine.get("hand") if engine else None
        seat = engine["seat"] if engine else None
        my_bombs = ""
        if engine and seat is not None and engine["landlord"] is not None and playing:
            my_bombs = bombs_sentence(engine["bombs_left"][seat])
        settlement = game["settlement"] if game else None
        points: dict[int, int] = {}
        if settlement and game:
            points = {
                row["position"]: (row["nominal"] or 0) // game["base"]
                for row in settlement["seats"]
            }
        return {
            "phase": phase,
            "hand": sh_cards_html(hand, in_hand=True, language=language) if hand else "",
            "hand_size": len(hand) if hand else 0,
            "playing": playing,
            "leading": leading,
            "can_beat": bool(hints) if playing else True,
            "bids": bids,
            "my_bombs": my_bombs,
            "points": points,
        }

    def action_html(self, parts: Any, action: dict[str, Any] | None, language: str) -> SafeString:
        return mark_safe(str(parts.action(_action_view(action, language))))

    def head_facts_html(
        self, parts: Any, *, view: dict[str, Any], game: dict[str, Any] | None
    ) -> SafeString:
        bid = view.get("bid")
        facts = {
            "bid": bid_word(bid) if bid else "",
            "bid_key": bid or "",
            "points": "" if not bid else (6 if bid == "small" else 9),
        }
        return mark_safe(str(parts.head_facts(facts)))

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
                "name": by_position[played["seat"]]["name"],
                "cards": sh_cards_html(played["cards"], language=language),
                "label": str(COMBO_LABELS[played["kind"]]),
            }
        landlord = public["landlord"]
        board = {
            "phase": public["phase"],
            "bottom": sh_cards_html(public["bottom"], language=language)
            if public["bottom"]
            else None,
            "bottom_count": 8,
            "bottom_taker": "" if landlord is None else by_position[landlord]["name"],
            "table_play": table_play,
            "to_move": to_move["name"] if to_move else "",
            "redeal": public["deal_number"] - 1 if public["phase"] == "bid" else 0,
        }
        return mark_safe(str(parts.board(board)))

    def action_of_intent(self, intent: dict[str, Any]) -> dict[str, Any] | None:
        """``pass`` and ``play`` with ``cards`` from the hand's form; the engine's action of an
        ``act`` (a bid)."""
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
            "bomb_limit": _(
                "You have played every bomb the bidding allows you: a farmer who said no "
                "bid may bomb once, one who said small landlord twice."
            ),
            "wrong_bid": _("After a small landlord, only a big landlord or no bid."),
            "wrong_phase": _("That is not what this stage of the game asks for."),
        }
        return messages.get(code)

    # Cards of two decks on the pages about a game ------------------------------------------------

    def cards_html(self, cards: str, language: str | None = None) -> SafeString:
        return sh_cards_html(cards, language=language)

    def deck_codes(self) -> str:
        return format_cards(CARDS)

    # The game page and the admin's replay -----------------------------------------------------

    def deal_lines(self, record: Mapping[str, Any]) -> list[tuple[str, str]]:
        """Every deal of the game (one more after four 不叫), each seat's hand and the bottom."""
        return deals_and_bottoms(record)

    def replay_step(
        self,
        *,
        action: Mapping[str, Any] | None,
        views: Sequence[Mapping[str, Any]],
        public: Mapping[str, Any],
        previous: Sequence[Mapping[str, Any]] | None,
    ) -> dict[str, Any]:
        """``kind`` ("deal", "bid", "play" or "pass"), ``words``, a play's ``play`` (chips
        and combination); the ``deal_number`` and whether the step threw the cards in
        (``redealt``); the ``phase`` and its label; the ``seats`` with their hands after the
        step, counts, bombs and whether each is to move; the ``landlord``, the ``bid``, the
        ``bottom`` once taken, the ``table``, ``to_move`` and ``winner``."""
        redealt = previous is not None and previous[0]["deal_number"] != public["deal_number"]
        table = public["table"]
        landlord = public["landlord"]
        return {
            "kind": _action_kind(action),
            "words": "" if action is None else action_words(action),
            "play": _play(action["play"]) if action is not None and "play" in action else None,
            "deal_number": public["deal_number"],
            "redealt": redealt,
            "phase": public["phase"],
            "phase_label": PHASE_LABELS[public["phase"]],
            "seats": [
                {
                    "seat": seat,
                    "hand": sh_chips_html(view["hand"]),
                    "count": len(view["hand"]),
                    "landlord": seat == landlord,
                    "bombs": ""
                    if landlord is None
                    else bombs_note(public["bombs_left"][seat], public["bombs_played"][seat]),
                    "to_move": seat == public["to_move"],
                }
                for seat, view in enumerate(views)
            ],
            "landlord": landlord,
            "bid": bid_word(public["bid"]) if public["bid"] else "",
            "bottom": sh_chips_html(public["bottom"]),
            "table": None if table is None else {"seat": table["seat"], **_play(table["cards"])},
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
        """The cards to beat with their combination; 地主 and 农民; the phase, the bid, the
        deal's number after a redeal and every seat's bombs; the bottom cards, face up once the
        landlord took them."""
        count = len(views)
        table = public["table"]
        landlord = public["landlord"]
        facts = [{"key": "phase", "label": _("Phase"), "value": str(PHASE_LABELS[public["phase"]])}]
        if public["bid"]:
            facts.append({"key": "bid", "label": _("Bid"), "value": bid_word(public["bid"])})
        if public["deal_number"] > 1:
            facts.append(
                {"key": "deal", "label": _("Deals dealt"), "value": str(public["deal_number"])}
            )
        return {
            "text": "" if action is None else self.replay_words(action),
            "hands": [" ".join(sorted_codes(view.get("hand"))) for view in views],
            "board": None
            if table is None
            else {
                "seat": table["seat"],
                "cards": " ".join(sorted_codes(table["cards"])),
                "label": combo_label(table["cards"]),
            },
            "to_move": public["to_move"],
            "said": [
                self.replay_words(round_actions[seat]) if seat in round_actions else ""
                for seat in range(count)
            ],
            "roles": [
                "" if landlord is None else (_("Landlord") if seat == landlord else _("Farmer"))
                for seat in range(count)
            ],
            "winner": public["winner"],
            "facts": facts,
            "piles": [
                {
                    "key": "bottom",
                    "label": _("Bottom cards"),
                    "cards": " ".join(sorted_codes(public["bottom"])),
                }
            ],
        }

    def replay_page(self, context: dict[str, Any]) -> None:
        """``deals``: every deal of the record (its seed when it has one, the face-up card, the
        first bidder, each seat's 25 cards and the bottom; the ones thrown in marked);
        ``summary`` (``game_summary``) at the last step; ``roles`` by seat."""
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
                "face_up": sh_chips_html(deal.get("face_up")),
                "first_bidder": deal["first_bidder"],
                "hands": [sh_chips_html(hand) for hand in deal["hands"]],
                "bottom": sh_chips_html(deal["bottom"]),
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
            for seat in range(4)
        ]

    def game_page(self, context: dict[str, Any]) -> None:
        """Each seat's ``role``, ``hand_count``, ``bombs`` and, once the game is over, its
        ``final_hand`` and ``points``; ``is_winner`` for the winning side; each action's
        ``kind``, ``words``, ``play`` and ``deal_number`` (``first_of_deal`` on the first
        action of a redeal); the ``summary`` (``game_summary``); the reader's hand while it is
        played (``view.hand_chips``)."""
        public = context["public"]
        names = {seat["seat"]: seat["name"] for seat in context["seats"]}
        landlord = public["landlord"]
        game = context["game"]
        result = game.result
        for seat in context["seats"]:
            number = seat["seat"]
            seat["role"] = (
                "" if landlord is None else ("landlord" if number == landlord else "farmer")
            )
            seat["hand_count"] = public["hand_counts"][number]
            seat["bombs"] = (
                ""
                if landlord is None
                else bombs_note(public["bombs_left"][number], public["bombs_played"][number])
            )
            final = seat["view"]
            seat["final_hand"] = None if final is None else sh_chips_html(final["hand"])
            if result is not None:
                seat["is_winner"] = (number == result["landlord"]) == result["landlord_won"]
                nominal = seat["player"].nominal
                seat["points"] = None if nominal is None else nominal // game.base
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
        view = context["view"]
        if view is not None:
            view["hand_chips"] = sh_chips_html(view.get("hand"))


PRESENTATION = ShanghaiPresentation(ENGINE.key)
