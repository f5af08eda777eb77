"""The table as HTML for one viewer: the page's first render and every websocket frame.

A frame is rendered from ``table_view`` for the viewer's own seat only, so it can hold no card
that seat may not see. Each frame is the whole table with its version: a client that missed a
frame is whole again with the next one.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, cast

import jinja2
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.template import engines
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe

from .. import engines as game_engines
from ..engines import DEFAULT_GAME
from ..lru import LruCache
from ..models import Game, GamePlayer, Seat, Table
from ..presentation import Presentation, presentation_for
from ..selectors import TableRows, game_state, table_get_for_user, table_rows
from .cards import card_counter_html
from .jinja2 import environment_for_language
from .refusals import room_entry_refusal
from .views import SharedView, table_view, table_view_shared


def _fragments(name: str, language: str | None = None) -> jinja2.Template:
    """The template ``name``: a game's frame (``games/<key>/table_frame.html``), or one whose
    macros render parts of it on their own (games/frames/jinja2.py says why Jinja2), in
    ``language`` (the active one). The environment keeps them compiled."""
    language = language or translation.get_language() or settings.LANGUAGE_CODE
    environment = _fragments_environment(language)
    if environment.auto_reload:  # while developing: edits to the templates show at once
        return environment.get_template(name)
    return _fragments_template(name, language)


def _table_parts(language: str | None = None) -> Any:
    """The macros of the parts every game shares (``games/table_parts.html``) in ``language``:
    attributes of the template's module, which Jinja2 makes when it runs the template, so their
    names are known only then."""
    return _fragments("games/table_parts.html", language).module


def _game_parts(presentation: Presentation, language: str | None = None) -> Any:
    """The macros of the game's own parts (``games/<key>/table_parts.html``)."""
    return _fragments(presentation.parts_template, language).module


def load_fragments() -> None:
    """Compile every game's frame templates in every language of the site, as the first frames
    would: a worker does it before it serves (``games.heap``)."""
    for key in game_engines.engines():
        presentation = presentation_for(key)
        for language, _name in settings.LANGUAGES:
            _table_parts(language)
            _fragments("games/table_frame.html", language)  # what the games' frames extend
            for name in (presentation.frame_template, presentation.parts_template):
                # A game may have no parts of its own.
                with contextlib.suppress(jinja2.TemplateNotFound):
                    _fragments(name, language)


@functools.cache
def _fragments_template(name: str, language: str) -> jinja2.Template:
    # Found by name and language at once, without the environment's path joining and lookup.
    return _fragments_environment(language).get_template(name)


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
    presentation: Presentation | None = None,
) -> SafeString:
    """One seat of ``table_view``'s ``seats`` as HTML (the template's ``seat`` partial), in
    ``language`` (the active one), its last action as ``presentation`` shows it (the default
    game's when None)."""
    language = language or translation.get_language() or settings.LANGUAGE_CODE
    if presentation is None:
        presentation = presentation_for(DEFAULT_GAME)
    last = row["last_action"]
    key = (
        presentation.key,
        language,
        status,
        deadline if row["to_move"] else None,
        turn_seconds,
        None if last is None else tuple(sorted(last.items())),
        *(row[field] for field in _SEAT_FIELDS),
    )
    both = _seats_html.get(key)
    if both is None:
        seat = {
            **row,
            "last": presentation.action_html(_game_parts(presentation, language), last, language),
        }
        parts = _table_parts(language)
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
    "start",
    "cards",
    "dealer",
    "role",
    "note",
    "to_move",
    "auto_play",
    "leaves_after_game",
    "last_round",
)


def frame_context(
    *,
    table: Table,
    seat: int | None,
    notice: str = "",
    choices: tuple[str, ...] = (),
    prompt_cards: str = "",
    rows: TableRows | None = None,
    state: Any | None = None,
    shared: SharedView | None = None,
    language: str | None = None,
) -> dict[str, Any]:
    """Everything the table template needs, for ``seat`` (None: a spectator), with the game's
    own entries (its presentation's ``frame_context``), and the game's frame template as
    ``frame_template``. ``shared``: as for ``table_view``; ``language``: the active one."""
    language = language or translation.get_language() or settings.LANGUAGE_CODE
    if shared is None:
        shared = table_view_shared(table=table, rows=rows, state=state)
    presentation = shared.presentation
    view = table_view(table=table, seat=seat, shared=shared)
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
            presentation=presentation,
        )
    engine = game["view"] if game else None
    hints = game["hints"] if game else None
    my_turn = hints is not None
    to_move = next((row for row in seats if row["to_move"]), None)
    own = presentation.frame_context(view=view, game=game, language=language)
    # The header and the board look the same to every viewer: rendered once for all of them,
    # from what all of them see (the shared view, a spectator's seats), never this viewer's.
    shared_html = shared.html
    if not shared_html:
        parts = _table_parts(language)
        game_parts = _game_parts(presentation, language)
        public_seats = shared.view["seats"]
        facts = presentation.head_facts_html(game_parts, view=shared.view, game=shared.game)
        rules = presentation.rules_phrases(_rules_shown(table, shared))
        shared_html["head"] = mark_safe(str(parts.head(shared.view, shared.game, facts, rules)))
        shared_html["board"] = presentation.board_html(
            game_parts,
            state=shared.state,
            by_position={row["position"]: row for row in public_seats},
            to_move=next((row for row in public_seats if row["to_move"]), None),
            language=language,
        )
    settlement = None
    if game and game["settlement"]:
        settlement = [
            {**row, "hand_html": presentation.shown_hand_html(row["hand"], language)}
            for row in game["settlement"]["seats"]
        ]
    choice_rows = [
        {"as": choice, "label": presentation.choice_label(choice, language)} for choice in choices
    ]
    winner_name = ""
    if settlement and game is not None and game["winner"] is not None:
        winner_name = next(
            (row["name"] for row in settlement if row["position"] == game["winner"]), ""
        )
    counter = ""
    state_now = shared.state
    if shared.played is not None and state_now is not None and not state_now.is_terminal:
        # The viewer's own cards as far as their view shows them (none to a spectator; during
        # a staged deal only those dealt so far): the counter tells nothing the view does not.
        hand = presentation.cards_of_view(engine)
        counter = card_counter_html(shared.played, hand, decks=presentation.decks)
    sound = view["sound"]
    mine = next((row for row in settlement or () if row["position"] == seat), None)
    if mine is not None and mine["coins"]:
        sound = "win" if mine["coins"] > 0 else "lose"
    me = by_position.get(seat) if seat is not None else None
    next_game_refusal = None
    if me is not None and settlement and view["status"] == "waiting" and not me["ready"]:
        # Shown in the player's own frame while it holds, rather than as a notice that the
        # next frame would wipe; the lobby's own words, with the way out.
        next_game_refusal = room_entry_refusal(room=table.room, balance=me["coins"] or 0)
    # The house rules a settled game was played with, which may change what its losers pay.
    game_rules: list[str] = []
    shown = shared.rows.game
    if settlement and shown is not None and shown.rules:
        game_rules = presentation.rules_phrases(shown.rules)
    start_choices: list[dict[str, Any]] = []
    if me is not None and view["status"] == "waiting" and not me["start"] and not next_game_refusal:
        start_choices = presentation.start_choices(table.play_rules)
    return {
        **own,
        "table_parts": _table_parts(language),
        "start_choices": start_choices,
        "game_rules": game_rules,
        "frame_template": presentation.frame_template,
        "view": view,
        "winner_name": winner_name,
        "game": game,
        "engine": engine,
        "me": me,
        "next_game_refusal": next_game_refusal,
        "bottom": by_position[bottom],
        "opponents": [by_position[position] for position in order],
        "head_html": shared_html["head"],
        "board_html": shared_html["board"],
        "my_turn": my_turn,
        "sound": sound,
        "counter_html": counter,
        "hints": hints or [],
        "to_move": to_move,
        "settlement": settlement,
        "notice": notice,
        "choices": choice_rows,
        "prompt_cards": prompt_cards,
        "prompt_html": _prompt_html(
            presentation, choice_rows, prompt_cards, view["version"], language
        ),
        "notice_html": _notice_html(notice, language),
        "invite_url": reverse("games:table_join", args=[view["invite_code"]])
        if view["invite_code"]
        else None,
    }


def _rules_shown(table: Table, shared: SharedView) -> dict[str, Any]:
    """The rules the table's header says: those of the game being played, which it was dealt
    with, else those the next game plays (the table's)."""
    game = shared.rows.game
    if game is not None and not game.is_over and isinstance(game.rules, dict):
        return game.rules
    return table.play_rules


def _prompt_html(
    presentation: Presentation,
    choices: list[dict[str, str]],
    cards: str,
    version: str,
    language: str,
) -> SafeString:
    """The prompt slot of a frame: empty but for the choice of an action's meaning."""
    if not choices:
        return _empty_prompt(presentation, language)
    return mark_safe(
        str(_prompt_parts(presentation, language).prompt_slot(choices, cards, version))
    )


def _prompt_parts(presentation: Presentation, language: str) -> Any:
    """The parts whose ``prompt_slot`` the game's frames use: the game's own, if it has one."""
    parts = _game_parts(presentation, language)
    return parts if hasattr(parts, "prompt_slot") else _table_parts(language)


def _notice_html(notice: str, language: str) -> SafeString:
    """The notice slot of a frame: empty unless ``notice`` says something."""
    if not notice:
        return _empty_notice(language)
    return mark_safe(str(_table_parts(language).notice_slot(notice)))


#: The empty prompt and notice slots, which nearly every frame ends with, by game and language.
_empty_prompts: dict[tuple[str, str], SafeString] = {}


def _empty_prompt(presentation: Presentation, language: str) -> SafeString:
    key = (presentation.key, language)
    empty = _empty_prompts.get(key)
    if empty is None:
        parts = _prompt_parts(presentation, language)
        empty = _empty_prompts[key] = mark_safe(str(parts.prompt_slot([], "", "")))
    return empty


@functools.cache
def _empty_notice(language: str) -> SafeString:
    return mark_safe(str(_table_parts(language).notice_slot("")))


def render_frame_and_version(
    *,
    table: Table,
    seat: int | None,
    rows: TableRows | None = None,
    state: Any | None = None,
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
    return mark_safe(_fragments(context["frame_template"], language).render(context))


def render_player_frames(*, table: Table, rows: TableRows, state: Any | None) -> dict[str, Any]:
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
    players: dict[int, GamePlayer] | None = None,
    balances: dict[int, int] | None = None,
) -> dict[str, Any]:
    """``render_player_frames`` after any change of the table, read as it is now: the table
    ``table_id``, or ``table`` and its ``seats`` (with their users, by position) as the change
    left them, and its latest game ``last``, when the caller has them; ``players`` and
    ``balances`` as for ``table_rows``."""
    if table is None:
        table = Table.objects.select_related("room").get(pk=cast(int, table_id))
    rows = table_rows(table=table, game=last, seats=seats, players=players, balances=balances)
    state = None if rows.game is None else game_state(game=rows.game)
    return render_player_frames(table=table, rows=rows, state=state)


def render_prompt(*, table: Table, seat: int, cards: str, choices: tuple[str, ...]) -> str:
    """The fragment that asks which of ``choices`` the player means by ``cards``."""
    shared = table_view_shared(table=table)
    context = frame_context(
        table=table, seat=seat, choices=choices, prompt_cards=cards, shared=shared
    )
    language = translation.get_language() or settings.LANGUAGE_CODE
    parts = _prompt_parts(shared.presentation, language)
    return str(parts.prompt_slot(context["choices"], cards, context["view"]["version"]))


def render_notice(message: str) -> str:
    """The fragment that shows ``message`` (escaped) in the notice slot."""
    return str(_table_parts().notice_slot(message))


def render_spectator_frame(*, table_id: int, language: str) -> tuple[str, str] | None:
    """The frame every spectator of the public table ``table_id`` sees, in ``language``, and
    its version; None when there is no such public table.

    It is given no user and no seat, and reads the table by itself: what it renders is a
    spectator's view, which every spectator may see, so one render can serve them all."""
    table = Table.objects.select_related("room").filter(pk=table_id, is_private=False).first()
    if table is None:
        return None
    with translation.override(language):
        return render_frame_and_version(table=table, seat=None, language=language)


def render_frame_for_user(
    *, user: AbstractBaseUser | AnonymousUser, table_id: int, invite_code: str | None = None
) -> tuple[str, str]:
    """``user``'s frame of the table (their seat, or a spectator's), and its version. Raises
    ``Table.DoesNotExist`` when the user may not see the table."""
    table, seat = table_get_for_user(user=user, table_id=table_id, invite_code=invite_code)
    return render_frame_and_version(table=table, seat=seat)
