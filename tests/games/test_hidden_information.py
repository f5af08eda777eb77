"""Hidden information never leaks.

Hundreds of complete games of 干瞪眼, and of 斗地主, are played through the services at tables of
the stakes rooms the migrations create, with one or two people and bots, public and private. At
moments of each game chosen from the run's seed every surface a signed-in user who is not staff
can reach is fetched as each player, as a spectator and as a stranger: the websocket frame
(``render_frame_for_user``, what the socket sends), the table page, the game page, its record
download and its dispute form, the room, the lobby, the profile (wallet, ledger, games), the
invitation page, the rules, and the admin (which must send them to its login). For 干瞪眼 the
moments are the deal, points in the middle, right before the last move and after the end; for
斗地主 each stage of every deal (a redeal after three 不叫 included), the bidding, 加倍, points in
the play, right before the last move and after the end, with people declaring 明牌 at its
moments and 明牌开始 at 再来一局.

While a game is played no response may hold a card that the engine's view of the viewer's seat
(``state.view(seat)``, the authority) does not show: another seat's hand (斗地主: unless shown by
明牌, and then only the cards dealt so far), 干瞪眼's stock, 斗地主's bottom cards before the
landlord takes them and any card still to be dealt; nor hidden cards in their secret order (the
stock, a hand as dealt), a hand of another deal (斗地主's earlier deals and the next), or the seed
of the game or of its redeals (only the game seed's SHA-256 commitment).

The detector reads the site's own card notations: ``data-card``, ``value`` and ``title``
attributes made of card codes, JSON (``json_script`` blocks, the record), card faces as rank and
suit symbol, jokers by their class, cards by the full names screen readers say (``aria-label``)
and card codes as words of the page's text; and it searches for the seeds (hex and decimal), the
secret orders and the hands as whole strings. The tests of planted leaks
(``test_the_detector_catches_planted_leaks`` and its 斗地主 twin) show it flags what it must, so
that the long test cannot pass for want of looking.
"""

from __future__ import annotations

import functools
import html
import json
import os
import random
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client, override_settings
from django.utils import timezone, translation

from accounts.models import LedgerReason, User, Wallet
from accounts.services import coins_move, wallet_create
from games import selectors, services
from games.bots import SensiblePolicy, choose_for
from games.engines import engine_for
from games.frames import card_face, render_frame_for_user
from games.models import BotLevel, Game, GameWatch, Room, Table
from games.rules import Phase, format_cards
from games.rules import doudizhu as ddz
from games.rules import shanghai as sh
from games.rules.cards import CARDS
from games.rules.gandengyan import PASS, GameState, Move, Play
from games.rules.gandengyan.moves import move_from_json
from tests import seeds

pytestmark = pytest.mark.django_db

ON_POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
# Fewer games on PostgreSQL keep the suite's second run short; TEST_LEAK_GAMES sets the number.
GAMES = int(os.environ.get("TEST_LEAK_GAMES", "60" if ON_POSTGRES else "500"))
# 斗地主's games, likewise: TEST_LEAK_DOUDIZHU_GAMES.
DOUDIZHU_GAMES = int(os.environ.get("TEST_LEAK_DOUDIZHU_GAMES", "20" if ON_POSTGRES else "120"))
# 上海斗地主's games, likewise: TEST_LEAK_SHANGHAI_GAMES.
SHANGHAI_GAMES = int(os.environ.get("TEST_LEAK_SHANGHAI_GAMES", "12" if ON_POSTGRES else "24"))
GAMES_PER_TABLE = 10
SEED = 20260315

# Card codes as the site writes them: "5s", "Th", "BJ", "RJ".
CARD = r"(?:[2-9TJQKA][shdc]|BJ|RJ)"
CARD_WORD = re.compile(rf"(?<![0-9A-Za-z])({CARD})(?![0-9A-Za-z])")
CARD_LIST = re.compile(rf"{CARD}(?: {CARD})*")
# An attribute whose whole value is cards: data-card="5s", value="5s", title="5s", data-x="5s 6h".
CARD_ATTRIBUTE = re.compile(rf'[\w-]+\s*=\s*"({CARD}(?: {CARD})*)"')
# A card of two decks with its deck (上海斗地主): "5s.1", "RJ.2"; an id writes it "hand-5s-1".
DECK_CODE = re.compile(rf"(?<![0-9A-Za-z])({CARD})[.-]([12])(?![0-9A-Za-z])")
# A joker as its face is drawn: the rank and suit read "JOKER ★" for both; the class tells them.
JOKER_CLASS = re.compile(r'class="[^"]*\bjoker-(big|small)\b')
JOKERS = {"big": "RJ", "small": "BJ"}
JOKER_NAMES = {code: name for name, code in JOKERS.items()}
# A card face as people read it: "10♠", "Q♥" (the rank and the suit may be in separate tags).
FACE = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])\s*([♠♥♦♣])")
SUIT_CODES = {"♠": "s", "♥": "h", "♦": "d", "♣": "c"}
JSON_SCRIPT = re.compile(r'<script[^>]*type="application/json"[^>]*>(.*?)</script>', re.S)
JSON_PRE = re.compile(r"<pre[^>]*>\s*(\{.*?\})\s*</pre>", re.S)
STYLE = re.compile(r"<style\b.*?</style>", re.S | re.I)
SCRIPT = re.compile(r"<script\b.*?</script>", re.S | re.I)
TAG = re.compile(r"<[^>]*>")
WORD = re.compile(r"[0-9A-Za-z]+")
# A card named in full for screen readers: aria-label="黑桃3", aria-label="Queen of hearts".
NAME_ATTRIBUTE = re.compile(r'aria-label="([^"]+)"')
# The lobby's decoration: the same five cards for everyone, on every visit.
DECORATION = re.compile(r'<div class="hero-cards" aria-hidden="true">.*?</div>\s*</div>', re.S)


# The detector ------------------------------------------------------------------------------------


ALL_CARDS = frozenset(str(card) for card in CARDS)


@dataclass(frozen=True)
class Secrets:
    """What one viewer may not see while a game is being played: every card the engine's view
    of their seat does not show, cards in an order still secret, hands written whole, seeds."""

    cards: frozenset[str]
    orders: tuple[tuple[str, ...], ...]  # the stock; 斗地主's hands and bottom as dealt
    hands: tuple[str, ...]  # hands not to be seen, as the site formats them and as dealt
    seeds: tuple[str, ...]  # the seeds in hex and in decimal
    # Two decks (上海斗地主): a card is hidden by its copy, written with its deck ("As.2"), even
    # when the viewer sees the other copy; ``cards`` holds the cards none of whose copies shows.
    codes: frozenset[str] = frozenset()
    code_orders: tuple[tuple[str, ...], ...] = ()  # hidden copies in the order dealt
    # What may be told of the cards by number: the card counter's count of each rank
    # (``COUNTER_ORDER``), which is the deck less the cards played and those of the viewer's
    # hand that the view shows; and how many cards each seat's box shows.
    counter: tuple[int, ...] = ()
    hand_counts: tuple[int, ...] = ()

    @classmethod
    def of(cls, game: Game, state: Any, seat: int | None) -> Secrets:
        view = state.view(seat)
        cards = ALL_CARDS - cards_named(view)
        orders, hands, seeds = SECRET_SHAPES[game.game](game, state, seat, cards)
        if game.seed:
            seeds = (game.seed, str(int(game.seed, 16)), *seeds)
        codes: frozenset[str] = frozenset()
        code_orders: tuple[tuple[str, ...], ...] = ()
        if game.game == "shanghai":
            codes = SHANGHAI_CODES - codes_named(view)
            code_orders = _shanghai_code_orders(state, codes)
        return cls(
            frozenset(cards),
            orders,
            hands,
            seeds,
            codes,
            code_orders,
            counter=counter_expected(state, view, decks=2 if game.game == "shanghai" else 1),
            hand_counts=tuple(view["hand_counts"]),
        )


# The counter's ranks, as it shows them: the big joker first, the 3s last.
COUNTER_ORDER = ("RJ", "BJ", "2", "A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3")


def _rank_of(code: str) -> str:
    """A card code's rank as the counter counts it ("As.2" -> "A", "RJ" -> "RJ")."""
    base = code.split(".")[0]
    return base if base in ("RJ", "BJ") else base[0]


def counter_expected(state: Any, view: dict[str, Any], *, decks: int) -> tuple[int, ...]:
    """What the card counter may show the viewer of ``view``: of each rank, the cards of the
    decks not yet played (the public history) and not in the hand the view shows."""
    gone: Counter[str] = Counter()
    for entry in state.view(None, history=True)["history"]:
        if isinstance(entry.get("play"), str):
            gone.update(_rank_of(code) for code in entry["play"].split())
    gone.update(_rank_of(code) for code in view.get("hand") or ())
    return tuple(decks * (1 if rank in ("RJ", "BJ") else 4) - gone[rank] for rank in COUNTER_ORDER)


COUNTER_BLOCK = re.compile(r"data-card-counter[^>]*>(.*?)</div>", re.S)
COUNTER_CELL = re.compile(r'<span(?: class="out")?><b>[^<]+</b>(\d+)</span>')
SEAT_BOX = re.compile(
    r'class="seat[^"]*" data-seat="(\d+)">(.*?)<div class="seat-facts">(.*?)</div>', re.S
)
SEAT_COUNT = re.compile(r'class="seat-card-count">(\d+)<')


def derived_leaks(page: str, secrets: Secrets) -> list[str]:
    """What ``page`` tells by number that the viewer may not know: a card counter whose counts
    are not those of the viewer's own view (a hand counted before it is dealt, another seat's
    cards taken away), a seat's box with more or fewer cards than the view shows."""
    found = []
    for block in COUNTER_BLOCK.findall(page):
        counts = tuple(int(count) for count in COUNTER_CELL.findall(block))
        if counts != secrets.counter:
            found.append(f"a card counter of {counts}, not {secrets.counter}")
    for seat, _head, facts in SEAT_BOX.findall(page):
        shown = SEAT_COUNT.search(facts)
        position = int(seat)
        if (
            shown is not None
            and position < len(secrets.hand_counts)
            and int(shown.group(1)) != secrets.hand_counts[position]
        ):
            found.append(f"seat {seat} holding {shown.group(1)} cards")
    return found


def cards_named(value: Any) -> set[str]:
    """Every card a JSON value (an engine's view) names."""
    if isinstance(value, str):
        return set(CARD_WORD.findall(value))
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return set().union(*map(cards_named, value)) if value else set()
    return set()


def codes_named(value: Any) -> set[str]:
    """Every card of two decks a JSON value (an engine's view) names with its deck."""
    if isinstance(value, str):
        return {f"{card}.{deck}" for card, deck in DECK_CODE.findall(value)}
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return set().union(*map(codes_named, value)) if value else set()
    return set()


SHANGHAI_CODES = frozenset(str(card) for card in sh.cards.CARDS)

Shape = tuple[tuple[tuple[str, ...], ...], tuple[str, ...], tuple[str, ...]]


def _gandengyan_secrets(
    game: Game, state: GameState, seat: int | None, cards: frozenset[str]
) -> Shape:
    """The stock in order; the other hands, now and at the deal."""
    hands = []
    for other in range(state.players):
        if other != seat:
            hands += [format_cards(state.hand(other)), game.hands[other]]
    return (tuple(str(card) for card in state.stock_cards()),), tuple(hands), ()


def _doudizhu_secrets(
    game: Game, state: ddz.GameState, seat: int | None, cards: frozenset[str]
) -> Shape:
    """The deal's hands and bottom in the order dealt, as far as they are hidden; the hands
    holding hidden cards whole; the hands of the earlier deals (but the seat's own, which it
    saw) and of the next; the seeds of the redeals and of the next deal."""
    deal = state.current_deal
    dealt = [[str(card) for card in cards_dealt] for cards_dealt in (*deal.hands, deal.bottom)]
    orders = tuple(tuple(card for card in order if card in cards) for order in dealt)
    hands = [
        text
        for other in range(3)
        if other != seat and cards.intersection(dealt[other])
        for text in (format_cards(state.hand(other)), " ".join(dealt[other]))
    ]
    following = ddz.deal_from_seed(deal.next_seed)
    for other_deal in (*state.deals[:-1], following):
        for other, hand in enumerate(other_deal.hands):
            if other != seat or other_deal is following:
                hands += [format_cards(hand), " ".join(str(card) for card in hand)]
    numbers = [d.seed for d in state.deals[1:] if d.seed is not None] + [deal.next_seed]
    seeds = tuple(text for n in numbers for text in (str(n), f"{n:x}"))
    return orders, tuple(hands), seeds


def _shanghai_secrets(
    game: Game, state: sh.GameState, seat: int | None, cards: frozenset[str]
) -> Shape:
    """The deal's hands and bottom in the order dealt (the cards none of whose copies shows);
    the other hands whole, with their decks and without; the hands of the earlier deals (but
    the seat's own) and of the next; the seeds of the redeals and of the next deal."""
    deal = state.current_deal
    dealt = [[str(card) for card in cards_dealt] for cards_dealt in (*deal.hands, deal.bottom)]
    orders = tuple(
        tuple(base for base in (code.split(".")[0] for code in order) if base in cards)
        for order in dealt
    )
    hands = []
    for other in range(4):
        if other != seat:
            held = sh.format_cards(state.hand(other))
            hands += [held, " ".join(code.split(".")[0] for code in held.split())]
            hands.append(" ".join(dealt[other]))
    following = sh.deal_from_seed(deal.next_seed)
    for other_deal in (*state.deals[:-1], following):
        for other, hand in enumerate(other_deal.hands):
            if other != seat or other_deal is following:
                hands += [sh.format_cards(hand), " ".join(str(card) for card in hand)]
    numbers = [d.seed for d in state.deals[1:] if d.seed is not None] + [deal.next_seed]
    seeds = tuple(text for n in numbers for text in (str(n), f"{n:x}"))
    return orders, tuple(hands), seeds


def _shanghai_code_orders(
    state: sh.GameState, codes: frozenset[str]
) -> tuple[tuple[str, ...], ...]:
    """The hidden copies of each hand and of the bottom, in the order they were dealt."""
    deal = state.current_deal
    return tuple(
        tuple(str(card) for card in cards_dealt if str(card) in codes)
        for cards_dealt in (*deal.hands, deal.bottom)
    )


SECRET_SHAPES: dict[str, Callable[..., Shape]] = {
    "gandengyan": _gandengyan_secrets,
    "doudizhu": _doudizhu_secrets,
    "shanghai": _shanghai_secrets,
}


def cards_shown(page: str) -> set[str]:
    """Every card the page presents as a card, in any of the site's notations."""
    shown: set[str] = set()
    page = DECORATION.sub(" ", page)
    for value in CARD_ATTRIBUTE.findall(page):
        shown.update(value.split())
    shown.update(JOKERS[kind] for kind in JOKER_CLASS.findall(page))
    names = card_names()
    shown.update(names[name] for name in NAME_ATTRIBUTE.findall(page) if name in names)
    for block in JSON_SCRIPT.findall(page) + JSON_PRE.findall(page):
        shown |= _json_cards(json.loads(html.unescape(block)))
    text = html.unescape(TAG.sub("", SCRIPT.sub(" ", STYLE.sub(" ", page))))
    shown.update(CARD_WORD.findall(text))
    for rank, suit in FACE.findall(text):
        shown.add(("T" if rank == "10" else rank) + SUIT_CODES[suit])
    return shown


@functools.cache
def card_names() -> dict[str, str]:
    """Each card's code by its full name, in every language of the site."""
    names = {}
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            names.update({html.escape(card_face(code).label): code for code in ALL_CARDS})
    return names


def _json_cards(value: Any) -> set[str]:
    if isinstance(value, str):
        return set(value.split()) if CARD_LIST.fullmatch(value) else set()
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return set().union(*(_json_cards(item) for item in value)) if value else set()
    return set()


def card_sequence(page: str) -> list[str]:
    """The card codes of the page in the order they appear, wherever they are."""
    return CARD_WORD.findall(STYLE.sub(" ", DECORATION.sub(" ", page)))


def leaks(page: str, secrets: Secrets, *, old_cards: bool = False) -> list[str]:
    """What ``page`` gives away of ``secrets``; empty when nothing.

    ``old_cards``: the page may show the cards of games already over (a finished game's record,
    the rules' examples), which are the same 54 cards in other places; then only the seeds,
    hidden cards in their secret order (five in a row) and long hands (ten cards or more)
    count, not single cards or short hands.
    """
    found = []
    for seed in secrets.seeds:
        if seed in page:
            found.append(f"the seed {seed[:12]}…")
    if not old_cards:
        found += derived_leaks(page, secrets)
        leaked = cards_shown(page) & secrets.cards
        if leaked:
            found.append(f"hidden cards {sorted(leaked)}")
        copies = {f"{card}.{deck}" for card, deck in DECK_CODE.findall(page)} & secrets.codes
        if copies:
            found.append(f"hidden cards {sorted(copies)}")
    # Hidden cards in their secret order (the stock, a hand as dealt), written with spaces or
    # without ("7s 3h Kd", "7s3hKd"). In order, by chance, in a finished game's record: five
    # cards, about once in ten million pages.
    run = 5 if old_cards else 2
    sequence = " ".join(card_sequence(page))
    words = set(WORD.findall(page))
    for order in secrets.orders:
        for start in range(len(order) - run + 1):
            window = order[start : start + run]
            if " ".join(window) in sequence:
                found.append(f"hidden cards in order from {' '.join(window)}")
                break
        for start in range(len(order) - max(run, 3) + 1):
            squeezed = "".join(order[start : start + max(run, 3)])
            if squeezed in words:
                found.append(f"hidden cards in order as {squeezed}")
                break
    copies = " ".join(f"{card}.{deck}" for card, deck in DECK_CODE.findall(STYLE.sub(" ", page)))
    for order in secrets.code_orders:
        for start in range(len(order) - run + 1):
            window = order[start : start + run]
            if " ".join(window) in copies:
                found.append(f"hidden cards in order from {' '.join(window)}")
                break
    shortest = 10 if old_cards else 2
    for hand in secrets.hands:
        if len(hand.split()) >= shortest and hand in page:
            found.append(f"a hand {hand}")
    return found


# Users, tables and games -------------------------------------------------------------------------


@dataclass
class Viewer:
    name: str
    user: User
    client: Client
    role: str  # "player", "spectator" (has the invitation) or "stranger"


@dataclass
class Figures:
    games: int = 0
    moves: int = 0
    moments: int = 0
    frames: int = 0
    pages: int = 0
    planted_caught: int = 0
    by_surface: Counter[str] = field(default_factory=Counter)
    by_moment: Counter[str] = field(default_factory=Counter)  # the kinds of moments looked at
    happened: Counter[str] = field(default_factory=Counter)  # 斗地主's redeals, 明牌 ...
    seconds: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))


def _user(name: str, language: str) -> Viewer:
    user = User.objects.create_user(username=name, password="pw-123456")
    wallet_create(user=user)
    client = Client(headers={"accept-language": language})
    client.force_login(user)
    return Viewer(name, user, client, "stranger")


def _coins_for(user: User, room: Room) -> None:
    """Keep the player's coins inside the room's range, moving them through the ledger."""
    wallet = Wallet.objects.get(user=user)
    high = room.max_coins if room.max_coins is not None else room.min_coins * 4
    target = (room.min_coins + high) // 2
    if room.min_coins * 2 <= wallet.balance <= (target + high) // 2:
        return
    coins_move(wallet=wallet, amount=target - wallet.balance, reason=LedgerReason.STAFF_ADJUSTMENT)


def _open_table(room: Room, humans: list[Viewer], private: bool) -> Table:
    for human in humans:
        _coins_for(human.user, room)
    engine = engine_for(room.game)
    full = len(humans) == engine.seat_count(engine.options_from_json(room.rules))
    if private:
        table = services.table_create_private(user=humans[0].user, room=room)
        for human in humans[1:]:
            services.table_join_by_invite(user=human.user, code=table.invite_code or "")
        if not full:
            services.table_call_bots(user=humans[0].user, table=table)
    else:
        for human in humans:
            table, _seat = services.table_play(user=human.user, room=room)
        later = timezone.now() + timedelta(seconds=settings.BOT_FILL_SECONDS + 1)
        if not full:
            assert services.table_fill_with_bots(table=table, now=later) > 0
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    return table


# The surfaces ------------------------------------------------------------------------------------

# What a viewer can ask for. A moment looks at some of them, each for one viewer or another,
# chosen so that over the run each viewer sees each surface at every kind of moment.
SURFACES = (
    "frame",
    "table page",
    "game page",
    "record download",
    "replay",
    "dispute form",
    "earlier game page",
    "room page",
    "lobby",
    "profile",
    "invitation page",
    "admin",
    "rules",
)
ADMIN_URLS = (
    "/admin/",
    "/admin/games/game/",
    "/admin/games/game/{game}/change/",
    "/admin/games/game/{game}/replay/",
    "/admin/games/dispute/",
    "/admin/accounts/wallet/",
    "/admin/accounts/ledgerentry/",
)


@dataclass
class Moment:
    """One look at a table: its game as the database holds it and as the test expects it."""

    table: Table
    game: Game
    state: Any  # the game's engine's state
    earlier: Game | None  # the table's game before this one
    seats: dict[int, int]  # user id -> seat in the game

    @property
    def playing(self) -> bool:
        return self.game.status == Game.Status.PLAYING

    def secrets_for(self, viewer: Viewer) -> Secrets | None:
        """What ``viewer`` may not see now; None once the game is over (the site shows its seed
        and its record then)."""
        if not self.playing:
            return None
        return Secrets.of(self.game, self.state, self.seats.get(viewer.user.pk))


class Checker:
    def __init__(self, figures: Figures, rng: random.Random) -> None:
        self.figures = figures
        self.rng = rng
        self.turn = 0
        self.seen: Counter[tuple[str, str, str]] = Counter()  # by viewer, surface, moment kind

    def rotate(self, moment: Moment, viewers: list[Viewer], count: int, kind: str) -> None:
        """``count`` looks at ``moment``, of ``kind``. Each goes to the viewer and surface,
        among those that can be looked at here, seen least by viewers of that role during or
        after a game, then by that viewer at moments of that kind, then first in a rotation:
        so that over the run each viewer sees each surface at every kind of moment, and a
        surface some tables lack (the invitation page) is looked at where there is one."""
        when = "playing" if moment.playing else "over"
        choices = [
            (viewer, surface)
            for viewer in viewers
            for surface in SURFACES
            if self.applies(surface, moment)
        ]
        for _ in range(count):
            ranks = [
                (
                    self.figures.by_surface[f"{surface}, {viewer.role}, {when}"],
                    self.seen[viewer.name, surface, kind],
                    (index - self.turn) % len(choices),
                )
                for index, (viewer, surface) in enumerate(choices)
            ]
            self.turn += 1
            viewer, surface = choices[ranks.index(min(ranks))]
            self.seen[viewer.name, surface, kind] += 1
            self.look(viewer, surface, moment)

    @staticmethod
    def applies(surface: str, moment: Moment) -> bool:
        """Whether ``surface`` is there at ``moment``: a table's earlier game, its invitation."""
        if surface == "earlier game page":
            return moment.earlier is not None
        if surface == "invitation page":
            return bool(moment.table.invite_code)
        return True

    def look(self, viewer: Viewer, surface: str, moment: Moment) -> None:
        table, game = moment.table, moment.game
        secrets = moment.secrets_for(viewer)
        player = viewer.role == "player"
        when = "playing" if moment.playing else "over"
        self.figures.by_surface[f"{surface}, {viewer.role}, {when}"] += 1
        if surface == "frame":
            self.frame(viewer, moment)
        elif surface == "table page":
            self.page(
                viewer,
                surface,
                f"/tables/{table.pk}/",
                secrets,
                expect=200 if player or not table.is_private else 404,
            )
        elif surface == "game page":
            self.page(viewer, surface, f"/games/{game.pk}/", secrets, expect=200 if player else 404)
        elif surface == "record download":
            # The record holds the deal and the seed: there is none while the game is played.
            # Once it is over, its players and those who watched it may replay and download it.
            url = f"/games/{game.pk}/record.json"
            may = player or GameWatch.objects.filter(game=game, user=viewer.user).exists()
            self.page(viewer, surface, url, secrets, expect=200 if may and not secrets else 404)
        elif surface == "replay":
            # Every hand at every step: never while the game is played, to anyone.
            url = f"/games/{game.pk}/replay/"
            may = player or GameWatch.objects.filter(game=game, user=viewer.user).exists()
            self.page(viewer, surface, url, secrets, expect=200 if may and not secrets else 404)
        elif surface == "dispute form":
            # While the game is played the form is refused and the page comes back with the
            # error; once it is over an empty reason is refused the same way.
            self.page(
                viewer,
                surface,
                f"/games/{game.pk}/dispute/",
                secrets,
                post={"reason": ""},
                expect=400 if player else 404,
            )
        elif surface == "earlier game page":
            assert moment.earlier is not None
            self.page(
                viewer,
                surface,
                f"/games/{moment.earlier.pk}/",
                secrets,
                expect=200 if player else 404,
                old_cards=True,
            )
        elif surface == "room page":
            self.page(viewer, surface, f"/rooms/{table.room.code}/", secrets)
        elif surface == "lobby":
            self.page(viewer, surface, "/", secrets)
        elif surface == "profile":
            self.page(viewer, surface, "/accounts/profile/", secrets)
        elif surface == "invitation page":
            self.page(
                viewer,
                surface,
                f"/join/{table.invite_code}/",
                secrets,
                expect=302 if player else 200,
            )
        elif surface == "admin":
            url = ADMIN_URLS[self.rng.randrange(len(ADMIN_URLS))].format(game=game.pk)
            response = self.page(viewer, surface, url, secrets, expect=302)
            assert response.startswith("/admin/login/?next="), response
        elif surface == "rules":
            self.page(viewer, surface, "/rules/", secrets, old_cards=True)
        else:  # pragma: no cover - a surface without a branch
            raise AssertionError(surface)

    def page(
        self,
        viewer: Viewer,
        surface: str,
        url: str,
        secrets: Secrets | None,
        *,
        expect: int = 200,
        post: dict[str, str] | None = None,
        old_cards: bool = False,
    ) -> str:
        """The body of the response (its ``Location`` for a redirect), checked."""
        started = time.perf_counter()
        response = viewer.client.post(url, post) if post is not None else viewer.client.get(url)
        self.figures.seconds[surface] += time.perf_counter() - started
        assert response.status_code == expect, (
            f"{viewer.name} got {response.status_code} for {surface} {url}, not {expect}"
        )
        self.figures.pages += 1
        if response.status_code == 302:
            assert not response.content
            return str(response["Location"])
        body = response.content.decode()
        if secrets is not None:
            found = leaks(body, secrets, old_cards=old_cards)
            assert not found, f"{surface} {url} shows {viewer.name} {found}"
        return body

    def frame(self, viewer: Viewer, moment: Moment) -> str | None:
        """``viewer``'s websocket frame of the table, checked; None when they may not see it."""
        table = moment.table
        invite = table.invite_code if viewer.role == "spectator" else None
        started = time.perf_counter()
        try:
            rendered = render_frame_for_user(
                user=viewer.user, table_id=table.pk, invite_code=invite
            )
        except Table.DoesNotExist:
            assert table.is_private and viewer.role == "stranger"
            return None
        finally:
            self.figures.seconds["frame"] += time.perf_counter() - started
        frame = rendered if isinstance(rendered, str) else rendered[0]
        self.figures.frames += 1
        secrets = moment.secrets_for(viewer)
        if secrets is not None:
            found = leaks(frame, secrets)
            assert not found, f"the frame of table {table.pk} shows {viewer.name} {found}"
        elif moment.game.seed:
            assert moment.game.seed in frame  # revealed once the game is over
        return frame

    def planted(self, moment: Moment, humans: list[Viewer]) -> None:
        """Each player's frame checked as if another player saw it must be flagged: the
        detector sees what it must, and the test cannot pass for want of looking."""
        frames = {}
        for human in humans:
            frame = self.frame(human, moment)
            assert frame is not None
            frames[human.user.pk] = frame
        for human in humans:
            for other in humans:
                if other is not human:
                    secrets = moment.secrets_for(other)
                    assert secrets is not None and leaks(frames[human.user.pk], secrets)
                    self.figures.planted_caught += 1


# Playing -----------------------------------------------------------------------------------------

# Tables in turn: a room of the migrations, how many people play, private or public.
TABLES = [
    ("novice", 1, False),
    ("junior", 2, True),
    ("intermediate", 2, False),
    ("senior", 1, True),
    ("master", 2, False),
    ("supreme", 1, False),
    ("novice", 2, True),
    ("junior", 1, False),
]
DOUDIZHU_TABLES = [
    ("ddz-novice", 2, True),
    ("ddz-junior", 1, False),
    ("ddz-intermediate", 1, True),
    ("ddz-senior", 2, False),
    ("ddz-master", 2, False),
]


SHANGHAI_TABLES = [
    ("sh-novice", 2, True),
    ("sh-junior", 4, False),
    ("sh-intermediate", 1, True),
    ("sh-senior", 4, True),
]


@dataclass
class Playthrough:
    """One game the test plays, and its looks at it."""

    table: Table
    game: Game
    earlier: Game | None  # the table's game before this one
    humans: list[Viewer]
    viewers: list[Viewer]
    checker: Checker
    rng: random.Random

    def __post_init__(self) -> None:
        by_seat = {p.seat: p.user_id for p in self.game.players.all()}
        self.seats = {user: seat for seat, user in by_seat.items() if user is not None}
        people = {human.user.pk: human for human in self.humans}
        self.people = {seat: people[user] for user, seat in self.seats.items()}  # by seat
        self.state: Any = selectors.game_state(game=self.game)

    def look(self, kind: str, *, looks: int) -> Moment:
        """``looks`` looks at the game where it is, a moment of ``kind``."""
        self.game.refresh_from_db()
        at = Moment(self.table, self.game, self.state, self.earlier, self.seats)
        assert selectors.game_state(game=self.game) == self.state, "the game is not where it was"
        self.checker.figures.moments += 1
        self.checker.figures.by_moment[kind] += 1
        self.checker.rotate(at, self.viewers, looks, kind)
        return at

    def act(self, seat: int, action: dict[str, Any]) -> Any:
        """The person at ``seat`` acts through the table, on the version they see."""
        table, game = self.table, self.game
        version = selectors.table_version(table=table, game=game, events=self.state.log_length)
        return services.table_game_act(
            user=self.people[seat].user, table=table, action=action, version=version
        )

    def over(self) -> None:
        self.table.refresh_from_db()
        self.look("after the end", looks=2)
        assert self.game.status == Game.Status.FINISHED


def _play_games(kind: str, rng: random.Random, games: int, figures: Figures) -> None:
    """``games`` games of ``kind`` at the tables of its rooms in turn, ten at each."""
    tables, play_one = PLAYERS[kind]
    zhang, li = _user("zhangsan", "zh-hans"), _user("lisi", "en")
    people = [zhang, li]
    if max(count for _code, count, _private in tables) > 2:
        # 上海斗地主's tables of four people, whose 不叫 all round deals the cards again.
        people += [_user("wangwu", "zh-hans"), _user("zhaoliu", "en")]
    for person in people:
        person.role = "player"
    spectator = _user("kan", "zh-hans")
    spectator.role = "spectator"
    stranger = _user("lu", "en")
    checker = Checker(figures, rng)
    # The higher rooms seat searching bots, whose moves a clock cuts short; the test looks before
    # a bot's last move, so it needs the bot that always plays the same (what every level is
    # shown is the same view: tests/games/test_bot_turns.py).
    Room.objects.update(bot_level=BotLevel.NORMAL)
    played = 0
    index = 0
    while played < games:
        code, count, private = tables[index % len(tables)]
        index += 1
        room = Room.objects.get(code=code)
        engine = engine_for(room.game)
        starts = engine.start_actions(engine.options_from_json(room.rules))
        humans = people[:count]
        table = _open_table(room, humans, private)
        viewers = [*humans, spectator, stranger]
        earlier: Game | None = None
        here = min(GAMES_PER_TABLE, games - played)
        for number in range(here):
            game = selectors.table_current_game(table=table)
            assert game is not None and game.status == Game.Status.PLAYING
            play_one(Playthrough(table, game, earlier, humans, viewers, checker, rng))
            played += 1
            earlier = game
            if number + 1 < here:
                for human in humans:
                    _coins_for(human.user, room)
                    # Now and then a person chooses what the game lets them before its deal
                    # (斗地主's 明牌开始).
                    start = None
                    if starts and rng.random() < START_CHANCE:
                        start = engine.action_to_json(rng.choice(list(starts)))
                        figures.happened["a start action chosen"] += 1
                    services.table_play_again(user=human.user, table=table, start=start)
        for human in humans:
            services.table_leave(user=human.user, table=table)
    figures.games = played


# 干瞪眼 -------------------------------------------------------------------------------------------


def _play_gandengyan(run: Playthrough) -> None:
    """Play the game to its end, looking at it at the deal, at two moves in the middle chosen
    from the seed, right before the last move and after the end."""
    rng, checker = run.rng, run.checker
    middle = {rng.randint(1, 15), rng.randint(16, 35)}
    state: GameState = run.state
    while not state.is_terminal:
        seat = state.to_move
        assert seat is not None
        person = run.people.get(seat)
        move = None if person is None else _human_move(state, rng)
        if move is None and _may_end(state):
            move = choose_for(state, SensiblePolicy())  # the bot's move, to look before it
        last = move is not None and state.apply(seat, state.resolve(seat, move)).is_terminal
        if state.log_length == 0:
            at = run.look("the deal", looks=2)
            if len(run.humans) > 1:
                checker.planted(at, run.humans)
        elif state.log_length in middle:
            run.look("the play", looks=1)
        elif last:
            run.look("right before the last move", looks=2)
        if person is None:
            event = services.bot_take_turn(game=run.game)
        else:
            assert move is not None
            event = run.act(seat, dict(move.to_json()))
        assert event is not None and event.seat == seat
        stored = move_from_json(event.action)
        assert move is None or stored == state.resolve(seat, move), "not the move the test expected"
        state = run.state = state.apply(seat, stored)
        assert state.is_terminal == last
        checker.figures.moves += 1
    run.over()


def _human_move(state: GameState, rng: random.Random) -> Move:
    """A person's move: mostly the first hint (the bot's choice), sometimes another play that
    the hints offer, or a pass when the player may pass."""
    roll = rng.random()
    moves = state.legal_moves()
    if roll < 0.9:
        return choose_for(state, SensiblePolicy())
    plays = [move for move in moves if isinstance(move, Play)]
    if roll < 0.98 and plays:
        return rng.choice(plays)
    return PASS if PASS in moves else rng.choice(plays)


def _may_end(state: GameState) -> bool:
    """Whether the player to move could play their whole hand now, and so end the game."""
    assert state.to_move is not None
    held = state.hand_count(state.to_move)
    return any(isinstance(move, Play) and len(move.cards) == held for move in state.legal_moves())


# 斗地主 -------------------------------------------------------------------------------------------

SHOW_CHANCE = 0.08  # that a person declares 明牌 at a step of the game where they may
START_CHANCE = 0.15  # that a person chooses the game's start action (明牌开始) at 再来一局
NO_CALL_CHANCE = 0.7  # that a person says 不叫 in a game's first deal, so that some are dealt again


def _play_doudizhu(run: Playthrough) -> None:
    """Play the game to its end, the table's clock dealing, bots and people acting, and look at
    it at each stage of every deal, before the first bid and during the bidding, at 加倍, at two
    plays in the middle chosen from the seed, right before the last move and after the end."""
    rng, checker = run.rng, run.checker
    figures = checker.figures
    engine = engine_for(run.game.game)
    policy = engine.bot_policy()
    middle = {rng.randint(1, 10), rng.randint(11, 30)}
    looked: set[tuple[int, str, int]] = set()
    played = 0  # plays and passes
    planted = False
    state: ddz.GameState = run.state
    figures.happened["明牌开始 made as the game is dealt"] += len(state.shows)
    while not state.is_terminal:
        person, action = _doudizhu_person(state, run.people, rng, policy)
        seat = state.to_move if person is None else person
        assert seat is not None
        if action is None and state.phase is Phase.PLAY and _doudizhu_may_end(state):
            action = choose_for(state, policy)  # the bot's move, to look before it
        last = action is not None and state.apply(seat, action).is_terminal
        kind = _doudizhu_moment(state, last=last, in_middle=played in middle)
        if kind is not None and (len(state.deals), kind, played) not in looked:
            looked.add((len(state.deals), kind, played))
            dealing = state.phase in (Phase.DEAL, Phase.BID)
            again = ", dealt again" if dealing and len(state.deals) > 1 else ""
            at = run.look(kind + again, looks=2 if last else 1)
            if not planted and len(run.humans) > 1 and state.dealt and not any(state.shown):
                planted = True
                checker.planted(at, run.humans)
        if person is not None:
            assert action is not None
            event = run.act(person, engine.action_to_json(action))
        elif state.phase is Phase.DEAL:
            deadline = Game.objects.values_list("turn_deadline", flat=True).get(pk=run.game.pk)
            assert deadline is not None
            event = services.game_turn_due(game=run.game, now=deadline + timedelta(seconds=1))
        else:
            event = services.bot_take_turn(game=run.game)
        assert event is not None and event.seat == seat
        stored = engine.action_from_json(event.action)
        assert action is None or stored == state.resolve(seat, action), "not the expected action"
        deals = len(state.deals)
        state = run.state = state.apply(seat, stored)
        assert state.is_terminal == last
        figures.moves += 1
        played += isinstance(stored, ddz.Play | ddz.Pass)
        if isinstance(stored, ddz.Show):
            figures.happened[f"明牌 ({stored.moment})"] += 1
        if len(state.deals) > deals:
            figures.happened["dealt again after three 不叫"] += 1
    run.over()


def _doudizhu_person(
    state: ddz.GameState, people: dict[int, Viewer], rng: random.Random, policy: Any
) -> tuple[int | None, ddz.Action | None]:
    """What a person does now, as their seat and action, or (None, None) when the table goes on
    (its clock deals, a bot acts). Now and then a person declares 明牌 where they may, out of
    turn; they bid, in a game's first deal mostly 不叫; choose 加倍 or not, sometimes before
    their turn; and play mostly the bot's choice, sometimes any legal move."""
    for seat in sorted(people):
        legal = state.legal_actions(seat)
        if rng.random() < SHOW_CHANCE and any(isinstance(a, ddz.Show) for a in legal):
            return seat, ddz.SHOW
    phase, to_move = state.phase, state.to_move
    if phase is Phase.DOUBLE:
        waiting = [seat for seat in sorted(people) if state.doubles[seat] is None]
        if waiting and (to_move in people or rng.random() < 0.3):
            seat = to_move if to_move in people else rng.choice(waiting)
            assert seat is not None
            choices = [a for a in state.legal_actions(seat) if isinstance(a, ddz.Double)]
            return seat, rng.choice(choices)
        return None, None
    if phase is Phase.DEAL or to_move not in people:
        return None, None
    assert to_move is not None
    legal = [a for a in state.legal_actions(to_move) if not isinstance(a, ddz.Show)]
    if phase is Phase.BID:
        if len(state.deals) == 1 and ddz.NO_CALL in legal and rng.random() < NO_CALL_CHANCE:
            return to_move, ddz.NO_CALL
        return to_move, rng.choice(legal)
    if rng.random() < 0.9:
        return to_move, choose_for(state, policy)
    return to_move, rng.choice(legal)


def _doudizhu_moment(state: ddz.GameState, *, last: bool, in_middle: bool) -> str | None:
    """The kind of moment ``state`` is, to look at; None for one not looked at."""
    phase = state.phase
    if last:
        return "right before the last move"
    if phase is Phase.DEAL:
        return f"the deal, {state.dealt} cards each"
    if phase is Phase.BID:
        return "the bidding" if state.bids else "before the first bid"
    if phase is Phase.DOUBLE:
        return "加倍"
    return "the play" if in_middle else None


def _doudizhu_may_end(state: ddz.GameState) -> bool:
    """Whether the seat to move could play its whole hand now, and so end the game."""
    assert state.to_move is not None
    held = state.hand_count(state.to_move)
    return any(isinstance(m, ddz.Play) and m.size == held for m in state.legal_moves())


# 上海斗地主 --------------------------------------------------------------------------------------

NO_BID_CHANCE = 0.8  # that a person says 不叫 in a game's first deal, so that some are dealt again


def _play_shanghai(run: Playthrough) -> None:
    """Play the game to its end, bots and people acting, and look at it before the first bid and
    during the bidding of every deal, at two plays in the middle chosen from the seed, right
    before the last move and after the end."""
    rng, checker = run.rng, run.checker
    figures = checker.figures
    engine = engine_for(run.game.game)
    middle = {rng.randint(1, 15), rng.randint(16, 60)}
    looked: set[tuple[int, str, int]] = set()
    played = 0  # plays and passes
    planted = False
    state: sh.GameState = run.state
    while not state.is_terminal:
        seat = state.to_move
        assert seat is not None
        person = seat if seat in run.people else None
        action = None if person is None else _shanghai_person(state, rng)
        if action is None and state.phase is Phase.PLAY and _shanghai_may_end(state):
            action = choose_for(state, engine.bot_policy())  # the bot's move, to look before it
        last = action is not None and state.apply(seat, action).is_terminal
        kind = _shanghai_moment(state, last=last, in_middle=played in middle)
        if kind is not None and (len(state.deals), kind, played) not in looked:
            looked.add((len(state.deals), kind, played))
            again = ", dealt again" if state.phase is Phase.BID and len(state.deals) > 1 else ""
            at = run.look(kind + again, looks=2 if last else 1)
            if not planted and len(run.humans) > 1:
                planted = True
                checker.planted(at, run.humans)
        if person is not None:
            assert action is not None
            event = run.act(person, engine.action_to_json(action))
        else:
            event = services.bot_take_turn(game=run.game)
        assert event is not None and event.seat == seat
        stored = engine.action_from_json(event.action)
        assert action is None or stored == state.resolve(seat, action), "not the expected action"
        deals = len(state.deals)
        state = run.state = state.apply(seat, stored)
        assert state.is_terminal == last
        figures.moves += 1
        played += isinstance(stored, sh.Play | sh.Pass)
        if isinstance(stored, sh.Play) and stored.combo is not None and stored.combo.is_bomb:
            figures.happened["a bomb"] += 1
        if len(state.deals) > deals:
            figures.happened["dealt again after four 不叫"] += 1
        if isinstance(stored, sh.Bid) and state.landlord is not None:
            figures.happened[f"a landlord ({state.bid})"] += 1
    run.over()


def _shanghai_person(state: sh.GameState, rng: random.Random) -> sh.Action:
    """A person's action: in a game's first deal mostly 不叫, else any bid; in the play mostly
    the smallest play, sometimes any legal move."""
    seat = state.to_move
    assert seat is not None
    legal = state.legal_actions(seat)
    if state.phase is Phase.BID:
        if len(state.deals) == 1 and rng.random() < NO_BID_CHANCE:
            return sh.NO_BID
        return rng.choice(legal)
    plays = [action for action in legal if isinstance(action, sh.Play)]
    if plays and rng.random() < 0.85:
        return plays[0]
    return rng.choice(legal)


def _shanghai_moment(state: sh.GameState, *, last: bool, in_middle: bool) -> str | None:
    """The kind of moment ``state`` is, to look at; None for one not looked at."""
    if last:
        return "right before the last move"
    if state.phase is Phase.BID:
        return "the bidding" if state.bids else "before the first bid"
    return "the play" if in_middle else None


def _shanghai_may_end(state: sh.GameState) -> bool:
    """Whether the seat to move could play its whole hand now, and so end the game."""
    assert state.to_move is not None
    held = state.hand_count(state.to_move)
    return any(isinstance(m, sh.Play) and m.size == held for m in state.legal_moves())


# What plays each game: its tables, and a game at one of them.
PLAYERS: dict[str, tuple[list[tuple[str, int, bool]], Callable[[Playthrough], None]]] = {
    "gandengyan": (TABLES, _play_gandengyan),
    "doudizhu": (DOUDIZHU_TABLES, _play_doudizhu),
    "shanghai": (SHANGHAI_TABLES, _play_shanghai),
}


@pytest.fixture
def seeded_deals() -> Iterator[random.Random]:
    """Deals from the run's seed instead of the system's randomness, so that a run repeats."""
    seeds.restart(SEED + 1)
    with override_settings(GAME_SEED_SOURCE=seeds.SOURCE):
        yield random.Random(SEED)


# Enough games for every surface to be seen by every kind of viewer during and after a game,
# and (斗地主) every kind of moment and everything that can happen in a game to come up.
FULL_RUN = {"gandengyan": 150, "doudizhu": 40, "shanghai": 24}
DOUDIZHU_MOMENTS = (
    "the deal, 0 cards each",
    "the deal, 8 cards each",
    "before the first bid",
    "the bidding",
    "加倍",
    "the play",
    "right before the last move",
    "after the end",
    "the deal, 0 cards each, dealt again",
    "the deal, 8 cards each, dealt again",
    "before the first bid, dealt again",
)
SHANGHAI_MOMENTS = (
    "before the first bid",
    "the bidding",
    "the play",
    "right before the last move",
    "after the end",
    "before the first bid, dealt again",
)
SHANGHAI_HAPPENINGS = (
    "dealt again after four 不叫",
    "a landlord (small)",
    "a landlord (big)",
    "a bomb",
)
DOUDIZHU_HAPPENINGS = (
    "a start action chosen",
    "明牌开始 made as the game is dealt",
    "明牌 (start)",
    "明牌 (deal)",
    "明牌 (bottom)",
    "dealt again after three 不叫",
)


@pytest.mark.parametrize(
    ("kind", "games"),
    [("gandengyan", GAMES), ("doudizhu", DOUDIZHU_GAMES), ("shanghai", SHANGHAI_GAMES)],
    ids=["gandengyan", "doudizhu", "shanghai"],
)
def test_no_surface_shows_a_non_staff_user_a_hidden_card_the_stock_or_a_live_seed(
    seeded_deals: random.Random, kind: str, games: int
) -> None:
    """Complete games (干瞪眼: 500, or ``TEST_LEAK_GAMES``; 斗地主: 120, or
    ``TEST_LEAK_DOUDIZHU_GAMES``), each looked at by its players, a spectator and a stranger on
    the surfaces they can reach, in turn."""
    figures = Figures()
    started = time.monotonic()
    _play_games(kind, seeded_deals, games, figures)
    elapsed = time.monotonic() - started
    print(
        f"\nhidden information, {kind} ({connection.vendor}): {figures.games} games, "
        f"{figures.moves} moves, {figures.moments} moments, {figures.frames} frames and "
        f"{figures.pages} pages checked, {figures.planted_caught} planted leaks caught, in "
        f"{elapsed:.1f} s"
    )
    for surface in SURFACES:
        looks = sum(n for key, n in figures.by_surface.items() if key.startswith(f"{surface},"))
        print(f"  {surface}: {looks} looks, {figures.seconds[surface]:.1f} s")
    print("  moments:", dict(figures.by_moment))
    print("  happened:", dict(figures.happened))
    assert figures.games == games
    assert figures.planted_caught > 0
    if games >= FULL_RUN[kind]:
        missing = [
            (surface, role, when)
            for surface in SURFACES
            for role in ("player", "spectator", "stranger")
            for when in ("playing", "over")
            if not figures.by_surface[f"{surface}, {role}, {when}"]
        ]
        assert not missing
        if kind == "doudizhu":
            assert not [moment for moment in DOUDIZHU_MOMENTS if not figures.by_moment[moment]]
            assert not [what for what in DOUDIZHU_HAPPENINGS if not figures.happened[what]]
        if kind == "shanghai":
            assert not [moment for moment in SHANGHAI_MOMENTS if not figures.by_moment[moment]]
            assert not [what for what in SHANGHAI_HAPPENINGS if not figures.happened[what]]


def test_the_detector_catches_planted_leaks(seeded_deals: random.Random) -> None:
    """The detector flags another seat's frame and every way of writing a hidden card, the
    stock or the seed into a page, and passes the real pages."""
    zhang, li = _user("zhangsan", "zh-hans"), _user("lisi", "en")
    table = _open_table(Room.objects.get(code="junior"), [zhang, li], private=True)
    game = selectors.table_current_game(table=table)
    assert game is not None
    state = selectors.game_state(game=game)
    seats = {p.user_id: p.seat for p in game.players.all() if p.user_id is not None}
    mine = Secrets.of(game, state, seats[zhang.user.pk])
    spectator = Secrets.of(game, state, None)
    own_frame = render_frame_for_user(user=zhang.user, table_id=table.pk)[0]
    other_frame = render_frame_for_user(user=li.user, table_id=table.pk)[0]
    page = zhang.client.get(f"/tables/{table.pk}/").content.decode()
    lobby = zhang.client.get("/").content.decode()
    assert (
        leaks(own_frame, mine) == [] and leaks(page, mine) == [] and leaks(lobby, spectator) == []
    )
    assert 'data-card="' in own_frame  # the player's own hand is there, and allowed

    # A frame rendered for the wrong seat.
    assert any(found.startswith("hidden cards") for found in leaks(other_frame, mine))

    theirs = format_cards(state.hand(seats[li.user.pk])).split()
    stock = [str(card) for card in state.stock_cards()]
    # Numbers that tell of hidden cards: a counter that takes away another seat's hand or the
    # stock, a seat's box with a count it does not hold.
    assert mine.counter and sum(mine.counter) == 54 - len(state.hand(seats[zhang.user.pk]))
    assert leaks(_with_counter(own_frame, _less(mine.counter, theirs)), mine)
    assert leaks(_with_counter(own_frame, _less(mine.counter, stock[:1])), mine)
    assert leaks(_with_seat_count(own_frame, seats[li.user.pk], len(theirs) + 1), mine)
    card = theirs[0]
    rank, suit = ("10" if card[0] == "T" else card[0]), card[1]
    symbol = {code: face for face, code in SUIT_CODES.items()}.get(suit, "")
    seed_hex, seed_decimal = mine.seeds
    planted = {
        "a card element": f'<span class="card" data-card="{card}"></span>',
        "a checkbox": f'<input type="checkbox" name="cards" value="{card}">',
        "a title": f'<span class="card-chip" title="{card}">?</span>',
        "hints": f'<script id="hints" type="application/json">[{{"cards": "{stock[0]}"}}]</script>',
        "a record": f'<pre class="code">{{"hands": ["{" ".join(theirs)}"]}}</pre>',
        "a face": f'<span class="card-rank">{rank}</span><span class="card-suit">{symbol}</span>',
        "a word of text": f"<p>The next card is {stock[-1]}.</p>",
        "a name said aloud": f'<span role="img" aria-label="{card_face(card).label}">?</span>',
        "the stock": f"<!-- {' '.join(stock)} -->",
        "the stock squeezed": f'<div data-x="{"".join(stock[:3])}">',
        "the seed": f"<code>{seed_hex}</code>",
        "the seed as a number": f'{{"seed": {seed_decimal}}}',
    }
    for name, leak in planted.items():
        if name == "a face" and card in ("BJ", "RJ"):
            continue
        where = page.replace("</main>", leak + "</main>", 1)
        assert where != page
        assert leaks(where, mine), f"{name} was not caught"
        assert leaks(lobby.replace("</body>", leak + "</body>"), spectator), name

    # A finished game's page shows the same 54 cards elsewhere: single cards are not counted
    # there, but the stock in order still is, and the seed.
    assert leaks(page + f"<p>{card}</p>", mine, old_cards=True) == []
    assert leaks(page + f"<p>{' '.join(stock[:5])}</p>", mine, old_cards=True)
    assert leaks(page + seed_hex, mine, old_cards=True)


def _deal_on(game: Game) -> None:
    """The table's clock shows the next stage of the deal."""
    game.refresh_from_db()
    assert game.turn_deadline is not None
    event = services.game_turn_due(game=game, now=game.turn_deadline + timedelta(seconds=1))
    assert event is not None and event.source == "clock"


def _planted(page: str, leak: str) -> str:
    where = page.replace("</main>", leak + "</main>", 1)
    assert where != page
    return where


def _with_counter(page: str, counts: tuple[int, ...]) -> str:
    """``page`` with its card counter showing ``counts`` instead."""
    block = COUNTER_BLOCK.search(page)
    assert block is not None
    numbers = iter(counts)
    changed = COUNTER_CELL.sub(
        lambda cell: cell.group(0).replace(f"</b>{cell.group(1)}<", f"</b>{next(numbers)}<"),
        block.group(1),
    )
    return page[: block.start(1)] + changed + page[block.end(1) :]


def _with_seat_count(page: str, seat: int, count: int) -> str:
    """``page`` with seat ``seat``'s box showing ``count`` cards."""
    box = re.search(rf'data-seat="{seat}">.*?class="seat-card-count">(\d+)<', page, re.S)
    assert box is not None
    return page[: box.start(1)] + str(count) + page[box.end(1) :]


def _less(counts: tuple[int, ...], cards: list[str]) -> tuple[int, ...]:
    """``counts`` (by ``COUNTER_ORDER``) with ``cards`` taken away as well."""
    taken = Counter(_rank_of(card) for card in cards)
    return tuple(count - taken[rank] for rank, count in zip(COUNTER_ORDER, counts, strict=True))


def test_the_detector_catches_planted_doudizhu_leaks(seeded_deals: random.Random) -> None:
    """斗地主: the detector flags another seat's frame, a card of a hand not shown, a card still
    to be dealt, a bottom card before the landlord takes it, hidden cards in the order dealt, a
    hand of another deal and the seed of a redeal; not the cards 明牌 shows nor the bottom once
    the landlord has it; and it passes the real pages."""
    zhang, li = _user("zhangsan", "zh-hans"), _user("lisi", "en")
    table = _open_table(Room.objects.get(code="ddz-junior"), [zhang, li], private=True)
    game = selectors.table_current_game(table=table)
    assert game is not None
    seats = {p.user_id: p.seat for p in game.players.all() if p.user_id is not None}
    me, them = seats[zhang.user.pk], seats[li.user.pk]
    _deal_on(game)
    state = selectors.game_state(game=game)
    assert state.dealt == 8 and not any(state.shown)
    mine = Secrets.of(game, state, me)
    spectator = Secrets.of(game, state, None)
    own_frame = render_frame_for_user(user=zhang.user, table_id=table.pk)[0]
    other_frame = render_frame_for_user(user=li.user, table_id=table.pk)[0]
    page = zhang.client.get(f"/tables/{table.pk}/").content.decode()
    lobby = zhang.client.get("/").content.decode()
    assert leaks(own_frame, mine) == leaks(page, mine) == leaks(lobby, spectator) == []
    deal = state.current_deal
    my_cards, theirs = [str(c) for c in deal.hands[me]], [str(c) for c in deal.hands[them]]
    bottom = [str(card) for card in deal.bottom]
    # The player's own cards dealt so far are there, and allowed; none of those still to come.
    assert cards_shown(own_frame) & set(my_cards) == set(my_cards[:8])

    # A frame rendered for the wrong seat.
    assert any(found.startswith("hidden cards") for found in leaks(other_frame, mine))
    # A counter that takes away the cards of the player's hand still to be dealt (the whole
    # hand before it is shown), or a seat's box counting them.
    assert sum(mine.counter) == 54 - 8
    assert leaks(_with_counter(own_frame, _less(mine.counter, my_cards[8:])), mine)
    assert leaks(_with_seat_count(own_frame, them, 17), mine)

    following = ddz.deal_from_seed(deal.next_seed)
    next_hand = format_cards(following.hands[me])
    joker = "RJ" if "RJ" in mine.cards else "BJ"
    planted = {
        "their card": f'<span class="card" data-card="{theirs[0]}"></span>',
        "a card still to be dealt to them": f'<input type="checkbox" value="{theirs[12]}">',
        "a card still to be dealt to me": f"<p>The next card is {my_cards[8]}.</p>",
        "a bottom card": f'<span class="card-chip" title="{bottom[0]}">?</span>',
        "a joker by its face": f'<span class="card is-joker joker-{JOKER_NAMES[joker]}">'
        '<span class="card-rank">JOKER</span><span class="card-suit">★</span></span>',
        "their cards as dealt": f"<!-- {' '.join(theirs[9:11])} -->",
        "the bottom squeezed": f'<div data-x="{"".join(bottom)}">',
        "a hand of the next deal": f'<pre class="code">{{"hands": ["{next_hand}"]}}</pre>',
        "the seed of the next deal": f'{{"next_seed": {deal.next_seed}}}',
        "the seed": f"<code>{game.seed}</code>",
    }
    if joker not in mine.cards:  # both jokers are the player's, dealt already
        del planted["a joker by its face"]
    for name, leak in planted.items():
        assert leaks(_planted(page, leak), mine), f"{name} was not caught"
        assert leaks(lobby.replace("</body>", leak + "</body>"), spectator), name
    assert any(found.startswith("a hand") for found in leaks(lobby + next_hand, mine))
    assert any(found.startswith("the seed") for found in leaks(lobby + f"{deal.next_seed:x}", mine))
    # On a finished game's page single cards do not count, five hidden ones as dealt do.
    assert leaks(page + f"<p>{theirs[12]}</p>", mine, old_cards=True) == []
    assert leaks(page + f"<p>{' '.join(theirs[8:13])}</p>", mine, old_cards=True)

    # Dealt again after three 不叫 (in the engine only): the hands of the deal before count
    # whole, but the player's own, and the redeal's seed counts.
    redealt = state.apply(state.to_move, ddz.DealOn(17))
    for _ in range(3):
        assert redealt.to_move is not None
        redealt = redealt.apply(redealt.to_move, ddz.NO_CALL)
    assert len(redealt.deals) == 2
    again = Secrets.of(game, redealt, me)
    assert format_cards(deal.hands[them]) in again.hands
    assert format_cards(deal.hands[me]) not in again.hands
    assert any(found.startswith("the seed") for found in leaks(f"{deal.next_seed}", again))

    # 明牌: their cards dealt so far may be seen, not those still to come.
    version = selectors.table_version(table=table, game=game, events=state.log_length)
    services.table_game_act(user=li.user, table=table, action={"show": True}, version=version)
    state = selectors.game_state(game=game)
    assert state.shown[them]
    shown = Secrets.of(game, state, me)
    assert not shown.cards & set(theirs[:8]) and set(theirs[8:]) <= shown.cards
    page = zhang.client.get(f"/tables/{table.pk}/").content.decode()
    frame = render_frame_for_user(user=zhang.user, table_id=table.pk)[0]
    assert cards_shown(frame) & set(theirs) == set(theirs[:8])
    assert leaks(page, shown) == leaks(frame, shown) == []
    assert leaks(_planted(page, planted["their card"]), shown) == []
    assert leaks(_planted(page, planted["a card still to be dealt to them"]), shown)

    # The bottom cards once the landlord has taken them.
    _deal_on(game)
    state = selectors.game_state(game=game)
    while state.phase is not Phase.DOUBLE:
        seat = state.to_move
        person = {me: zhang, them: li}.get(seat) if seat is not None else None
        if person is None:
            assert services.bot_take_turn(game=game) is not None
        else:
            bid = ddz.CALL if ddz.CALL in state.legal_actions(seat) else ddz.NO_ROB
            version = selectors.table_version(table=table, game=game, events=state.log_length)
            services.table_game_act(
                user=person.user, table=table, action=bid.to_json(), version=version
            )
        state = selectors.game_state(game=game)
    taken = Secrets.of(game, state, me)
    assert not taken.cards & set(bottom)
    page = zhang.client.get(f"/tables/{table.pk}/").content.decode()
    assert set(bottom) <= cards_shown(page) and leaks(page, taken) == []
    assert leaks(_planted(page, planted["a bottom card"]), taken) == []


def test_the_detector_catches_planted_shanghai_leaks(seeded_deals: random.Random) -> None:
    """上海斗地主: the detector flags another seat's frame, another seat's copy of a card the
    viewer holds too (by its deck), a card none of whose copies the viewer sees, a bottom card
    before the landlord takes it, hidden copies in the order dealt, a hand of the next deal and
    the seed of a redeal; not the bottom once the landlord has it; and it passes the real
    pages."""
    zhang, li = _user("zhangsan", "zh-hans"), _user("lisi", "en")
    table = _open_table(Room.objects.get(code="sh-junior"), [zhang, li], private=True)
    game = selectors.table_current_game(table=table)
    assert game is not None
    seats = {p.user_id: p.seat for p in game.players.all() if p.user_id is not None}
    me, them = seats[zhang.user.pk], seats[li.user.pk]
    state = selectors.game_state(game=game)
    assert state.phase is Phase.BID
    mine = Secrets.of(game, state, me)
    spectator = Secrets.of(game, state, None)
    own_frame = render_frame_for_user(user=zhang.user, table_id=table.pk)[0]
    other_frame = render_frame_for_user(user=li.user, table_id=table.pk)[0]
    page = zhang.client.get(f"/tables/{table.pk}/").content.decode()
    lobby = zhang.client.get("/").content.decode()
    assert leaks(own_frame, mine) == leaks(page, mine) == leaks(lobby, spectator) == []
    my_codes = {str(card) for card in state.hand(me)}
    assert {f"{c}.{d}" for c, d in DECK_CODE.findall(own_frame)} >= my_codes

    # A frame rendered for the wrong seat.
    assert any(found.startswith("hidden cards") for found in leaks(other_frame, mine))

    deal = state.current_deal
    theirs = [str(card) for card in deal.hands[them]]
    bottom = [str(card) for card in deal.bottom]
    mine_bases = {code.split(".")[0] for code in my_codes}
    shared = next(code for code in theirs if code.split(".")[0] in mine_bases)
    unseen = next((code for code in theirs if code not in mine.codes), None)
    assert unseen is None  # every card of theirs is hidden from me, by its copy
    apart = next((code for code in theirs if code.split(".")[0] in mine.cards), None)
    following = sh.deal_from_seed(deal.next_seed)
    planted = {
        "their copy of a card I hold": f'<input type="checkbox" value="{shared}">',
        "their copy as an id": f'<label id="hand-{shared.replace(".", "-")}"></label>',
        "a bottom card": f'<span class="card" data-card="{bottom[0]}"></span>',
        "hints of theirs": '<script id="hints" type="application/json">'
        f'[{{"cards": "{theirs[3]}"}}]</script>',
        "their cards as dealt": f"<!-- {' '.join(theirs[5:7])} -->",
        "a hand of the next deal": '<pre class="code">{"hands": ["'
        + sh.format_cards(following.hands[me])
        + '"]}</pre>',
        "the seed of the next deal": f'{{"next_seed": {deal.next_seed}}}',
        "the seed": f"<code>{game.seed}</code>",
    }
    if apart is not None:
        # A card none of whose copies I see, drawn as a deck's card without its deck.
        base = apart.split(".")[0]
        planted["a card I see no copy of"] = f'<span class="card-chip" title="{base}">?</span>'
    for name, leak in planted.items():
        assert leaks(_planted(page, leak), mine), f"{name} was not caught"
        assert leaks(lobby.replace("</body>", leak + "</body>"), spectator), name
    # My own copy is mine to see, written either way.
    own = next(iter(my_codes))
    assert leaks(_planted(page, f'<input type="checkbox" value="{own}">'), mine) == []

    # The bottom cards once the landlord has taken them: the landlord says 大地主 at once.
    while state.phase is Phase.BID:
        seat = state.to_move
        person = {me: zhang, them: li}.get(seat) if seat is not None else None
        if person is None:
            assert services.bot_take_turn(game=game) is not None
        else:
            version = selectors.table_version(table=table, game=game, events=state.log_length)
            services.table_game_act(
                user=person.user, table=table, action=sh.BIG.to_json(), version=version
            )
        state = selectors.game_state(game=game)
    taken = Secrets.of(game, state, me)
    assert not taken.codes & set(bottom)
    page = zhang.client.get(f"/tables/{table.pk}/").content.decode()
    assert set(bottom) <= {f"{c}.{d}" for c, d in DECK_CODE.findall(page)}
    assert leaks(page, taken) == []
    assert leaks(_planted(page, planted["a bottom card"]), taken) == []
