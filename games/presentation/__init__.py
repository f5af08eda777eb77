"""How each game looks: at the table, on the game page and in the admin's replay.

At the table: the parts of a frame that are the game's own.

The platform renders what every game shares: the seats with their names, coins and clock, the
table's status, 托管 and leaving, 再来一局, the coins of the settlement and the version. A game's
``Presentation`` fills in the rest from its engine's ``view(seat)`` and ``legal_actions(seat)``,
with the game's Jinja2 templates: ``games/<key>/table_frame.html``, which extends the platform's
``games/table_frame.html`` and fills its blocks (the hand and what the player may do, the turn
line, the settlement's own columns), and ``games/<key>/table_parts.html``, whose macros render
a seat's last ``action``, the ``board`` and the game's facts in the header (``head_facts``), and
may replace the platform's ``prompt_slot``.

On the game page and the replay, the platform gives the game's templates (picked by its key:
``games/<key>/game_detail.html``, ``admin/games/<key>/replay.html``, each extending the generic
page, which they fall back to) the engine's views and each action's JSON; ``replay_step``,
``replay_page`` and ``game_page`` add what those templates need beyond them. The players'
replay is the same page for every game: ``replay_frame`` says what each of its steps shows.

``settings.GAME_PRESENTATIONS`` names the presentation of a game by its key, where the game
needs Python to look right; any other game is shown by ``Presentation`` itself, from its
engine's view and legal actions as they are: its templates are all it needs. A socket intent
``{"action": "act", "move": {...}}`` carries the engine's action JSON for every game.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from django import forms
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, pgettext

from games.rules import Card, Rank, parse_cards
from games.rules.moves import Pass
from games.thinking import hint_choice

from ..engines import engine_for


class Presentation:
    """A game at the table, from its engine's view and legal actions as they are."""

    def __init__(self, key: str) -> None:
        self.key = key

    @property
    def title(self) -> str:
        """The game's name for people, in the active language."""
        return str(engine_for(self.key).title)

    #: The game's own stylesheet (a static path) for its table and pages; None: the site's only.
    stylesheet: str | None = None

    @property
    def frame_template(self) -> str:
        return f"games/{self.key}/table_frame.html"

    @property
    def parts_template(self) -> str:
        return f"games/{self.key}/table_parts.html"

    # What every viewer sees alike --------------------------------------------------------------

    def seat_cards(self, state: Any, seat: int) -> int | None:
        """How many cards ``seat`` holds, shown on its box; None shows nothing."""
        return None

    def last_actions(self, state: Any) -> dict[int, dict[str, Any]]:
        """The action each seat's box shows as its last, by seat (JSON)."""
        return {}

    def table_facts(self, state: Any | None) -> dict[str, Any]:
        """The game's own entries of the table's view (``state``: None before the first game)."""
        return {}

    def played_cards(self, state: Any) -> Iterable[Card] | None:
        """Every card played so far, seen by all: what the card counter (记牌器) takes from the
        deck; None: the game shows no counter."""
        return None

    def cards_of_view(self, engine_view: Mapping[str, Any] | None) -> Iterable[Card]:
        """The cards a viewer's own view (the engine's ``view(seat)``) shows them holding, which
        the counter also takes away for that viewer: only what the view shows, so that the
        counter tells no more than it (a hand still being dealt, another seat's cards)."""
        if not engine_view:
            return ()
        # 上海斗地主 writes each card with its deck ("As.2"); the counter counts ranks.
        return [Card.parse(code.split(".")[0]) for code in engine_view.get("hand") or ()]

    def last_round(self, state: Any) -> dict[int, str]:
        """What each seat did last in the round before the current one, in short words for its
        box, by seat; {} when there was none."""
        return {}

    def sound(self, state: Any) -> str:
        """The sound of the game's newest change, the same for every viewer (a file of
        ``static/sounds/``): "deal" as it is dealt, else what a game names for its actions
        ("play", "pass", "bid", "bomb", "rocket"); "" for none. The table adds "win", "lose" and
        "turn" by itself."""
        return "deal" if state.log_length == 0 else ""

    def is_bomb(self, action: Mapping[str, Any]) -> bool:
        """Whether ``action`` (the engine's JSON, as stored with a game's events) plays a bomb,
        the rocket (王炸) included: what the daily task of playing a bomb counts. A game
        without bombs has none."""
        return False

    def seat_to_move(self, state: Any) -> int | None:
        """The seat whose box shows the turn and its clock; None: no one's (a deal in stages)."""
        return state.to_move  # type: ignore[no-any-return]

    #: How many decks the game plays with, for the card counter (上海斗地主: two).
    decks = 1

    #: Whether the seat that deals is marked at the table.
    marks_dealer = True

    def seat_role(self, state: Any, seat: int) -> str:
        """The seat's role in the game, shown on its box (斗地主's 地主 and 农民); "": none."""
        return ""

    def seat_note(self, state: Any, seat: int) -> str:
        """A short fact of the seat's own in this game, shown as a badge on its box to every
        viewer (上海斗地主's bombs left to a farmer); "": none."""
        return ""

    def shown_hand(self, state: Any, seat: int) -> Any:
        """What the settlement shows of ``seat``'s cards once the game is over (falsy: none)."""
        return None

    # What one viewer sees ----------------------------------------------------------------------

    def wants_bot_choice(self, state: Any) -> bool:
        """Whether the frames of ``state`` offer the game's bot's choice for the player to move,
        which the move path then makes off the event loop beforehand (``thinking.prepare_hint``)."""
        return False

    def hints(self, state: Any, seat: int) -> list[Any]:
        """What the seat to move may do, offered in this order (JSON)."""
        engine = engine_for(self.key)
        return [engine.action_to_json(action) for action in state.legal_actions(seat)]

    def start_choices(self, rules: Mapping[str, Any]) -> list[dict[str, Any]]:
        """What a player waiting for the next game (with the room's ``rules``) may choose to do as
        soon as it is dealt: ``{"move": the action's JSON, "label": its button}`` each."""
        engine = engine_for(self.key)
        actions = engine.start_actions(engine.options_from_json(rules))
        return [{"move": engine.action_to_json(action), "label": str(action)} for action in actions]

    def start_label(self, action: Mapping[str, Any]) -> str:
        """What a seat's box says of the start action its player chose (``start_choices``)."""
        return str(engine_for(self.key).action_from_json(action))

    def seat_actions(self, state: Any, seat: int) -> list[Any]:
        """What ``seat`` may do now besides the hints, on its turn or not (斗地主's 明牌 and
        加倍), as the engine's actions (JSON)."""
        return []

    def frame_context(
        self, *, view: dict[str, Any], game: dict[str, Any] | None, language: str
    ) -> dict[str, Any]:
        """The game's own entries of a viewer's frame context, from its ``view`` (with the
        engine's view in ``game["view"]`` and the hints in ``game["hints"]``)."""
        return {}

    # HTML, from the game's parts ---------------------------------------------------------------

    def action_html(self, parts: Any, action: dict[str, Any] | None, language: str) -> SafeString:
        """A seat's last action (``last_actions``) on its box."""
        if action is None or not hasattr(parts, "action"):
            return mark_safe("")
        return mark_safe(str(parts.action(action)))

    def head_facts_html(
        self, parts: Any, *, view: dict[str, Any], game: dict[str, Any] | None
    ) -> SafeString:
        """The game's facts in the table's header, after the platform's: the same for every
        viewer, so made from what every viewer sees (the ``view`` and ``game`` shared by
        all, ``table_view_shared``'s), never from one viewer's."""
        if not hasattr(parts, "head_facts"):
            return mark_safe("")
        return mark_safe(str(parts.head_facts(view, game)))

    def board_html(
        self,
        parts: Any,
        *,
        state: Any | None,
        by_position: dict[int, dict[str, Any]],
        to_move: dict[str, Any] | None,
        language: str,
    ) -> SafeString:
        """The middle of the table while a game is played, the same for every viewer: from
        the view of a spectator (``state.view(None)``) and the seats as everyone sees them."""
        if not hasattr(parts, "board"):
            return mark_safe("")
        public = None if state is None else state.view(None, history=False)
        return mark_safe(str(parts.board(public, by_position, to_move)))

    def shown_hand_html(self, hand: Any, language: str) -> SafeString:
        """``shown_hand`` on the settlement."""
        return mark_safe("")

    def choice_label(self, choice: str, language: str) -> str:
        """One of the meanings a player is asked to choose between (``choose_meaning``)."""
        return choice

    # Intents and refusals ----------------------------------------------------------------------

    def action_of_intent(self, intent: dict[str, Any]) -> dict[str, Any] | None:
        """The engine's action JSON a socket intent asks for (``act``: the one it carries);
        None when the intent names none (nothing chosen yet)."""
        if intent["action"] == "act":
            move = intent.get("move")
            return move if isinstance(move, dict) and move else None
        return None

    # The room's rules in the admin -------------------------------------------------------------

    def room_rules_fields(self) -> dict[str, forms.Field]:
        """The options of a room's ``rules`` that staff set with a form field of their own in
        the admin, by option name: a fresh form field each, whose empty value (None) leaves the
        option at the standard game's. The rest of the options stay in the rules' JSON."""
        return {}

    #: Whether ``room_rules_fields`` gives every option of the game's rules a field: the admin
    #: then shows no JSON of the rules at all.
    rules_fields_cover_all = False

    def table_rules_fields(self) -> dict[str, forms.Field]:
        """The options a player opening a private table chooses for it, as ``room_rules_fields``
        gives them (the others stay the room's); none: the table plays the room's rules."""
        return {}

    def rules_initial(self, rules: Mapping[str, Any]) -> dict[str, Any]:
        """The values the rules fields start from for ``rules`` (a room's): what they state."""
        return dict(rules)

    def rules_phrases(self, rules: Mapping[str, Any] | None) -> list[str]:
        """``rules`` in short words for people ("标准规则", "可压对子", …); none: the game
        does not say them."""
        return []

    def rules_explained(self) -> list[dict[str, str]]:
        """Each option of the game's rules for the rules page: ``name``, ``title`` and
        ``text``; none: the rules documents say all there is."""
        return []

    # Cards on the pages about a game ------------------------------------------------------------

    def cards_html(self, cards: str, language: str | None = None) -> SafeString:
        """Cards in the game's notation as the table draws them (not in a hand), lowest first:
        the players' replay draws its steps with these."""
        from ..frames.cards import cards_html  # the frames read the presentations

        return cards_html(cards, language=language)

    def deck_codes(self) -> str:
        """Every card of the game's deck, in its notation: the faces a replay draws from."""
        from games.rules.cards import CARDS

        return " ".join(str(card) for card in CARDS)

    # The game page and the admin's replay ------------------------------------------------------

    def deal_lines(self, record: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The cards a finished game was dealt, as staff read them in the admin, from the game's
        ``record``: ``(label, cards)`` each. By default a record's ``hands`` by seat, then its
        ``stock`` when it has one."""
        lines = [
            (gettext("Seat %(seat)s") % {"seat": seat}, str(hand))
            for seat, hand in enumerate(record.get("hands") or ())
        ]
        if record.get("stock"):
            lines.append((gettext("Stock, top first"), str(record["stock"])))
        return lines

    def replay_step(
        self,
        *,
        action: Mapping[str, Any] | None,
        views: Sequence[Mapping[str, Any]],
        public: Mapping[str, Any],
        previous: Sequence[Mapping[str, Any]] | None,
    ) -> dict[str, Any]:
        """What the game's replay template shows of one step, beyond its number, seat and
        action: from the action's JSON (None: the deal), every seat's view after it, the public
        view after it, and every seat's view before it (None for the deal)."""
        return {}

    def replay_words(self, action: Mapping[str, Any]) -> str:
        """An action (its JSON as stored) in a few words for the players' replay, without the
        name of who made it: "plays 3 3 3 4 4", "Pass", "Call the landlord"."""
        return str(engine_for(self.key).action_from_json(action))

    def replay_frame(
        self,
        *,
        action: Mapping[str, Any] | None,
        views: Sequence[Mapping[str, Any]],
        public: Mapping[str, Any],
        details: Mapping[str, Any],
        round_actions: Mapping[int, Mapping[str, Any]],
    ) -> dict[str, Any]:
        """One step of the players' replay, JSON-safe, the same for every game's page: ``text``
        (the action in words, "" for the deal), ``hands`` (each seat's cards in notation),
        ``board`` (None, or the cards to beat: ``{"seat", "cards", "label"}``), ``to_move``,
        ``said`` (what each seat did last in the current round, in words, "" for nothing),
        ``roles`` (by seat, "" for none), ``winner`` (a seat, or None), ``facts`` (``{"key",
        "label", "value"}`` each: the game's numbers) and ``piles`` (``{"key", "label",
        "cards"}`` each: cards shown apart from the hands). From the step's action, every
        seat's view, the public view, what ``replay_step`` made of them (``details``) and
        ``last_actions`` after it."""
        count = len(views)
        return {
            "text": "" if action is None else self.replay_words(action),
            "hands": [sorted_cards(view.get("hand")) for view in views],
            "board": None,
            "to_move": public.get("to_move"),
            "said": [
                self.replay_words(round_actions[seat]) if seat in round_actions else ""
                for seat in range(count)
            ],
            "roles": [""] * count,
            "winner": public.get("winner"),
            "facts": [],
            "piles": [],
        }

    def replay_page(self, context: dict[str, Any]) -> None:
        """Add to the admin's replay page's context what the game's template shows beyond its
        steps (``replay``: None until the game is over, else its ``record``, ``steps`` and the
        engine's ``settlement``; ``players``: the game's players by seat; ``step``: the step
        staff look at)."""
        return None

    def game_page(self, context: dict[str, Any]) -> None:
        """Add to the game page's context what the game's template shows (``seats``: each with
        its final ``view`` once the game is over, ``actions``: each with its JSON, ``view``: the
        reader's view while it is played, ``public``: a spectator's view)."""
        return None

    def refusal_message(self, code: str) -> str | None:
        """What to tell a player whose action the game refused with ``code``; None: the
        platform's words."""
        return None


class HandsPresentation(Presentation):
    """A game whose seats hold cards and play them (``state.hand(seat)``, and ``state.history``
    of ``(seat, action)`` where the plays are ``play_type`` with their ``cards``): the card
    counter counts from that history."""

    play_type: type[Any]

    def played_cards(self, state: Any) -> Iterable[Card]:
        return [
            card
            for _seat, action in state.history
            if isinstance(action, self.play_type)
            for card in action.cards
        ]

    def wants_bot_choice(self, state: Any) -> bool:
        # Bids, 加倍 and a hand that cannot beat the table offer no plays (``hint_plays``).
        return bool(offered_plays(state, self.play_type))

    def last_round(self, state: Any) -> dict[int, str]:
        # A round ends when every other seat has passed after a play.
        rounds: list[list[tuple[int, Any]]] = [[]]
        passes = 0
        for seat, action in state.history:
            if isinstance(action, Pass):
                passes += 1
            elif isinstance(action, self.play_type):
                passes = 0
            else:
                continue  # the deal, bids, 明牌, 加倍
            rounds[-1].append((seat, action))
            if passes == state.players - 1:
                rounds.append([])
                passes = 0
        if len(rounds) < 2:
            return {}
        return {seat: _short(action) for seat, action in rounds[-2]}


def deals_and_bottoms(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The admin's lines of a landlord game's ``record``: every deal it was dealt (one more for
    each round where nobody bid), each seat's hand and the bottom cards."""
    deals = record["deals"]
    lines: list[tuple[str, str]] = []
    for number, deal in enumerate(deals, start=1):
        prefix = gettext("Deal %(number)s") % {"number": number} + " · " if len(deals) > 1 else ""
        lines.extend(
            (prefix + gettext("Seat %(seat)s") % {"seat": seat}, hand)
            for seat, hand in enumerate(deal["hands"])
        )
        lines.append((prefix + gettext("Bottom cards"), deal["bottom"]))
    return lines


def offered_plays(state: Any, play_type: type) -> list[Any]:
    """The plays (of ``play_type``) the player to move in ``state`` may make, in the engine's
    order; empty when the game is over or nothing beats the table."""
    if state.to_move is None or state.is_terminal:
        return []
    return [move for move in state.legal_moves() if isinstance(move, play_type)]


def hint_plays(
    engine: Any, state: Any, play_type: type, key: Callable[[Any], Any] | None = None
) -> list[Any]:
    """The ``offered_plays`` in the order the Hint button offers them: the game's bot's choice
    first (when it plays), then all of them in the engine's order or by ``key``. The bot is
    asked only when there are plays, as ``HandsPresentation.wants_bot_choice`` says."""
    plays = offered_plays(state, play_type)
    if not plays:
        return []
    choice = hint_choice(engine, state)
    rest = plays if key is None else sorted(plays, key=key)
    return ([choice] if isinstance(choice, play_type) else []) + rest


def plays_bot_first(engine: Any, state: Any, play_type: type) -> list[dict[str, str]]:
    """The ``hint_plays`` of the player to move in ``state``, each set of cards once
    (``{"cards": "3s 3h"}``). Empty when nothing beats the table."""
    hints: list[dict[str, str]] = []
    seen: set[str] = set()
    for play in hint_plays(engine, state, play_type):
        cards = str(play)
        if cards not in seen:
            seen.add(cards)
            hints.append({"cards": cards})
    return hints


def play_words(cards: str) -> str:
    """A play in the players' replay: its ranks, lowest first (``plays 3 3 3 4 4``)."""
    ranks = " ".join(
        "10" if card.rank is Rank.TEN else card.rank.symbol for card in sorted(parse_cards(cards))
    )
    return pgettext("replay action", "plays %(ranks)s") % {"ranks": ranks}


def sorted_cards(cards: Iterable[str] | str | None) -> str:
    """Cards (codes or notation) in notation, lowest first, as a hand shows them."""
    if not cards:
        return ""
    text = cards if isinstance(cards, str) else " ".join(cards)
    return " ".join(str(card) for card in sorted(parse_cards(text)))


def _short(action: Any) -> str:
    """A play as its ranks (``4 4``, ``10 J Q K A``), a pass as its word."""
    if isinstance(action, Pass):
        return pgettext("table action", "Pass")
    return " ".join("10" if card.rank is Rank.TEN else card.rank.symbol for card in action.cards)


@functools.cache
def presentation_for(key: str) -> Presentation:
    """The presentation of the game ``key`` (``settings.GAME_PRESENTATIONS``, else the
    default)."""
    path = getattr(settings, "GAME_PRESENTATIONS", {}).get(key)
    if path is None:
        return Presentation(key)
    presentation = import_string(path)
    if not isinstance(presentation, Presentation) or presentation.key != key:
        raise ValueError(f"{path} is not the presentation of {key!r}")
    return presentation


@receiver(setting_changed)
def _forget_presentations(*, setting: str, **_kwargs: Any) -> None:
    if setting in ("GAME_PRESENTATIONS", "GAME_ENGINES"):
        presentation_for.cache_clear()


def game_templates(key: str, generic: str, *, folder: str) -> list[str]:
    """The game's own template ``<folder>/<key>/<name of generic>``, then the generic one."""
    return [f"{folder}/{key}/{generic.rsplit('/', 1)[-1]}", generic]
