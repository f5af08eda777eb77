"""The quick phrases (快捷语) and emotes (表情) a player may send at a table: a fixed list, never
free text, each known by a short id that is all a client sends and all the server stores."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True, slots=True)
class Phrase:
    """One quick phrase or emote: ``text`` is what the bubble shows (the phrase, or the emoji),
    ``label`` what a screen reader says (the phrase itself, or the emote's name)."""

    id: str
    kind: str  # "phrase" or "emote"
    text: str | Promise
    label: str | Promise


PHRASES: tuple[Phrase, ...] = tuple(
    Phrase(id, "phrase", text, text)
    for id, text in (
        ("hurry", _("Hurry up, the flowers have wilted waiting for you.")),
        ("well_played", _("You played that beautifully!")),
        ("till_dawn", _("Don't go, let's fight until dawn!")),
        ("hello", _("Hello everyone, nice to meet you all.")),
        ("good_partner", _("It is a real pleasure to play with you as a partner.")),
        ("friends", _("Let's be friends.")),
        ("must_go", _("Sorry, I have to go.")),
        ("goodbye", _("Goodbye, I will miss you all.")),
    )
)

EMOTES: tuple[Phrase, ...] = (
    Phrase("thumbs_up", "emote", "👍", _("Thumbs up")),
    Phrase("laugh", "emote", "😄", _("Laughing")),
    Phrase("cry", "emote", "😭", _("Crying")),
    Phrase("angry", "emote", "😡", _("Angry")),
    Phrase("rose", "emote", "🌹", _("A rose")),
    Phrase("bomb", "emote", "💣", _("A bomb")),
    Phrase("beer", "emote", "🍺", _("Cheers")),
    Phrase("handshake", "emote", "🤝", _("Handshake")),
)

#: Every phrase and emote by its id.
BY_ID: dict[str, Phrase] = {phrase.id: phrase for phrase in PHRASES + EMOTES}

#: The longest id, for the column that stores one.
ID_MAX = 16
