"""The table as HTML for one viewer: the page's first render and every websocket frame.

A frame is rendered from ``table_view`` for the viewer's own seat only, so it can hold no card
that seat may not see. Each frame is the whole table with its version: a client that missed a
frame is whole again with the next one.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import jinja2
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.template import engines
from django.urls import reverse
from django.utils import translation
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from games.rules import Card, parse_cards, parse_ranks
from games.rules.gandengyan import ComboKind, GameState
from games.rules.gandengyan.combos import combo_from_ranks
from gandengyan.jinja2 import environment_for_language

from .lru import LruCache
from .models import Game, Seat, Table
from .selectors import (
    SharedView,
    TableRows,
    game_state,
    table_get_for_user,
    table_rows,
    table_view,
    table_view_shared,
)
from .views import room_entry_refusal

SUIT_SYMBOLS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
RED_SUITS = {"h", "d"}


@dataclass(frozen=True)
class CardFace:
    """How one card looks: ``code`` is its notation (``Ts``, ``RJ``), ``rank`` the corner text."""

    code: str
    rank: str
    suit: str
    red: bool
    joker: str  # "", "big" or "small"
    label: str  # for screen readers


def card_face(code: str) -> CardFace:
    card = Card.parse(code)
    if card.is_joker:
        big = str(card) == "RJ"
        return CardFace(
            code=str(card),
            rank="JOKER",
            suit="★",
            red=big,
            joker="big" if big else "small",
            label=_("Big joker") if big else _("Small joker"),
        )
    text = str(card)
    rank = "10" if text[0] == "T" else text[0]
    suit = text[1]
    return CardFace(
        code=text,
        rank=rank,
        suit=SUIT_SYMBOLS[suit],
        red=suit in RED_SUITS,
        joker="",
        label=f"{SUIT_NAMES()[suit]} {rank}",
    )


def SUIT_NAMES() -> dict[str, str]:  # noqa: N802 - a constant that follows the active language
    return {
        "s": pgettext("suit", "Spades"),
        "h": pgettext("suit", "Hearts"),
        "d": pgettext("suit", "Diamonds"),
        "c": pgettext("suit", "Clubs"),
    }


def cards_html(cards: str, *, in_hand: bool = False, language: str | None = None) -> SafeString:
    """The cards of a card list in notation as HTML, lowest first (jokers last); ``in_hand``:
    as the player's own cards, each a checkbox to select it. ``language``: the active one."""
    if not cards:
        return mark_safe("")
    language = language or translation.get_language() or ""
    return mark_safe(
        "".join(_card_html(str(card), language, in_hand) for card in sorted(parse_cards(cards)))
    )


@functools.lru_cache(maxsize=1024)
def _card_html(code: str, language: str, in_hand: bool) -> str:
    """One card's HTML: the same few dozen strings make up every frame, so each is built once
    per language instead of by the template engine for every card of every frame."""
    face = card_face(code)
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
            '<label class="{}" data-card="{}" title="{}"><input type="checkbox" name="cards"'
            ' value="{}" class="visually-hidden">{}</label>',
            classes,
            face.code,
            face.label,
            face.code,
            inner,
        )
    return format_html(
        '<span class="{}" data-card="{}" title="{}">{}</span>',
        classes,
        face.code,
        face.label,
        inner,
    )


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


def _fragments(name: str = "table_frame", language: str | None = None) -> jinja2.Template:
    """The frame's template, or (``table_parts``) the one whose macros render its parts on
    their own (gandengyan/jinja2.py says why Jinja2), in ``language`` (the active one). The
    environment keeps them compiled."""
    language = language or translation.get_language() or settings.LANGUAGE_CODE
    environment = _fragments_environment(language)
    if environment.auto_reload:  # while developing: edits to the templates show at once
        return environment.get_template(f"games/{name}.html")
    return _fragments_template(name, language)


@functools.cache
def _fragments_template(name: str, language: str) -> jinja2.Template:
    # The environment's own cache checks its loader and takes a lock on every call.
    return _fragments_environment(language).get_template(f"games/{name}.html")


@functools.cache
def _fragments_environment(language: str) -> jinja2.Environment:
    return environment_for_language(engines["fragments"].env, language)  # type: ignore[attr-defined]


#: The seats' HTML by everything it shows, as everyone sees it and as its own player does: from
#: one move to the next most seats look the same.
_seats_html: LruCache[tuple[SafeString, SafeString]] = LruCache(4096)


def seat_html(
    row: dict[str, Any],
    *,
    status: str,
    deadline: str | None,
    turn_seconds: int | None,
    language: str | None = None,
) -> SafeString:
    """One seat of ``table_view``'s ``seats`` as HTML (the template's ``seat`` partial), in
    ``language`` (the active one)."""
    language = language or translation.get_language() or settings.LANGUAGE_CODE
    last = row["last_action"]
    key = (
        language,
        status,
        deadline if row["to_move"] else None,
        turn_seconds,
        None if last is None else tuple(sorted(last.items())),
        *(row[field] for field in _SEAT_FIELDS),
    )
    both = _seats_html.get(key)
    if both is None:
        seat = {**row, "last": _action_view(last, language)}
        parts = _fragments("table_parts", language).module
        html = str(parts.seat(seat, status, deadline, turn_seconds))
        others = html.replace("<!--you-->", "", 1).replace("<!--you-badge-->", "", 1)
        yours = html.replace("<!--you-->", " is-you", 1).replace(
            "<!--you-badge-->", str(parts.you_badge()), 1
        )
        both = (mark_safe(others), mark_safe(yours))
        _seats_html.put(key, both)
    return both[1] if row["is_you"] else both[0]


#: What a seat's HTML shows of its row in ``table_view``: the key it is kept by (``is_you``
#: picks one of the two kept).
_SEAT_FIELDS = (
    "position",
    "name",
    "is_bot",
    "is_empty",
    "coins",
    "ready",
    "cards",
    "dealer",
    "to_move",
    "auto_play",
    "leaves_after_game",
)


def frame_context(
    *,
    table: Table,
    seat: int | None,
    notice: str = "",
    choices: tuple[str, ...] = (),
    prompt_cards: str = "",
    rows: TableRows | None = None,
    state: GameState | None = None,
    shared: SharedView | None = None,
    language: str | None = None,
) -> dict[str, Any]:
    """Everything the table template needs, for ``seat`` (None: a spectator). ``shared``: as for
    ``table_view``; ``language``: the active one."""
    language = language or translation.get_language() or settings.LANGUAGE_CODE
    view = table_view(table=table, seat=seat, rows=rows, state=state, shared=shared)
    game = view["game"]
    seats = view["seats"]
    count = len(seats)
    bottom = seat if seat is not None else 0
    # Opponents in the order of play from the viewer: the next player first.
    order = [(bottom + step) % count for step in range(1, count)]
    by_position = {row["position"]: row for row in seats}
    deadline = game["deadline"] if game else None
    turn_seconds = game["turn_seconds"] if game else None
    for row in seats:
        row["html"] = seat_html(
            row,
            status=view["status"],
            deadline=deadline,
            turn_seconds=turn_seconds,
            language=language,
        )
    engine = game["view"] if game else None
    hand = (
        cards_html(" ".join(engine["hand"]), in_hand=True, language=language)
        if engine and engine.get("hand")
        else ""
    )
    hints = game["hints"] if game else None
    my_turn = hints is not None
    to_move = next((row for row in seats if row["to_move"]), None)
    multiplier = (
        (game["settlement"] or {}).get("multiplier")
        if game and game["settlement"]
        else view["multiplier"]
    )
    # The header and the board look the same to every player: rendered once for all of them.
    shared_html = shared.html if shared is not None else {}
    if not shared_html:
        parts = _fragments("table_parts", language).module
        table_play = None
        if engine and engine.get("table"):
            played = engine["table"]
            table_play = {
                "seat": by_position[played["seat"]],
                "cards": cards_html(played["cards"], language=language),
                "label": combo_label(played["as"], language),
            }
        shared_html["head"] = mark_safe(str(parts.head(view, game, multiplier)))
        shared_html["board"] = mark_safe(str(parts.board(table_play, to_move)))
    settlement = None
    if game and game["settlement"]:
        settlement = [
            {**row, "hand_html": cards_html(row["hand"], language=language)}
            for row in game["settlement"]["seats"]
        ]
    choice_rows = [{"as": ranks, "label": combo_label(ranks, language)} for ranks in choices]
    winner_name = ""
    if settlement and game is not None and game["winner"] is not None:
        winner_name = next(
            (row["name"] for row in settlement if row["position"] == game["winner"]), ""
        )
    me = by_position.get(seat) if seat is not None else None
    next_game_refusal = None
    if me is not None and settlement and view["status"] == "waiting" and not me["ready"]:
        # Shown in the player's own frame while it holds, rather than as a notice that the
        # next frame would wipe; the lobby's own words, with the way out.
        next_game_refusal = room_entry_refusal(room=table.room, balance=me["coins"] or 0)
    return {
        "view": view,
        "winner_name": winner_name,
        "game": game,
        "engine": engine,
        "me": me,
        "next_game_refusal": next_game_refusal,
        "bottom": by_position[bottom],
        "opponents": [by_position[position] for position in order],
        "hand": hand,
        "head_html": shared_html["head"],
        "board_html": shared_html["board"],
        "my_turn": my_turn,
        "leading": my_turn and engine is not None and engine["table"] is None,
        "can_beat": bool(hints),
        "hints": hints or [],
        "to_move": to_move,
        "settlement": settlement,
        "multiplier": multiplier,
        "notice": notice,
        "choices": choice_rows,
        "prompt_cards": prompt_cards,
        "prompt_html": _prompt_html(choice_rows, prompt_cards, view["version"], language),
        "notice_html": _notice_html(notice, language),
        "invite_url": reverse("games:table_join", args=[view["invite_code"]])
        if view["invite_code"]
        else None,
    }


def _prompt_html(
    choices: list[dict[str, str]], cards: str, version: str, language: str
) -> SafeString:
    """The prompt slot of a frame: empty but for the choice of a play's meaning."""
    if not choices:
        return _empty_slots(language)[0]
    parts = _fragments("table_parts", language).module
    return mark_safe(str(parts.prompt_slot(choices, cards, version)))


def _notice_html(notice: str, language: str) -> SafeString:
    """The notice slot of a frame: empty unless ``notice`` says something."""
    if not notice:
        return _empty_slots(language)[1]
    return mark_safe(str(_fragments("table_parts", language).module.notice_slot(notice)))


@functools.cache
def _empty_slots(language: str) -> tuple[SafeString, SafeString]:
    """The empty prompt and notice slots, which nearly every frame ends with."""
    parts = _fragments("table_parts", language).module
    return mark_safe(str(parts.prompt_slot([], "", ""))), mark_safe(str(parts.notice_slot("")))


def render_frame_and_version(
    *,
    table: Table,
    seat: int | None,
    rows: TableRows | None = None,
    state: GameState | None = None,
    shared: SharedView | None = None,
    language: str | None = None,
) -> tuple[str, str]:
    """The websocket frame for ``seat`` (the whole table, then the emptied prompt and notice),
    and the table version it shows. ``shared`` and ``language``: as for ``frame_context``."""
    context = frame_context(
        table=table, seat=seat, rows=rows, state=state, shared=shared, language=language
    )
    return render_frame(context, language), context["view"]["version"]


def render_frame(context: dict[str, Any], language: str | None = None) -> SafeString:
    """The frame of ``frame_context``: the table, then the emptied prompt and notice."""
    return mark_safe(_fragments(language=language).render(context))


def render_player_frames(
    *, table: Table, rows: TableRows, state: GameState | None
) -> dict[str, Any]:
    """The frame of every player seated at ``table``, rendered once after a change instead of
    once per socket: ``{"frames": {"<user id>": html, ...}, "seats": {"<user id>": position,
    ...}, "version": ..., "language": ...}``.

    ``rows`` are the table's rows as the change left them, ``state`` the position of its
    current game. A frame is keyed by the user it is for, and is ``table_view`` for the seat that
    user holds, so it holds only what that seat may see, whoever sits where by the time it
    arrives. The frames are in the site's default language; a socket in another language, and a
    spectator's, renders its own (nothing is rendered when no player sits at the table).
    """
    frames: dict[str, str] = {}
    positions: dict[str, int] = {}
    version = ""
    language = settings.LANGUAGE_CODE
    with translation.override(language):
        # What every player's view shows alike is made once.
        shared = table_view_shared(table=table, rows=rows, state=state)
        for seat in rows.seats:
            if seat.user_id is None:
                continue
            frames[str(seat.user_id)], version = render_frame_and_version(
                table=table, seat=seat.position, shared=shared, language=language
            )
            positions[str(seat.user_id)] = seat.position
    if not frames:
        return {}
    return {
        "frames": frames,
        "seats": positions,
        "version": version,
        "language": settings.LANGUAGE_CODE,
    }


def frames_of_table(
    *,
    table_id: int | None = None,
    table: Table | None = None,
    seats: list[Seat] | None = None,
    last: Game | None = None,
) -> dict[str, Any]:
    """``render_player_frames`` after any change of the table, read as it is now: the table
    ``table_id``, or ``table`` and its ``seats`` (with their users, by position) as the change
    left them, and its latest game ``last``, when the caller has them."""
    if table is None:
        table = Table.objects.select_related("room").get(pk=table_id)
    rows = table_rows(table=table, game=last, seats=seats)
    state = None if rows.game is None else game_state(game=rows.game)
    return render_player_frames(table=table, rows=rows, state=state)


def render_prompt(*, table: Table, seat: int, cards: str, choices: tuple[str, ...]) -> str:
    """The fragment that asks which of ``choices`` the player means by ``cards``."""
    context = frame_context(table=table, seat=seat, choices=choices, prompt_cards=cards)
    parts = _fragments("table_parts").module
    return str(parts.prompt_slot(context["choices"], cards, context["view"]["version"]))


def render_notice(message: str) -> str:
    """The fragment that shows ``message`` (escaped) in the notice slot."""
    return str(_fragments("table_parts").module.notice_slot(message))


def render_frame_for_user(
    *, user: AbstractBaseUser | AnonymousUser, table_id: int, invite_code: str | None = None
) -> tuple[str, str]:
    """``user``'s frame of the table (their seat, or a spectator's), and its version. Raises
    ``Table.DoesNotExist`` when the user may not see the table."""
    table, seat = table_get_for_user(user=user, table_id=table_id, invite_code=invite_code)
    return render_frame_and_version(table=table, seat=seat)


def refusal_message(code: str) -> str:
    """What to tell a player whose action was refused, by the refusal's code."""
    messages = {
        "stale": _("The table changed before your action arrived. Please look again."),
        "not_your_turn": _("It is not your turn."),
        "does_not_beat": _("These cards do not beat the cards on the table."),
        "not_a_combination": _("These cards do not form a combination."),
        "cards_not_in_hand": _("You do not hold these cards."),
        "leader_must_play": _("You lead this round, so you must play."),
        "lone_joker": _(
            "A joker may be played alone only as your last card, when the stock is empty."
        ),
        "meaning_not_possible": _("These cards cannot be played that way."),
        "game_over": _("This game is over."),
        "not_seated": _("You are not playing at this table."),
        "no_game": _("No game is being played at this table."),
        "no_selection": _("Choose the cards to play first."),
        "choose_meaning": _("These cards can be played in more than one way: choose one."),
        "bad_action": _("That action was not understood."),
        "too_fast": _("Too many actions at once. Please slow down."),
    }
    return messages.get(code, _("That action is not allowed now."))
