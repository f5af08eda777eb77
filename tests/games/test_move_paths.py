"""The two storage paths of a move play the same games alike.

One seeded session of games at one table is played twice from the same empty database: once as
the table's sockets make the players' moves and 再来一局 (on the event loop, ``games.loop_moves``,
then through the services, in a service process as on a worker, for what the loop hands over),
once through the services alone. The players sit on two workers, each with the caches a process
keeps. Both runs must store the same rows and send every player the same frames, and refuse the
same actions with the same codes.

There is a session for each game (``Script``): 干瞪眼 at four seats, 斗地主 at three, whose
deal the table's clock shows in stages, with its bidding (and a redeal when nobody calls), 明牌
and 加倍 (a player with fewer coins than the room's threshold may not) before the play, and
上海斗地主 at four, with its bidding and the farmers' bomb allowances.
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import itertools
import random
import re
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from typing import Any

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from django.apps import apps
from django.conf import settings as django_settings
from django.core.management.color import no_style
from django.db import connection, connections

from accounts.models import LedgerEntry, User
from games import loop_moves, service_processes, services
from games.bots import DoudizhuPolicy, SensiblePolicy, choose_for
from games.engines import engine_for
from games.errors import GameActionRefused, TableRefused
from games.lru import LruCache
from games.models import Game, GameEvent, GamePlayer, Room, Seat, Table
from games.positions import known_games
from games.rules import Phase
from games.rules import doudizhu as ddz
from games.rules import gandengyan as gdy
from games.rules import shanghai as sh
from games.rules.doudizhu.game import deal_numbers
from games.selectors import game_initial_state, table_version
from tests import seeds
from tests.games.helpers import make_player, make_room, set_balance

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

#: The fewest coins the session's room admits: the staff leave a player half as many
#: (``Script.ruined``), whose 再来一局 is then refused, and who leaves the table.
MIN_COINS = 1_000
STEPS_LIMIT = 4000

#: What came of an action: ``("refused", code)`` or ``("notices", [(group, message), ...])``.
Outcome = tuple[Any, ...]

#: The caches each process keeps of the tables it serves.
CACHES: tuple[LruCache[Any], ...] = (known_games,)

# Two runs differ only in the time things happened: every ISO time in a frame (a turn's
# deadline, when bots come or a seat is freed) is replaced before they are compared. A game
# row's times and ``position_id`` (a random UUID per move) are not compared at all.
ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:\d\d|Z)?")


@pytest_asyncio.fixture(autouse=True)
async def _close_connections() -> AsyncIterator[None]:
    """The test database is dropped at the end: Channels' own thread keeps a connection. The
    caches keep nothing of this test's games for the next test."""
    yield
    for cache in CACHES:
        cache.clear()
    await database_sync_to_async(connections.close_all)()


class Workers:
    """The caches of two workers in one process: before an action of a player on the other
    worker, the caches' entries are put aside and the other worker's put back."""

    def __init__(self) -> None:
        for cache in CACHES:
            cache.clear()
        self.apart: dict[str, list[OrderedDict[Hashable, Any]]] = {
            name: [OrderedDict() for _cache in CACHES] for name in ("A", "B")
        }
        self.current = "A"

    def enter(self, worker: str) -> None:
        if worker == self.current:
            return
        for cache, kept in zip(CACHES, self.apart[self.current], strict=True):
            kept.clear()
            kept.update(cache._entries)
        for cache, kept in zip(CACHES, self.apart[worker], strict=True):
            cache.clear()
            for key, value in kept.items():
                cache.put(key, value)
        self.current = worker


@dataclasses.dataclass(frozen=True)
class Step:
    """One action of the session: who did what, what came of it, and the table after it
    (status, version and every seat)."""

    what: str
    outcome: Outcome
    table: tuple[Any, ...]


@dataclasses.dataclass
class Played:
    steps: list[Step]
    rows: dict[str, list[tuple[Any, ...]]]
    counts: Counter[str]


@dataclasses.dataclass(frozen=True)
class Look:
    """The table as the players see it before the next action: its version, the game being
    played and its position (replayed from the stored events, past every cache), the seats."""

    version: str
    table: Table
    game: Game | None
    state: Any  # the engine's position, None between games
    seats: list[Seat]

    def seat_of(self, name: str) -> Seat:
        return next(row for row in self.seats if row.user is not None and row.user.username == name)


def _untimed(value: Any) -> Any:
    if isinstance(value, str):
        return ISO_TIME.sub("<time>", value)
    if isinstance(value, dict):
        return {key: _untimed(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_untimed(item) for item in value]
    return value


def _notices(notices: list[tuple[str, dict[str, Any]]]) -> Outcome:
    return ("notices", _untimed(notices))


def _collected(function: Callable[..., Any], kwargs: dict[str, Any]) -> Outcome:
    """``function`` (a service) called as a socket calls it: its notices collected, its
    refusal as the code."""
    with services.notices_collected() as notices:
        try:
            function(**kwargs)
        except (GameActionRefused, TableRefused) as refused:
            return ("refused", refused.code)
    return _notices(notices)


async def _through_services(function: Callable[..., Any], **kwargs: Any) -> Outcome:
    return await database_sync_to_async(_collected)(function, kwargs)


async def _in_service_process(
    user: User, table_id: int, intent: dict[str, Any], move: Any = None
) -> Outcome:
    """A socket's intent made in a service process, as a worker on PostgreSQL makes what its
    loop hands over, dealing on from this process's sequence of seeds."""
    pool = service_processes._service_pool()
    assert pool is not None, "no service process"
    arguments = (user.pk, table_id, django_settings.LANGUAGE_CODE, intent, move)
    outcome, deals = await asyncio.get_running_loop().run_in_executor(
        pool, _made_in_service_process, seeds.state(), arguments
    )
    seeds.go_on_from(deals)
    return outcome


def _made_in_service_process(deals: object, arguments: tuple[Any, ...]) -> tuple[Outcome, object]:
    """In the service process: its call, with this test's repeatable deals."""
    django_settings.GAME_SEED_SOURCE = seeds.SOURCE
    seeds.go_on_from(deals)
    try:
        outcome = _notices(service_processes._make_here(*arguments))
    except (GameActionRefused, TableRefused) as refused:
        outcome = ("refused", refused.code)
    return outcome, seeds.state()


def _turn_due(*, table_id: int) -> None:
    """The runner when the turn's deadline comes: it acts at the deadline itself."""
    game = Game.objects.get(table_id=table_id, status=Game.Status.PLAYING)
    assert services.game_turn_due(game=game, now=game.turn_deadline) is not None


def _bot_turn(*, table_id: int) -> None:
    game = Game.objects.get(table_id=table_id, status=Game.Status.PLAYING)
    assert services.bot_take_turn(game=game) is not None


def _position(game: Game, known: Look | None) -> Any:
    """The position of ``game`` after its stored events, replayed from ``known`` (the look
    before) when it shows the same game, else from the deal."""
    if known is not None and known.game is not None and known.game.pk == game.pk:
        assert known.state is not None
        state = known.state
    else:
        state = game_initial_state(game=game)
    engine = engine_for(game.game)
    actions = game.events.filter(number__gt=state.log_length).order_by("number")
    for seat, action in actions.values_list("seat", "action"):
        state = state.apply(seat, engine.action_from_json(action))
    return state


def _look(table_id: int, known: Look | None = None) -> Look:
    seats = list(
        Seat.objects.select_related("user", "table").filter(table_id=table_id).order_by("position")
    )
    table = seats[0].table
    latest = Game.objects.filter(table_id=table_id).order_by("-number").first()
    if latest is None or latest.is_over:
        return Look(table_version(table=table, game=latest), table, None, None, seats)
    state = _position(latest, known)
    version = table_version(table=table, game=latest, events=state.log_length)
    return Look(version, table, latest, state, seats)


def _table_of(look: Look) -> tuple[Any, ...]:
    """The table's status and version, and every seat: what an action may change of them."""
    seats = tuple(
        (
            row.position,
            None if row.user is None else row.user.username,
            row.is_bot,
            row.ready,
            row.auto_play,
            row.leaves_after_game,
            row.timeouts,
        )
        for row in look.seats
    )
    return (look.table.status, look.table.version, seats)


def _empty_database() -> None:
    """Empty the accounts' and the games' tables and restart their keys, so that both runs
    number their rows alike."""
    tables = [
        model._meta.db_table
        for label in ("accounts", "games")
        for model in apps.get_app_config(label).get_models(include_auto_created=True)
    ]
    connection.ops.execute_sql_flush(
        connection.ops.sql_flush(no_style(), tables, reset_sequences=True, allow_cascade=True)
    )


def _key_sequences() -> dict[str, int]:
    """The last key each table of the accounts and the games has handed out, by sequence."""
    found = {}
    with connection.cursor() as cursor:
        for label in ("accounts", "games"):
            for model in apps.get_app_config(label).get_models(include_auto_created=True):
                cursor.execute(
                    "SELECT pg_get_serial_sequence(%s, %s)",
                    [model._meta.db_table, model._meta.pk.column],
                )
                (sequence,) = cursor.fetchone()
                if sequence is not None:
                    cursor.execute(f"SELECT last_value FROM {sequence}")
                    found[sequence] = cursor.fetchone()[0]
    return found


def _keys_go_on_from(sequences: dict[str, int]) -> None:
    """Let every table hand out keys after those it had before the runs restarted them: the
    rows the suite restores after this test keep theirs."""
    with connection.cursor() as cursor:
        for sequence, last in sequences.items():
            cursor.execute(
                f"SELECT setval(%s, GREATEST(%s, (SELECT last_value FROM {sequence})))",
                [sequence, last],
            )


def _stored_rows() -> dict[str, list[tuple[Any, ...]]]:
    return {
        "games": list(
            Game.objects.order_by("number").values_list(
                "pk",
                "number",
                "game",
                "status",
                "winner",
                "dealer",
                "to_move",
                "result",
                "rules",
                "base",
                "hands",
                "stock",
                "seed",
                "seed_commitment",
                "deal",
            )
        ),
        "game players": list(
            GamePlayer.objects.order_by("game__number", "seat").values_list(
                "game__number",
                "seat",
                "user__username",
                "is_bot",
                "cards_left",
                "spring",
                "nominal",
                "coins",
            )
        ),
        "events": list(
            GameEvent.objects.order_by("game__number", "number").values_list(
                "game__number", "number", "seat", "action", "source", "action_id"
            )
        ),
        "ledger": list(
            LedgerEntry.objects.order_by("pk").values_list(
                "wallet__user__username", "amount", "balance_after", "reason", "game__number"
            )
        ),
    }


class Script:
    """A session's game and its cast, and how its players choose their actions.

    The people, and the worker each one's socket is on: the first ``seated`` sit down, by
    seat, and bots take the other seats; when a seat is free, the first of ``arrivals`` not
    seated (nor turned away) takes it. The table's runner (bots, timeouts, 托管, the clock) and
    the staff run on worker ``RUNNER``."""

    name = ""
    #: The engine's key, and the room's base and rules.
    game = ""
    base = 400
    rules: dict[str, Any] = {}
    #: The session: games played to their end, the deals' sequence and the players' choices.
    games = 7
    deals = 0
    choices = 0
    people = ("zhao", "qian", "sun", "li")
    seated = 3
    arrivals = ("li", "zhao", "sun", "qian")
    worker = {"zhao": "A", "qian": "B", "sun": "A", "li": "B"}
    #: Each person's coins at the start (1,000,000 unless listed).
    coins: dict[str, int] = {}
    #: Turns the player lets run out in the first game: two in a row put the seat in 托管.
    first_timeouts: dict[str, int] = {}
    #: By game, when a player asks to leave once it ends (or takes it back): after how many of
    #: its actions.
    leaving: dict[int, list[tuple[int, str, str]]] = {
        3: [(6, "leave", "zhao"), (12, "stay", "zhao"), (18, "leave", "zhao")]
    }
    #: After this many games the staff leave this player fewer coins than the room admits.
    ruined = (5, "")
    #: How often a player sends a move between games.
    stray = 0.15

    def world(self) -> tuple[Room, dict[str, User]]:
        room = make_room(code=f"paths-{self.game}", base=self.base, rules=self.rules)
        Room.objects.filter(pk=room.pk).update(game=self.game, min_coins=MIN_COINS)
        room.refresh_from_db()
        room.full_clean()
        users = {
            name: make_player(name, coins=self.coins.get(name, 1_000_000)) for name in self.people
        }
        return room, users

    def choose(self, look: Look, rng: random.Random) -> dict[str, Any]:
        """The action of the person to move, as the page sends it."""
        raise NotImplementedError

    async def aside(self, session: Session, look: Look) -> bool:
        """Whether an action other than the turn of the person to move was made instead (what
        the game lets a seat do out of turn, or the table's clock): the session then goes on
        to its next step."""
        return False

    def counted(self, rows: dict[str, list[tuple[Any, ...]]]) -> Counter[str]:
        """What the game's stored events show the session covered."""
        return Counter()

    def check(self, counts: Counter[str]) -> None:
        """That the session covered what it is meant to."""


def _face(card: Any) -> str:
    """A card without its deck (上海斗地主's ``As.2`` is ``As``)."""
    return str(card).split(".")[0]


def _plays_or_pass(state: Any, rng: random.Random) -> dict[str, Any]:
    """One of the moves of the player to move, at random: mostly a play, sometimes a pass
    (when following)."""
    moves = state.legal_moves()
    plays = [move for move in moves if isinstance(move, gdy.Play | ddz.Play | sh.Play)]
    move = rng.choice(plays if plays and rng.random() < 0.8 else moves)
    return dict(move.to_json())


class Gandengyan(Script):
    """干瞪眼 at four seats: three people and a bot."""

    name = "gandengyan"
    game = "gandengyan"
    rules = {"players": 4}
    deals = 20_260_101
    choices = 3
    first_timeouts = {"sun": 2}
    ruined = (5, "sun")

    def choose(self, look: Look, rng: random.Random) -> dict[str, Any]:
        """Mostly the hint a bot would play (the cards and the meaning chosen), otherwise one of
        the moves at random."""
        if rng.random() < 0.75:
            return dict(choose_for(look.state, SensiblePolicy()).to_json())
        return _plays_or_pass(look.state, rng)

    def check(self, counts: Counter[str]) -> None:
        assert counts["再来一局 made on the loop"] >= self.games
        assert counts["再来一局 handed to the services"] >= self.games - 3
        assert counts["events by timeout"] >= 4 and counts["events by auto_play"] >= 4
        assert counts["events by bot"] >= 20
        assert counts["sat down"] == self.seated + 2 and counts["left"] == 3
        for code in ("balance_too_low", "duplicate"):
            assert counts[f"refused as {code}"], code


#: How often someone who may declare 明牌 does, unplanned, by phase.
SHOWS = {Phase.DEAL: 0.15, Phase.BID: 0.05, Phase.DOUBLE: 0.1, Phase.PLAY: 0.1}


class Doudizhu(Script):
    """斗地主 at three seats: two people and a bot. The room's threshold for 加倍 is that of
    its novice room: ``li``, who comes in the fourth game, has less, so may not 加倍, nor may
    anyone while ``li`` is the landlord."""

    name = "doudizhu"
    game = "doudizhu"
    base = 50
    rules = {"double_threshold": 2_000}
    deals = 20_260_315
    choices = 8
    seated = 2
    arrivals = ("li", "sun", "zhao", "qian")
    coins = {"li": 1_900}
    first_timeouts = {"qian": 2}
    ruined = (5, "qian")
    stray = 0.25
    #: Games whose first deal the people decline (不叫, and no 明牌): it is dealt again when
    #: the bot declines too.
    declining = (2, 4, 6)
    #: Games in which a person declares 明牌 at a moment (the first person who may then, if
    #: no one has at that moment yet): before the first card, while the deal is shown, or the
    #: landlord after taking the bottom cards.
    showing = {1: "start", 3: "deal", 5: "bottom", 7: "bottom"}

    def declines(self, look: Look) -> bool:
        assert look.game is not None
        return look.game.number in self.declining and len(look.state.deals) == 1

    def choose(self, look: Look, rng: random.Random) -> dict[str, Any]:
        """Bidding: 叫 or 抢 more often than not, and 不叫 in a deal the people decline. Doubling
        and playing: mostly the bot's choice, otherwise one at random (加倍 only when the
        player may)."""
        state = look.state
        declines = state.phase is Phase.BID and self.declines(look)
        if declines and ddz.NO_CALL in state.legal_actions(state.to_move):
            return dict(ddz.NO_CALL.to_json())
        legal = state.legal_actions(state.to_move)
        if state.phase is Phase.BID:
            # 叫 or 抢 more often than not.
            yes, no = (word for word in legal if isinstance(word, ddz.Bid))
            return dict((yes if rng.random() < 0.7 else no).to_json())
        if rng.random() < 0.75:
            return dict(choose_for(state, DoudizhuPolicy()).to_json())
        if state.phase is Phase.PLAY:
            return _plays_or_pass(state, rng)
        return dict(rng.choice([word for word in legal if isinstance(word, ddz.Double)]).to_json())

    async def aside(self, session: Session, look: Look) -> bool:
        """明牌 as planned, or by anyone who may (and now and then by someone who may not); 加倍
        or not out of turn, or 加倍 by someone the threshold keeps from it; while the deal is
        shown, the table's clock, or the person to move trying to deal on."""
        rng, state = session.rng, look.state
        assert look.game is not None
        seats = {row.position: row.user.username for row in look.seats if row.user is not None}
        may = {
            name: show.moment
            for position, name in seats.items()
            for show in state.legal_actions(position)
            if isinstance(show, ddz.Show)
        }
        moments = {} if self.declines(look) else may
        planned = self.showing.get(look.game.number)
        if planned not in {show.moment for _seat, show in state.shows}:
            for name, moment in moments.items():
                if moment == planned:
                    await session.say(name, {"show": True})
                    return True
        may_show = list(moments)
        roll = rng.random()
        if may_show and roll < SHOWS[state.phase]:
            await session.say(rng.choice(may_show), {"show": True})
            return True
        if roll > 0.98:
            # 明牌 again, or late: refused.
            may_not = [name for name in seats.values() if name not in may]
            if may_not:
                await session.say(rng.choice(may_not), {"show": True})
                return True
        if state.phase is Phase.DOUBLE:
            choosing = [
                (position, name)
                for position, name in seats.items()
                if state.doubles[position] is None and position != state.to_move
            ]
            if choosing and rng.random() < 0.4:
                position, name = rng.choice(choosing)
                yes = rng.random() < (0.5 if state.may_double(position) else 0.3)
                await session.say(name, {"double": yes})
                return True
            position = state.to_move
            if position in seats and not state.may_double(position) and rng.random() < 0.3:
                await session.say(seats[position], {"double": True})
                return True
        if state.phase is Phase.DEAL and state.to_move in seats:
            if rng.random() < 0.15:
                await session.say(seats[state.to_move], {"deal": 17})
            else:
                await session.turn_due()
            return True
        return False

    def counted(self, rows: dict[str, list[tuple[Any, ...]]]) -> Counter[str]:
        counts: Counter[str] = Counter()
        by_game: dict[int, list[tuple[Any, ...]]] = {}
        for event in rows["events"]:
            by_game.setdefault(event[0], []).append(event)
        for events in by_game.values():
            actions = [ddz.ENGINE.action_from_json(action) for _g, _n, _s, action, _o, _i in events]
            counts["redeals"] += deal_numbers(actions)[1] - 1
            for (_g, _n, _s, _a, source, _i), action in zip(events, actions, strict=True):
                kind = type(action).__name__
                counts[f"{kind} by {source}"] += 1
                if isinstance(action, ddz.Show):
                    counts[f"明牌 {action.moment}"] += 1
                elif action in (ddz.ROB, ddz.DOUBLE):
                    counts[str(action)] += 1
        return counts

    def check(self, counts: Counter[str]) -> None:
        assert counts["redeals"] >= 1
        assert counts["DealOn by clock"] >= 2 * self.games
        assert counts["Bid by player"] and counts["Bid by timeout"] and counts["Bid by bot"]
        assert counts["Double by player"] and counts["Double by bot"]
        assert counts["Play by player"] and counts["Play by bot"] and counts["Play by auto_play"]
        assert counts["Pass by player"] and counts["Pass by bot"] and counts["Pass by timeout"]
        assert counts["明牌 start"] and counts["明牌 deal"] and counts["明牌 bottom"]
        assert counts["rob"] and counts["double"]
        # ``li`` may be turned away for want of coins, and someone else sit down.
        assert counts["sat down"] >= self.seated + 2 and counts["left"] >= 3
        for code in (
            "dealt_by_the_clock",
            "may_not_double",
            "already_shown",
            "show_too_late",
            "wrong_phase",
            "balance_too_low",
        ):
            assert counts[f"refused as {code}"], code


class Shanghai(Script):
    """上海斗地主 at four seats: three people and a bot. The people bid at random, and now and
    then say 小地主 after a 小地主 (refused); in the play they mostly make the first legal play,
    otherwise any move; a farmer who has no bomb left now and then tries one (refused)."""

    name = "shanghai"
    game = "shanghai"
    base = 50
    deals = 20_261_203
    choices = 9
    first_timeouts = {"qian": 2}
    ruined = (4, "qian")

    def choose(self, look: Look, rng: random.Random) -> dict[str, Any]:
        state = look.state
        legal = state.legal_actions(state.to_move)
        if state.phase is Phase.BID:
            return dict(rng.choice(legal).to_json())
        plays = [move for move in legal if isinstance(move, sh.Play)]
        if plays and rng.random() < 0.7:
            return dict(plays[0].to_json())
        return _plays_or_pass(state, rng)

    async def aside(self, session: Session, look: Look) -> bool:
        state = look.state
        seat = state.to_move
        row = look.seats[seat]
        if row.user is None or row.auto_play:
            return False
        name = row.user.username
        roll = session.rng.random()
        if state.phase is Phase.BID and sh.SMALL not in state.legal_actions(seat) and roll < 0.3:
            await session.say(name, sh.SMALL.to_json())  # 小地主 after a 小地主: refused
            return True
        if state.phase is Phase.PLAY and state.bombs_left[seat] == 0 and roll < 0.5:
            ranks = Counter(_face(card)[0] for card in state.hand(seat) if card.suit is not None)
            bomb = [rank for rank, count in ranks.items() if count >= 4]
            if bomb:
                cards = [str(c) for c in state.hand(seat) if str(c)[0] == bomb[0]][:4]
                await session.say(name, {"play": " ".join(cards)})  # beyond the allowance
                return True
        return False

    def counted(self, rows: dict[str, list[tuple[Any, ...]]]) -> Counter[str]:
        counts: Counter[str] = Counter()
        for _g, _n, _s, action, source, _i in rows["events"]:
            kind = type(sh.ENGINE.action_from_json(action)).__name__
            counts[f"{kind} by {source}"] += 1
        return counts

    def check(self, counts: Counter[str]) -> None:
        assert counts["Bid by player"] and counts["Bid by bot"]
        assert counts["Play by player"] and counts["Play by bot"]
        assert counts["Pass by player"] and counts["Pass by bot"]
        assert counts["events by timeout"] >= 2 and counts["events by auto_play"]
        assert counts["refused as bomb_limit"] and counts["refused as cards_not_in_hand"]


SCRIPTS = (Gandengyan(), Doudizhu(), Shanghai())


#: The worker of the table's runner (bots, timeouts, 托管, the clock) and of the staff.
RUNNER = "B"


class Session:
    """The session of ``script``, through the loop and the services as the sockets make moves
    (``on_loop``; ``in_service_process``: what the loop hands over made in a service process),
    or through the services alone."""

    def __init__(self, script: Script, *, on_loop: bool, in_service_process: bool = False) -> None:
        self.script = script
        self.on_loop = on_loop
        self.in_service_process = in_service_process
        self.rng = random.Random(script.choices)
        self.workers = Workers()
        self.steps: list[Step] = []
        self.counts: Counter[str] = Counter()
        self.ids = itertools.count(1)
        self.users: dict[str, User] = {}
        self.room: Room | None = None
        self.table: Table | None = None
        self.look: Look | None = None
        #: Each player's last move in the game being played: the action, the version it was
        #: chosen on and its id.
        self.made: dict[str, tuple[dict[str, Any], str, str]] = {}
        self.timeouts_due = dict(script.first_timeouts)
        self.leaving = {number: list(plan) for number, plan in script.leaving.items()}
        self.ruined = ""
        #: Players whose 再来一局 the room refused: they leave, and do not come back.
        self.refused: list[str] = []
        self.turned_away: set[str] = set()

    @property
    def table_id(self) -> int:
        assert self.table is not None
        return self.table.pk

    def new_id(self) -> str:
        return f"action-{next(self.ids):05d}"

    async def step(self, worker: str, what: str, act: Callable[[], Awaitable[Outcome]]) -> Outcome:
        self.workers.enter(worker)
        outcome = await act()
        look = self.look = await database_sync_to_async(_look)(self.table_id, self.look)
        self.steps.append(Step(f"{len(self.steps)}: {what}", outcome, _table_of(look)))
        if outcome[0] == "refused":
            self.counts[f"refused as {outcome[1]}"] += 1
        else:
            seated = {str(row.user_id) for row in look.seats if row.user_id is not None}
            for _group, notice in outcome[1]:
                if set(notice.get("frames") or ()) != seated:
                    self.counts["notices without frames"] += 1
        return outcome

    # What the players and the runner do --------------------------------------------------

    async def move(
        self, name: str, action: dict[str, Any], *, version: str, action_id: str
    ) -> Outcome:
        user = self.users[name]

        async def act() -> Outcome:
            if self.on_loop:
                try:
                    notices = await loop_moves.table_move(
                        user=user,
                        table_id=self.table_id,
                        action=action,
                        version=version,
                        action_id=action_id,
                    )
                except (GameActionRefused, TableRefused) as refused:
                    return ("refused", refused.code)
                if notices is not None:
                    self.counts["moves made on the loop"] += 1
                    return _notices(notices)
                self.counts["moves handed to the services"] += 1
                if self.in_service_process:
                    intent = {"action": "act", "version": version, "id": action_id}
                    return await _in_service_process(user, self.table_id, intent, action)
            return await _through_services(
                services.table_game_act,
                user=user,
                table=self.table,
                action=action,
                version=version,
                action_id=action_id,
            )

        return await self.step(
            self.script.worker[name], f"{name} {action} on {version} ({action_id})", act
        )

    async def say(self, name: str, action: dict[str, Any]) -> Outcome:
        """``name``'s ``action`` on the table as it is now, with an id of its own."""
        assert self.look is not None
        return await self.move(name, action, version=self.look.version, action_id=self.new_id())

    async def again(self, name: str) -> Outcome:
        user = self.users[name]

        async def act() -> Outcome:
            if self.on_loop:
                try:
                    notices = await loop_moves.table_again(user=user, table_id=self.table_id)
                except (GameActionRefused, TableRefused) as refused:
                    return ("refused", refused.code)
                if notices is not None:
                    self.counts["再来一局 made on the loop"] += 1
                    return _notices(notices)
                self.counts["再来一局 handed to the services"] += 1
                if self.in_service_process:
                    intent = {"action": "again", "move": None}
                    return await _in_service_process(user, self.table_id, intent)
            return await _through_services(services.table_play_again, user=user, table=self.table)

        return await self.step(self.script.worker[name], f"{name} 再来一局", act)

    async def auto_play(self, name: str, *, on: bool) -> Outcome:
        self.counts[f"托管 {'on' if on else 'off'}"] += 1
        return await self.step(
            self.script.worker[name],
            f"{name} 托管 {'on' if on else 'off'}",
            lambda: _through_services(
                services.table_set_auto_play, user=self.users[name], table=self.table, on=on
            ),
        )

    async def sit(self, name: str) -> Outcome:
        self.counts["sat down"] += 1
        return await self.step(
            self.script.worker[name],
            f"{name} sits down",
            lambda: _through_services(self._sit, user=self.users[name], room=self.room),
        )

    def _sit(self, *, user: User, room: Room) -> None:
        self.table, _position = services.table_play(user=user, room=room)

    async def leave(self, name: str) -> Outcome:
        self.counts["left"] += 1
        return await self.step(
            self.script.worker[name],
            f"{name} leaves",
            lambda: _through_services(
                services.table_leave, user=self.users[name], table=self.table
            ),
        )

    async def stay(self, name: str) -> Outcome:
        self.counts["stayed"] += 1
        return await self.step(
            self.script.worker[name],
            f"{name} stays after all",
            lambda: _through_services(
                services.table_leave_cancel, user=self.users[name], table=self.table
            ),
        )

    async def ruin(self, name: str) -> Outcome:
        self.ruined = name
        return await self.step(
            RUNNER,
            f"the staff leave {name} {MIN_COINS // 2} coins",
            lambda: _through_services(set_balance, user=self.users[name], coins=MIN_COINS // 2),
        )

    async def turn_due(self) -> Outcome:
        outcome = await self.step(
            RUNNER,
            "the turn's deadline",
            lambda: _through_services(_turn_due, table_id=self.table_id),
        )
        if any(notice["kind"] == "seats" for _group, notice in outcome[1]):
            self.counts["托管 after timeouts"] += 1
        return outcome

    async def bot_turn(self) -> Outcome:
        return await self.step(
            RUNNER, "a bot's turn", lambda: _through_services(_bot_turn, table_id=self.table_id)
        )

    # The script ----------------------------------------------------------------------------

    async def play(self) -> Played:
        await database_sync_to_async(_empty_database)()
        script = self.script
        seeds.restart(script.deals)
        self.room, self.users = await database_sync_to_async(script.world)()
        for name in script.people[: script.seated]:
            outcome = await self.sit(name)
            assert outcome[0] == "notices", outcome
        first = script.people[0]
        outcome = await self.step(
            script.worker[first],
            f"{first} calls the bots",
            lambda: _through_services(
                services.table_call_bots, user=self.users[first], table=self.table
            ),
        )
        assert outcome[0] == "notices", outcome
        finished, playing, before = 0, True, ""
        for _step in range(STEPS_LIMIT):
            look = self.look
            assert look is not None
            if look.game is None:
                if playing:
                    finished, playing = finished + 1, False
                    self.made.clear()
                if finished == script.games:
                    break
                await self.between_games(look, finished)
            else:
                playing = True
                older = before if before.split(".")[1:2] == look.version.split(".")[1:2] else ""
                await self.in_game(look, older if older != look.version else "")
            before = look.version
        else:
            raise AssertionError(f"{script.games} games were not played in {STEPS_LIMIT} steps")
        self.counts["games"] = finished
        self.counts["steps"] = len(self.steps)
        rows = await database_sync_to_async(_stored_rows)()
        self.counts.update(f"events by {source}" for _n, _m, _s, _a, source, _i in rows["events"])
        self.counts.update(script.counted(rows))
        return Played(self.steps, rows, self.counts)

    async def in_game(self, look: Look, older: str) -> None:
        """One action while a game is being played. ``older``: a version of this game before
        the last change, for a move chosen on a view that is no longer current."""
        rng = self.rng
        state, version = look.state, look.version
        assert state is not None and state.to_move is not None
        assert look.game is not None
        humans = [row.user.username for row in look.seats if row.user is not None]
        leaving = self.leaving.get(look.game.number)
        if leaving and state.log_length >= leaving[0][0]:
            _after, what, name = leaving.pop(0)
            await (self.leave(name) if what == "leave" else self.stay(name))
            return
        probe = rng.random()
        if probe < 0.03:
            # Someone who does not sit at the table.
            outsider = rng.choice([name for name in self.script.people if name not in humans])
            await self.move(outsider, {"pass": True}, version=version, action_id=self.new_id())
            return
        if probe < 0.05:
            await self.again(rng.choice(humans))  # refused while a game is being played
            return
        if probe < 0.08:
            name = rng.choice(humans)  # 托管 switched at any moment, by anyone
            await self.auto_play(name, on=not look.seat_of(name).auto_play)
            return
        if await self.script.aside(self, look):
            return
        row = look.seats[state.to_move]
        if row.is_bot:
            await (self.bot_turn() if rng.random() < 0.5 else self.turn_due())
            return
        assert row.user is not None
        name = row.user.username
        if row.auto_play:
            if rng.random() < 0.35:
                await self.auto_play(name, on=False)
            else:
                await self.turn_due()
            return
        if self.timeouts_due.get(name):
            self.timeouts_due[name] -= 1
            await self.turn_due()
            return
        roll = rng.random()
        if roll < 0.07:
            await self.turn_due()  # the player's time runs out
            return
        action = self.script.choose(look, rng)
        if roll < 0.14 and older:
            await self.move(name, action, version=older, action_id=self.new_id())
        elif roll < 0.2:
            other = rng.choice([human for human in humans if human != name])
            await self.move(other, {"pass": True}, version=version, action_id=self.new_id())
        elif roll < 0.25 and name in self.made:
            # The id of the player's last move again, on the current view.
            await self.move(name, action, version=version, action_id=self.made[name][2])
        elif roll < 0.3 and name in self.made:
            # The last move sent again as it was, after it was made.
            made, made_on, made_id = self.made[name]
            await self.move(name, made, version=made_on, action_id=made_id)
        elif roll < 0.33:
            others = [seat for seat in range(state.players) if seat != row.position]
            mine = {_face(card) for card in state.hand(row.position)}
            # Another seat's card; of two decks, one whose twin the player does not hold (the
            # engine would take the player's own copy for it).
            taken = rng.choice(
                [
                    str(card)
                    for seat in others
                    for card in state.hand(seat)
                    if getattr(card, "deck", None) is None or _face(card) not in mine
                ]
            )
            await self.move(name, {"play": taken}, version=version, action_id=self.new_id())
        jokers = "BJ" in action.get("play", "") or "RJ" in action.get("play", "")
        if "as" in action and rng.random() < (0.9 if jokers else 0.1):
            # Played without saying what the cards mean: refused when they can mean more than
            # one thing.
            meant = {"play": action["play"]}
            action_id = self.new_id()
            outcome = await self.move(name, meant, version=version, action_id=action_id)
            if outcome[0] != "refused":
                self.made[name] = (meant, version, action_id)
                return
        action_id = self.new_id()
        outcome = await self.move(name, action, version=version, action_id=action_id)
        assert outcome[0] == "notices", outcome
        self.made[name] = (action, version, action_id)

    async def between_games(self, look: Look, finished: int) -> None:
        """One action between games: a 再来一局, the last of which deals, or something refused
        or with nothing to do; a free seat taken, a player the room no longer admits gone."""
        rng = self.rng
        humans = [row for row in look.seats if row.user is not None]
        seated = {row.user.username for row in humans if row.user is not None}
        after, ruined = self.script.ruined
        if finished == after and not self.ruined:
            await self.ruin(ruined)
            return
        if self.refused:
            name = self.refused.pop()
            self.turned_away.add(name)
            await self.leave(name)
            return
        if any(row.user is None and not row.is_bot for row in look.seats):
            arrivals = self.script.arrivals
            away = seated | self.turned_away | {self.ruined}
            await self.sit(next(p for p in arrivals if p not in away))
            return
        waiting = sorted(row.user.username for row in humans if not row.ready and row.user)
        ready = sorted(row.user.username for row in humans if row.ready and row.user)
        roll = rng.random()
        if roll < self.script.stray:
            name = rng.choice(waiting + ready)
            await self.move(name, {"pass": True}, version=look.version, action_id=self.new_id())
        elif roll < self.script.stray + 0.15 and ready:
            await self.again(rng.choice(ready))  # ready already: nothing changes
        else:
            name = rng.choice(waiting)
            outcome = await self.again(name)
            if outcome == ("refused", "balance_too_low"):
                self.refused.append(name)


def _difference(name: str, loop: list[Any], alone: list[Any]) -> str | None:
    """Where two lists of rows or steps first differ, told in a few lines; None if equal."""
    for index, (one, other) in enumerate(zip(loop, alone, strict=False)):
        if one != other:
            return f"{name} differ first at {index}:\n{_told(one, other)}"
    if len(loop) != len(alone):
        return f"{name}: {len(loop)} through the loop, {len(alone)} through the services alone"
    return None


def _told(one: Any, other: Any) -> str:
    if not isinstance(one, Step) or not isinstance(other, Step):
        return f"  loop:     {one!r}\n  services: {other!r}"
    lines = [f"  loop:     {one.what}", f"  services: {other.what}"]
    if one.table != other.table:
        lines += [
            f"  table after, loop:     {one.table}",
            f"  table after, services: {other.table}",
        ]
    if one.outcome[0] != other.outcome[0] or one.outcome[0] == "refused":
        lines += [f"  loop:     {one.outcome}", f"  services: {other.outcome}"]
    elif one.outcome != other.outcome:
        lines += _notices_told(one.outcome[1], other.outcome[1])
    return "\n".join(lines)


def _notices_told(loop: list[Any], alone: list[Any]) -> list[str]:
    if len(loop) != len(alone):
        return [f"  notices, loop: {len(loop)}, services: {len(alone)}"]
    lines = []
    for (_group, one), (_other_group, other) in zip(loop, alone, strict=True):
        for key in sorted(set(one) | set(other)):
            if key == "frames" or one.get(key) == other.get(key):
                continue
            lines.append(f"  {key}: loop {one.get(key)!r}, services {other.get(key)!r}")
        frames, other_frames = one.get("frames") or {}, other.get("frames") or {}
        for user in sorted(set(frames) | set(other_frames)):
            if frames.get(user) != other_frames.get(user):
                diff = difflib.unified_diff(
                    (other_frames.get(user) or "").replace(">", ">\n").splitlines(),
                    (frames.get(user) or "").replace(">", ">\n").splitlines(),
                    "services",
                    "loop",
                    n=1,
                    lineterm="",
                )
                lines.append(f"  the frame of user {user}:")
                lines += [f"    {line}" for line in itertools.islice(diff, 40)]
    return lines


def _assert_same(loop: Played, alone: Played) -> None:
    """The steps first: where they part is where the paths did, and the rows follow from it."""
    differences = [_difference("the steps", loop.steps, alone.steps)]
    differences += [_difference(name, loop.rows[name], alone.rows[name]) for name in loop.rows]
    told = [difference for difference in differences if difference is not None]
    if told:
        pytest.fail("\n".join(told), pytrace=False)


@pytest.mark.parametrize("script", SCRIPTS, ids=[script.name for script in SCRIPTS])
async def test_the_loop_and_the_services_play_a_session_alike(
    settings: Any, script: Script
) -> None:
    settings.GAME_SEED_SOURCE = seeds.SOURCE
    settings.TABLE_MOVES_ON_LOOP = True
    # What the loop hands over is made in a service process, as by a worker on PostgreSQL.
    settings.SERVICE_PROCESSES = 1
    assert loop_moves.enabled() and service_processes.enabled()
    sequences = await database_sync_to_async(_key_sequences)()
    try:
        through_loop = await Session(script, on_loop=True, in_service_process=True).play()
        loop_moves.close_connections()
        await database_sync_to_async(service_processes.shutdown)()
        through_services = await Session(script, on_loop=False).play()
    finally:
        await database_sync_to_async(service_processes.shutdown)()
        await database_sync_to_async(_keys_go_on_from)(sequences)

    counts = through_loop.counts
    # The script covers what it is meant to, and every change was told with the players'
    # frames.
    assert counts["notices without frames"] == 0, counts
    assert counts["games"] == script.games and counts["steps"] >= 300, counts
    assert counts["moves made on the loop"] >= 100, counts
    assert counts["moves handed to the services"] >= 3, counts
    assert (
        counts["再来一局 made on the loop"] >= 4 and counts["再来一局 handed to the services"] >= 4
    )
    assert counts["托管 on"] and counts["托管 off"] and counts["托管 after timeouts"], counts
    assert counts["stayed"] == 1, counts
    for code in ("stale", "not_your_turn", "not_seated", "no_game", "game_in_progress"):
        assert counts[f"refused as {code}"], (code, counts)
    script.check(counts)
    _assert_same(through_loop, through_services)
