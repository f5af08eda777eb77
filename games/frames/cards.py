"""How cards look: one face per card (rank, suit, colour, the name a screen reader says),
and the HTML of cards, built once per language."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.utils import translation
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from games.rules import Card, Rank, parse_cards
from games.rules.cards import CARDS

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
        label=card_name(rank, suit),
    )


def card_name(rank: str, suit: str) -> str:
    """A card's full name as people say it: 黑桃3, 红桃10; "3 of spades" in English."""
    return pgettext("card name", "%(rank)s of %(suit)s") % {
        "rank": RANK_NAMES().get(rank, rank),
        "suit": SUIT_NAMES()[suit],
    }


def SUIT_NAMES() -> dict[str, str]:  # noqa: N802 - a constant that follows the active language
    return {
        "s": pgettext("suit", "Spades"),
        "h": pgettext("suit", "Hearts"),
        "d": pgettext("suit", "Diamonds"),
        "c": pgettext("suit", "Clubs"),
    }


def RANK_NAMES() -> dict[str, str]:  # noqa: N802 - a constant that follows the active language
    """The court cards and the ace by name (Chinese keeps their letters: 黑桃J)."""
    return {
        "J": pgettext("card rank", "Jack"),
        "Q": pgettext("card rank", "Queen"),
        "K": pgettext("card rank", "King"),
        "A": pgettext("card rank", "Ace"),
    }


def cards_html(cards: str, *, in_hand: bool = False, language: str | None = None) -> SafeString:
    """The cards of a card list in notation as HTML, lowest first (jokers last); ``in_hand``:
    as the player's own cards, each a checkbox to select it. ``language``: the active one."""
    if not cards:
        return mark_safe("")
    return _cards_html(cards, in_hand, language or translation.get_language() or "")


@functools.lru_cache(maxsize=4096)
def _cards_html(cards: str, in_hand: bool, language: str) -> SafeString:
    # A hand is shown the same at every change of its game until its player plays.
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
        # The id keeps a card the same element from frame to frame, focus and all.
        return format_html(
            '<label id="hand-{}" class="{}" data-card="{}" title="{}"><input type="checkbox"'
            ' name="cards" value="{}" class="visually-hidden" aria-label="{}">{}</label>',
            face.code,
            classes,
            face.code,
            face.label,
            face.code,
            face.label,
            inner,
        )
    # A card on the table is a picture to a screen reader, said by its full name.
    return format_html(
        '<span class="{}" data-card="{}" title="{}" role="img" aria-label="{}">{}</span>',
        classes,
        face.code,
        face.label,
        face.label,
        inner,
    )


def card_faces(cards: str) -> list[CardFace]:
    """The faces of cards in notation (``"Ts 5h BJ"``), in the order given."""
    return [card_face(code) for code in cards.split()]


def card_chips_html(cards: str) -> SafeString:
    """Cards in notation as small chips for the pages about a game (its page, the admin's
    replay), in the order given: each ``<span class="card-chip">`` with the card's code as its
    title, red suits and jokers marked."""
    language = translation.get_language() or ""
    return mark_safe("".join(_chip_html(code, language) for code in cards.split()))


@functools.lru_cache(maxsize=512)
def _chip_html(code: str, language: str) -> str:
    """One chip, built once per language (a joker's chip is its name)."""
    face = card_face(code)
    classes = "card-chip" + (" red" if face.red else "") + (" joker" if face.joker else "")
    text = face.label if face.joker else f"{face.rank}{face.suit}"
    return format_html(
        '<span class="{}" title="{}" role="img" aria-label="{}">{}</span>',
        classes,
        face.code,
        face.label,
        text,
    )


#: The ranks of the card counter (记牌器), from the highest as the big apps show them.
COUNTER_RANKS = tuple(reversed(Rank))


DECK_RANKS = Counter(card.rank for card in CARDS)


def card_counter_html(played: Counter[Rank], own: Iterable[Any], *, decks: int = 1) -> SafeString:
    """What the card counter shows a viewer, as HTML: of each rank (highest first), how many
    cards of the ``decks`` decks are neither played (``played``, by rank) nor in the viewer's own
    hand (``own``, cards with a ``rank``), one ``<span>`` each, marked ``out`` when none is left;
    in the active language."""
    mine = Counter(card.rank for card in own)
    left = tuple(decks * DECK_RANKS[rank] - played[rank] - mine[rank] for rank in COUNTER_RANKS)
    return _card_counter_html(left, translation.get_language() or "")


@functools.lru_cache(maxsize=2048)
def _card_counter_html(left: tuple[int, ...], language: str) -> SafeString:
    # Fifteen ranks in every frame, and mostly the same counts from one change to the next.
    return mark_safe(
        "".join(_counter_cell(position, count, language) for position, count in enumerate(left))
    )


@functools.lru_cache(maxsize=1024)
def _counter_cell(position: int, count: int, language: str) -> str:
    """The counter's cell of ``COUNTER_RANKS[position]`` with ``count`` cards left: the same few
    cells make every counter, whose counts change one or two ranks at a time."""
    return format_html(
        "<span{}><b>{}</b>{}</span>",
        mark_safe("" if count else ' class="out"'),
        _counter_labels(language)[position],
        count,
    )


@functools.lru_cache(maxsize=16)
def _counter_labels(language: str) -> tuple[str, ...]:
    """The counter's labels of ``COUNTER_RANKS`` in ``language`` (the active one)."""
    return tuple(_counter_label(rank) for rank in COUNTER_RANKS)


def _counter_label(rank: Rank) -> str:
    if rank is Rank.RED_JOKER:
        return pgettext("card counter", "Big")
    if rank is Rank.BLACK_JOKER:
        return pgettext("card counter", "Small")
    return "10" if rank is Rank.TEN else rank.symbol
