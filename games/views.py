"""Pages of the games app: the lobby, entering a room, and the rules."""

from __future__ import annotations

import html
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import markdown
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from markdown.extensions.toc import slugify_unicode

from accounts.models import User
from accounts.selectors import rewards_status, wallet_get_for_user
from accounts.templatetags.accounts_tags import coins

from .engines import engines
from .forms import TableRulesForm
from .models import Room
from .presentation import presentation_for
from .selectors import rooms_for_lobby, table_of_user, tables_to_watch

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    from .selectors.rooms import SeatedCount

# Which rules document serves which language; any other language gets the default one.
RULES_DOCS = {
    "zh-hans": "rules.zh-hans.md",
    "en": "rules.md",
}
DEFAULT_RULES_LANGUAGE = "zh-hans"


@dataclass(frozen=True)
class TocEntry:
    """One heading of a document: its anchor, its text and the headings under it."""

    id: str
    name: str
    children: tuple[TocEntry, ...] = ()


@dataclass(frozen=True)
class RenderedDoc:
    """A Markdown document turned into HTML, with its title and table of contents."""

    title: str
    body: SafeString
    toc: tuple[TocEntry, ...]


def _toc_entries(tokens: list[dict[str, Any]], max_level: int) -> tuple[TocEntry, ...]:
    return tuple(
        TocEntry(
            id=token["id"],
            name=html.unescape(token["name"]),
            children=_toc_entries(token.get("children", []), max_level),
        )
        for token in tokens
        if token["level"] <= max_level
    )


_cache: dict[Path, tuple[int, RenderedDoc]] = {}
_cache_lock = threading.Lock()


def render_markdown_file(path: Path) -> RenderedDoc:
    """Render ``path`` to HTML, reusing the last result while the file is unchanged.

    Raises ``FileNotFoundError`` when the file does not exist.
    """
    mtime = path.stat().st_mtime_ns
    with _cache_lock:
        cached = _cache.get(path)
    if cached is not None and cached[0] == mtime:
        return cached[1]

    md = markdown.Markdown(
        extensions=["tables", "toc"],
        extension_configs={
            "toc": {
                # Keep Chinese headings readable in their anchors instead of dropping them.
                "slugify": slugify_unicode,
                "permalink": "#",
                "permalink_title": "",
            }
        },
        output_format="html",
    )
    body = md.convert(path.read_text(encoding="utf-8"))
    # A wide table or example scrolls sideways on a phone: the keyboard must scroll it too.
    body = body.replace("<table>", '<table tabindex="0">').replace("<pre>", '<pre tabindex="0">')
    tokens: list[dict[str, Any]] = getattr(md, "toc_tokens", [])
    if len(tokens) == 1 and tokens[0]["level"] == 1:
        # One top heading: it is the title, and its sections make the table of contents.
        title = html.unescape(tokens[0]["name"])
        tokens = tokens[0].get("children", [])
    else:
        title = path.stem
    # The document is part of the repository, so its HTML is trusted.
    doc = RenderedDoc(title=title, body=mark_safe(body), toc=_toc_entries(tokens, max_level=3))
    with _cache_lock:
        _cache[path] = (mtime, doc)
    return doc


def rules_doc_path(language: str | None) -> Path:
    """The rules document for ``language``, falling back to the default language's."""
    code = (language or DEFAULT_RULES_LANGUAGE).lower()
    name = RULES_DOCS.get(code) or RULES_DOCS.get(code.split("-")[0])
    if name is None:
        name = RULES_DOCS[DEFAULT_RULES_LANGUAGE]
    return Path(settings.DOCS_DIR) / name


def room_range(room: Room) -> str:
    """The coins a room admits: ``1,000 – 50,000``, or ``540,000 起`` when it has no maximum."""
    if room.max_coins is None:
        return _("%(min)s and up") % {"min": coins(room.min_coins)}
    return f"{coins(room.min_coins)} – {coins(room.max_coins)}"


@dataclass(frozen=True)
class RoomCard:
    """A room as the lobby and the room page show it."""

    room: Room
    seated: int
    range: str
    fits: bool  # open, and the signed-in player's balance lies within its range
    rules: list[str]  # the room's rules in short words (``rules_phrases``)


def room_card(room: WithAnnotations[Room, SeatedCount], *, balance: int | None) -> RoomCard:
    """``room`` comes from ``rooms_for_lobby``, which counts the players seated."""
    return RoomCard(
        room=room,
        seated=room.seated,
        range=room_range(room),
        fits=balance is not None and room.is_open and room.admits(balance),
        rules=rules_phrases(room.game, room.rules),
    )


def rules_phrases(game: str, rules: dict[str, Any] | None) -> list[str]:
    """The rules ``rules`` of ``game`` in short words, as its presentation says them (none for
    a game that says none)."""
    return presentation_for(game).rules_phrases(rules)


def player_balance(request: HttpRequest) -> int | None:
    """The signed-in player's coins (0 without a wallet), or ``None`` for a visitor."""
    if not request.user.is_authenticated:
        return None
    wallet = wallet_get_for_user(user=request.user)
    return wallet.balance if wallet is not None else 0


@dataclass(frozen=True)
class GameRooms:
    """A game's section of the lobby: its key, its name and its rooms."""

    key: str
    title: str
    rooms: list[RoomCard]


def lobby(request: HttpRequest) -> HttpResponse:
    balance = player_balance(request)
    cards = [room_card(room, balance=balance) for room in rooms_for_lobby()]
    # The games in the order the site lists them, each with its rooms.
    sections = [
        GameRooms(
            key=key,
            title=presentation_for(key).title,
            rooms=[card for card in cards if card.room.game == key],
        )
        for key in engines()
    ]
    seated = table_of_user(user=request.user)
    user = request.user
    return render(
        request,
        "games/home.html",
        {
            "games": [section for section in sections if section.rooms],
            "rooms": cards,
            "balance": balance,
            "my_table": seated[0] if seated else None,
            "rewards": rewards_status(user=user)
            if isinstance(user, User) and not user.is_house
            else None,
        },
    )


@require_http_methods(["GET", "HEAD"])
def room_enter(request: HttpRequest, code: str) -> HttpResponse:
    """A room: its stakes, and Play or a private table for a signed-in player."""
    return room_page(request, code)


def room_page(
    request: HttpRequest, code: str, *, private_form: TableRulesForm | None = None
) -> HttpResponse:
    """The room page, with the form of a private table's house rules (``private_form``: as the
    player sent it, with its errors; else one starting from the room's rules)."""
    # The lobby's query, for the same count of players seated.
    room = rooms_for_lobby().filter(code=code).first()
    if room is None:
        raise Http404(_("There is no room %(code)s.") % {"code": code})
    balance = player_balance(request)
    return render(
        request,
        "games/room.html",
        {
            "card": room_card(room, balance=balance),
            "balance": balance,
            "tables": tables_to_watch(room=room) if request.user.is_authenticated else [],
            "private_form": TableRulesForm(room=room) if private_form is None else private_form,
            "rules_chosen": TableRulesForm.CHOSEN,
        },
    )


def rules(request: HttpRequest) -> HttpResponse:
    path = rules_doc_path(translation.get_language())
    try:
        doc = render_markdown_file(path)
    except FileNotFoundError:
        raise Http404(
            _("The rules document %(name)s is missing.") % {"name": f"docs/{path.name}"}
        ) from None
    # Each game's house rules, an option a section, in the active language.
    house_rules = []
    for key in engines():
        presentation = presentation_for(key)
        options = presentation.rules_explained()
        if options:
            house_rules.append({"key": key, "title": presentation.title, "options": options})
    return render(request, "games/rules.html", {"doc": doc, "house_rules": house_rules})
