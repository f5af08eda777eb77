"""The two storage paths of a move play the same games alike.

One seeded session of games at one table is played twice from the same empty database: once as
the table's sockets make the players' moves and 再来一局 (on the event loop, ``games.loop_moves``,
then through the services for what the loop hands over), once through the services alone. The
players sit on two workers, each with the caches a process keeps. Both runs must store the same
rows and send every player the same frames, and refuse the same actions with the same codes.
"""

from __future__ import annotations

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
from django.core.management.color import no_style
from django.db import connection, connections

from accounts.models import LedgerEntry, User
from games import loop_moves, services
from games.bots import SensiblePolicy, choose_for
from games.errors import GameActionRefused, TableRefused
from games.lru import LruCache
from games.models import Game, GameEvent, GamePlayer, Room, Seat, Table
from games.positions import known_games
from games.rules.gandengyan import GameState, GandengyanRules, Play
from games.rules.gandengyan.moves import move_from_json
from games.selectors import table_version
from tests import seeds
from tests.games.helpers import make_player, make_room, set_balance

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

#: The session: games played to their end, the deals' sequence and the players' choices.
GAMES = 7
DEALS = 20_260_101
CHOICES = 3
STEPS_LIMIT = 4000

#: The people, and the worker each one's socket is on. The first three sit down, by seat, and
#: a bot takes the fourth; when a seat is free, the first of ``ARRIVALS`` not seated takes it.
#: The table runner (bots, timeouts, 托管) and the staff run on worker B.
PEOPLE = ("zhao", "qian", "sun", "li")
SEATED = 3
ARRIVALS = ("li", "zhao", "sun", "qian")
WORKER = {"zhao": "A", "qian": "B", "sun": "A", "li": "B"}
RUNNER = "B"
#: Turns the player lets run out at the start of the first game: two in a row put the seat in
#: 托管.
FIRST_TIMEOUTS = {"sun": 2}
#: By game, when a player asks to leave once it ends (or takes it back): after how many of its
#: actions.
LEAVING = {3: [(6, "leave", "zhao"), (12, "stay", "zhao"), (18, "leave", "zhao")]}
#: After this many games the staff leave this player fewer coins than the room admits: the
#: player's 再来一局 is refused, and the player leaves the table.
RUINED = (5, "sun")
MIN_COINS = 1_000

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
    state: GameState | None
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


def _turn_due(*, table_id: int) -> None:
    """The runner when the turn's deadline comes: it acts at the deadline itself."""
    game = Game.objects.get(table_id=table_id, status=Game.Status.PLAYING)
    assert services.game_turn_due(game=game, now=game.turn_deadline) is not None


def _bot_turn(*, table_id: int) -> None:
    game = Game.objects.get(table_id=table_id, status=Game.Status.PLAYING)
    assert services.bot_take_turn(game=game) is not None


def _position(game: Game, known: Look | None) -> GameState:
    """The position of ``game`` after its stored events, replayed from ``known`` (the look
    before) when it shows the same game, else from the deal."""
    if known is not None and known.game is not None and known.game.pk == game.pk:
        assert known.state is not None
        state = known.state
    else:
        rules = GandengyanRules.from_dict(game.rules)
        state = GameState.from_position(game.hands, game.stock, game.dealer, rules=rules)
    actions = game.events.filter(number__gt=state.log_length).order_by("number")
    for action in actions.values_list("action", flat=True):
        state = state.apply(state.to_move, move_from_json(action))
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


def _world() -> tuple[Room, dict[str, User]]:
    room = make_room(code="paths", rules={"players": 4})
    Room.objects.filter(pk=room.pk).update(min_coins=MIN_COINS)
    room.refresh_from_db()
    users = {name: make_player(name, coins=1_000_000) for name in PEOPLE}
    return room, users


def _stored_rows() -> dict[str, list[tuple[Any, ...]]]:
    return {
        "games": list(
            Game.objects.order_by("number").values_list(
                "pk",
                "number",
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


def _choose(state: GameState, rng: random.Random) -> dict[str, Any]:
    """A player's choice among the legal moves of their turn, as the page sends it (the cards
    and the meaning chosen): mostly the hint a bot would play, otherwise one at random, mostly a
    play, sometimes a pass (when following)."""
    if rng.random() < 0.75:
        return dict(choose_for(state, SensiblePolicy()).to_json())
    moves = state.legal_moves()
    plays = [move for move in moves if isinstance(move, Play)]
    move = rng.choice(plays if plays and rng.random() < 0.8 else moves)
    return dict(move.to_json())


class Session:
    """The scripted session, through the loop and the services as the sockets make moves
    (``on_loop``), or through the services alone."""

    def __init__(self, *, on_loop: bool) -> None:
        self.on_loop = on_loop
        self.rng = random.Random(CHOICES)
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
        self.timeouts_due = dict(FIRST_TIMEOUTS)
        self.leaving = {number: list(plan) for number, plan in LEAVING.items()}
        self.ruined = ""
        #: Players whose 再来一局 the room refused: they leave.
        self.refused: list[str] = []

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
            return await _through_services(
                services.table_game_act,
                user=user,
                table=self.table,
                action=action,
                version=version,
                action_id=action_id,
            )

        return await self.step(WORKER[name], f"{name} {action} on {version} ({action_id})", act)

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
            return await _through_services(services.table_play_again, user=user, table=self.table)

        return await self.step(WORKER[name], f"{name} 再来一局", act)

    async def auto_play(self, name: str, *, on: bool) -> Outcome:
        self.counts[f"托管 {'on' if on else 'off'}"] += 1
        return await self.step(
            WORKER[name],
            f"{name} 托管 {'on' if on else 'off'}",
            lambda: _through_services(
                services.table_set_auto_play, user=self.users[name], table=self.table, on=on
            ),
        )

    async def sit(self, name: str) -> Outcome:
        self.counts["sat down"] += 1
        return await self.step(
            WORKER[name],
            f"{name} sits down",
            lambda: _through_services(self._sit, user=self.users[name], room=self.room),
        )

    def _sit(self, *, user: User, room: Room) -> None:
        self.table, _position = services.table_play(user=user, room=room)

    async def leave(self, name: str) -> Outcome:
        self.counts["left"] += 1
        return await self.step(
            WORKER[name],
            f"{name} leaves",
            lambda: _through_services(
                services.table_leave, user=self.users[name], table=self.table
            ),
        )

    async def stay(self, name: str) -> Outcome:
        self.counts["stayed"] += 1
        return await self.step(
            WORKER[name],
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
        seeds.restart(DEALS)
        self.room, self.users = await database_sync_to_async(_world)()
        for name in PEOPLE[:SEATED]:
            outcome = await self.sit(name)
            assert outcome[0] == "notices", outcome
        first = PEOPLE[0]
        outcome = await self.step(
            WORKER[first],
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
                if finished == GAMES:
                    break
                await self.between_games(look, finished)
            else:
                playing = True
                older = before if before.split(".")[1:2] == look.version.split(".")[1:2] else ""
                await self.in_game(look, older if older != look.version else "")
            before = look.version
        else:
            raise AssertionError(f"{GAMES} games were not played in {STEPS_LIMIT} steps")
        self.counts["games"] = finished
        self.counts["steps"] = len(self.steps)
        rows = await database_sync_to_async(_stored_rows)()
        self.counts.update(f"events by {source}" for _n, _m, _s, _a, source, _i in rows["events"])
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
            outsider = rng.choice([name for name in PEOPLE if name not in humans])
            await self.move(outsider, {"pass": True}, version=version, action_id=self.new_id())
            return
        if probe < 0.05:
            await self.again(rng.choice(humans))  # refused while a game is being played
            return
        if probe < 0.08:
            name = rng.choice(humans)  # 托管 switched at any moment, by anyone
            await self.auto_play(name, on=not look.seat_of(name).auto_play)
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
        action = _choose(state, rng)
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
            taken = rng.choice([str(card) for seat in others for card in state.hand(seat)])
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
        if finished == RUINED[0] and not self.ruined:
            await self.ruin(RUINED[1])
            return
        if self.refused:
            await self.leave(self.refused.pop())
            return
        if any(row.user is None and not row.is_bot for row in look.seats):
            await self.sit(next(p for p in ARRIVALS if p not in seated and p != self.ruined))
            return
        waiting = sorted(row.user.username for row in humans if not row.ready and row.user)
        ready = sorted(row.user.username for row in humans if row.ready and row.user)
        roll = rng.random()
        if roll < 0.15:
            name = rng.choice(waiting + ready)
            await self.move(name, {"pass": True}, version=look.version, action_id=self.new_id())
        elif roll < 0.3 and ready:
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


async def test_the_loop_and_the_services_play_a_session_alike(settings: Any) -> None:
    settings.GAME_SEED_SOURCE = seeds.SOURCE
    settings.TABLE_MOVES_ON_LOOP = True
    assert loop_moves.enabled()
    sequences = await database_sync_to_async(_key_sequences)()
    try:
        through_loop = await Session(on_loop=True).play()
        loop_moves.close_connections()
        through_services = await Session(on_loop=False).play()
    finally:
        await database_sync_to_async(_keys_go_on_from)(sequences)

    counts = through_loop.counts
    # The script covers what it is meant to, and every change was told with the players'
    # frames.
    assert counts["notices without frames"] == 0, counts
    assert counts["games"] == GAMES and counts["steps"] >= 300
    assert counts["moves made on the loop"] >= 100
    assert counts["moves handed to the services"] >= 3
    assert counts["再来一局 made on the loop"] >= GAMES
    assert counts["再来一局 handed to the services"] >= GAMES - 3
    assert counts["events by timeout"] >= 4 and counts["events by auto_play"] >= 4
    assert counts["events by bot"] >= 20 and counts["托管 on"] and counts["托管 off"]
    assert counts["托管 after timeouts"]
    assert counts["sat down"] == SEATED + 2 and counts["left"] == 3 and counts["stayed"] == 1
    for code in (
        "balance_too_low",
        "stale",
        "not_your_turn",
        "duplicate",
        "not_seated",
        "no_game",
        "game_in_progress",
    ):
        assert counts[f"refused as {code}"], code
    _assert_same(through_loop, through_services)
