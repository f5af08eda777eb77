"""The live table: one websocket per browser tab at a table.

A client sends intents (play these cards, pass, play again); the consumer parses them, calls a
service, and the table's group hears of the change only after its transaction commits, with the
frame of each seated player rendered once for that player's seat. Every consumer in the group
then sends its own player's frame (a spectator's, or one in another language, renders its own):
the whole table with its version, so a frame never holds another seat's cards and a client that
missed a frame is whole again with the next one.

Close codes: 4401 not signed in, 4404 no table this user may see, and 4429 one socket too many
(the user's, or the table's spectators', ``socket_limits``), after which the page says so and
stays away. Any other close (daphne stopping drops the socket, which the browser reports as
1006; a crash in a handler closes with 1011) is followed by a reconnect with growing pauses from
``static/js/table.js``, and the new socket's first frame is the current table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections import deque
from collections.abc import Mapping
from http.cookies import SimpleCookie
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.html import format_html
from django.utils.translation import gettext, gettext_noop
from django.utils.translation.trans_real import (
    get_supported_language_variant,
    parse_accept_lang_header,
)

from . import loop_moves, service_processes, services
from .db_threads import in_pool_thread
from .frames import (
    refusal_message,
    render_frame_and_version,
    render_notice,
    render_prompt,
    render_spectator_frame,
)
from .heap import collect_young_on_a_clock
from .intents import MOVES, intent_make
from .lru import LruCache
from .models import Table
from .phrases import BY_ID as PHRASES
from .presentation import presentation_for
from .runner import ensure_running_in_this_process
from .selectors import (
    TableRows,
    chat_wanted_from,
    table_get_for_user,
    table_rows,
    table_version,
)

if TYPE_CHECKING:
    from accounts.models import User
from .socket_limits import (
    MovingWindows,
    Warnings,
    message_allowed,
    place_take,
    places_free,
    places_renew,
)

logger = logging.getLogger(__name__)

#: A table intent is a few hundred bytes; anything much larger is not one.
MAX_MESSAGE_BYTES = 4096
#: An intent nests two levels deep (its ``HEADERS``, a move's action); JSON nested far deeper is
#: refused before it is parsed, since parsing a thousand levels overflows Python's stack.
MAX_NESTING = 8
#: Any text of a JSON string, so that the brackets in it are not counted as nesting.
JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
JSON_BRACKET = re.compile(r"[\[\]{}]")
CLOSE_NOT_SIGNED_IN = 4401
CLOSE_NO_TABLE = 4404
#: A handler failed: the page reconnects, and the new socket starts afresh.
CLOSE_FAILED = 1011
#: Too many sockets: the user's (``TABLE_SOCKETS_PER_USER``) or the table's spectators'
#: (``TABLE_SPECTATORS_MAX``). The page shows the message sent just before and stays away.
CLOSE_TOO_MANY = 4429

#: Spectators' frames of public tables, rendered by the first spectator socket of this process
#: that needs one and shared with the others: ``(event loop, table, version, language)`` to the
#: render (a spectator's frame is the same for every spectator).
_spectator_frames: LruCache[asyncio.Future[tuple[str, str] | None]] = LruCache(256)


#: A client's id for an action: random, long enough not to collide, short enough to store.
ACTION_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
#: The ids of the last actions a socket made, whose repeats it ignores.
APPLIED_IDS_KEPT = 64

ACTIONS = {"act", "play", "pass", "again", "bots", "auto", "resume", "leave", "stay", "say"}
#: What a socket's action committed, for the table's group: ``(group, message)``.
Notices = list[tuple[str, dict[str, Any]]]


def version_key(version: str) -> tuple[int, ...]:
    """A table version (``table.game.events``) in an order that compares: later is larger."""
    try:
        return tuple(int(part) for part in version.split("."))
    except ValueError:
        return ()


class Refused(Exception):
    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(code)
        self.code = code
        self.message = message


def language_of(scope: Mapping[str, Any]) -> str:
    """The language of the page that opened the socket: the language cookie, then the
    browser's Accept-Language, then the site's default."""
    headers = dict(scope.get("headers") or [])
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get(b"cookie", b"").decode("latin-1"))
    except Exception:
        cookie = SimpleCookie()
    candidates = []
    if settings.LANGUAGE_COOKIE_NAME in cookie:
        candidates.append(cookie[settings.LANGUAGE_COOKIE_NAME].value)
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    candidates += [code for code, _quality in parse_accept_lang_header(accept) if code != "*"]
    for code in candidates:
        try:
            return get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE


def too_deep(text: str) -> bool:
    """Whether the JSON ``text`` nests arrays and objects more than ``MAX_NESTING`` deep.

    A real intent opens a few brackets at most, so the count of opening brackets settles it
    without a scan; otherwise the brackets outside strings are followed."""
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return False
    depth = 0
    for bracket in JSON_BRACKET.findall(JSON_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_NESTING:
            return True
    return False


def parse_intent(text: str | None) -> dict[str, Any]:
    """A client's message as ``{"action": ..., "cards": "3s 4h", "as": ..., "move": {...},
    "version": ..., "id": ..., "phrase": ...}`` (``move``: an ``act``'s action, or the start
    action of an ``again`` (明牌开始), a JSON object, or its text; ``phrase``: a ``say``'s quick
    phrase id, else None).

    htmx sends a form's fields as JSON (a field given twice, like several checked cards, as a
    list) plus a ``HEADERS`` object; ``static/js/table.js`` adds ``action_id``, the same for
    the same action on the same view (a double click, a resend after a reconnect). Raises
    ``Refused`` for anything else.
    """
    if text is None or len(text.encode()) > MAX_MESSAGE_BYTES or too_deep(text):
        raise Refused("bad_action")
    try:
        data = json.loads(text)
    except ValueError:
        raise Refused("bad_action") from None
    if not isinstance(data, dict):
        raise Refused("bad_action")
    action = data.get("action")
    if not isinstance(action, str) or action not in ACTIONS:
        raise Refused("bad_action")
    cards = data.get("cards", "")
    if isinstance(cards, list) and all(isinstance(card, str) for card in cards):
        cards = " ".join(cards)
    if not isinstance(cards, str):
        raise Refused("bad_action")
    meaning = data.get("as") or None
    if meaning is not None and not isinstance(meaning, str):
        raise Refused("bad_action")
    version = data.get("version")
    if version is not None and not isinstance(version, str):
        raise Refused("bad_action")
    move = data.get("move")
    if isinstance(move, str):
        if too_deep(move):
            raise Refused("bad_action")
        try:
            move = json.loads(move)
        except ValueError:
            raise Refused("bad_action") from None
    if move is not None and not isinstance(move, dict):
        raise Refused("bad_action")
    action_id = data.get("action_id")
    if not isinstance(action_id, str) or not ACTION_ID.fullmatch(action_id):
        raise Refused("bad_action")
    phrase = None
    if action == "say":
        phrase = data.get("phrase")
        if not isinstance(phrase, str) or phrase not in PHRASES:
            raise Refused("bad_action")
    return {
        "action": action,
        "cards": cards.strip(),
        "as": meaning,
        "move": move,
        "version": version,
        "id": action_id,
        "phrase": phrase,
    }


def _move_of(intent: dict[str, Any], table: Table) -> dict[str, Any] | None:
    """The engine's action JSON of a move intent at ``table``, as the game reads its intents;
    None for one that names no action (a play without cards)."""
    return presentation_for(table.room.game).action_of_intent(intent)


class NoSuchSocket(AsyncWebsocketConsumer):
    """A websocket to a path the site has no socket at: refused at the handshake (the client
    sees a 403), without the traceback Channels' router logs for a path it cannot route."""

    async def connect(self) -> None:
        await self.close()


class TableConsumer(AsyncWebsocketConsumer):
    table_id: int
    group: str | None = None
    language: str
    # The table and the seat (None: watching) of the last frame, and its rows.
    seen: tuple[Table, int | None] | None = None
    rows: TableRows | None = None
    # The newest frame sent, and its version; when a frame last went out, and the task that
    # looks at a quiet table again.
    frame: str = ""
    version: str = ""
    user_key: str = ""
    quiet_since: float = 0.0
    watch: asyncio.Task[None] | None = None
    # The keys of the places this socket holds among the open sockets (``socket_limits``).
    places: list[str]

    def __init__(self, *args: Any, windows: MovingWindows | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The windows this process counts its users' messages in (a test gives each of its
        # simulated workers its own); None: the process's.
        self.windows = windows

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels hops to its own thread before every handler to close that thread's stale
        # database connections. This consumer never uses that thread: its database calls run
        # on the pool's threads, which close their own (``DatabaseSyncToAsync``), so the hop
        # would only cost a thread switch for each of the many messages a table sends.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        try:
            await handler(message)
        except StopConsumer:
            raise
        except Exception:
            # Channels would end the socket without ``disconnect``: the group would keep
            # sending to a dead channel and the watch would go on reading the table.
            logger.exception("the socket of table %s failed", getattr(self, "table_id", None))
            await self._end()
            with contextlib.suppress(Exception):  # the client may be gone already
                await self.close(code=CLOSE_FAILED)
            raise StopConsumer from None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        # However the socket ends (the client leaves, the server cancels it as it stops, a
        # failure), it leaves the group and stops its work.
        try:
            await super().__call__(scope, receive, send)
        finally:
            await asyncio.shield(self._end())

    async def _end(self) -> None:
        """Stop the watch and leave the table's group; once, however often it is called."""
        watch, self.watch = self.watch, None
        if watch is not None:
            watch.cancel()
        group, self.group = self.group, None
        if group is not None:
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception:  # the layer's own expiry drops the member in the end
                logger.exception("could not leave the group of table %s", self.table_id)
        places, self.places = getattr(self, "places", []), []
        if places:
            try:
                await self._places_free(places)
            except Exception:  # they expire by themselves
                logger.exception("could not free the places of a socket of table %s", self.table_id)

    @property
    def user(self) -> User:
        """The socket's player: ``connect`` closes a socket of anyone not signed in."""
        return cast("User", self.scope["user"])

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        query = parse_qs((self.scope.get("query_string") or b"").decode("latin-1"))
        invites = query.get("invite")
        self.invite: str | None = invites[0] if invites else None
        self.language = language_of(self.scope)
        self.applied: deque[str] = deque(maxlen=APPLIED_IDS_KEPT)
        self.warnings = Warnings()
        self.places = []
        user = self.scope.get("user")
        await self.accept()
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_NOT_SIGNED_IN)
            return
        # The user's key in the frames a change carries, read from the lazy user once.
        self.user_key = str(user.pk)
        if not await self._place_take(f"user:{user.pk}", settings.TABLE_SOCKETS_PER_USER):
            await self._refuse_too_many(gettext_noop("You have too many table pages open."))
            return
        # Join the group before the first render, so no change can fall between them.
        self.group = services.table_group_name(self.table_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        rendered = await self._render()
        if rendered is None:
            await self._end()
            await self.close(code=CLOSE_NO_TABLE)
            return
        self.frame, self.version = rendered
        if (
            self.seen is not None
            and self.seen[1] is None
            and not await self._place_take(
                f"spectators:{self.table_id}", settings.TABLE_SPECTATORS_MAX
            )
        ):
            await self._refuse_too_many(
                gettext_noop("This table has all the spectators it can take.")
            )
            return
        await self.send(text_data=self.frame)
        self.quiet_since = time.monotonic()
        self.watch = asyncio.create_task(self._watch_a_quiet_table())
        ensure_running_in_this_process()
        collect_young_on_a_clock()
        if self.seen is not None and self.seen[1] is None:
            try:
                await self._record_watching()
            except Exception:  # the table is watched all the same; only its replay is lost
                logger.exception("could not record a spectator of table %s", self.table_id)

    async def disconnect(self, code: int) -> None:
        await self._end()

    async def _refuse_too_many(self, message: str) -> None:
        """Close with ``CLOSE_TOO_MANY`` after the words the page shows for it (``message``,
        in English: said in the socket's language)."""
        with translation.override(self.language):
            text = format_html(
                '<strong id="connection-busy-text" hx-swap-oob="true">{}</strong>',
                gettext(message),
            )
        await self._end()
        await self.send(text_data=text)
        await self.close(code=CLOSE_TOO_MANY)

    async def _watch_a_quiet_table(self) -> None:
        """After ``TABLE_RESYNC_SECONDS`` without a frame, look at the table's version and send
        a fresh frame if it moved on and no frame of it went out within
        ``TABLE_RESYNC_GRACE_SECONDS``: a process that dies between a commit and its broadcast
        leaves the change untold, and the player whose turn it now is must still see it."""
        while True:
            wait = settings.TABLE_RESYNC_SECONDS
            await asyncio.sleep(max(0.0, self.quiet_since + wait - time.monotonic()))
            try:
                await self._places_renew()
            except Exception:  # the next look tries again, well before the places expire
                logger.exception("could not renew a socket's places at table %s", self.table_id)
            if time.monotonic() - self.quiet_since < wait:
                continue  # a frame went out meanwhile
            self.quiet_since = time.monotonic()
            try:
                current = await self._current_version()
                if self._has_shown(current):
                    continue
                # The change's notice may be on its way: a frame of it sent meanwhile makes a
                # second one, of the same version, needless.
                await asyncio.sleep(settings.TABLE_RESYNC_GRACE_SECONDS)
                if self._has_shown(current):
                    continue
                rendered = await self._render()
            except Exception:  # the next look tries again; the socket itself is fine
                logger.exception("could not look at table %s again", self.table_id)
                continue
            if rendered is None:
                await self.close(code=CLOSE_NO_TABLE)
                return
            frame, version = rendered
            if version_key(version) > version_key(self.version):
                await self.send(text_data=self._newest(frame, version))

    def _has_shown(self, version: str | None) -> bool:
        """Whether the last frame sent shows ``version`` or a later one; not when ``version`` is
        None (the table is gone: the look renders, finds no table and closes the socket)."""
        return version is not None and version_key(version) <= version_key(self.version)

    async def table_update(self, event: dict[str, Any]) -> None:
        moved = event.get("kind") == "action"
        frame = self._frame_from(event)
        if frame is not None:
            version = event["version"]
            if not moved:
                # The table or its seats changed: the rows this socket read are old now. The
                # seat it read still holds if the change left its user in the same one (the
                # services lock and read the table again; ``_act`` reads it before rendering).
                self.rows = None
                if self.seen is not None and self._position_in(event) != self.seen[1]:
                    self.seen = None
        else:
            # A move in a game changes neither the seats nor the table's rows: the table, the
            # seat and the rows of the last frame still hold. After anything else, whether this
            # socket's user plays or watches is read again before a frame is chosen for them.
            same_game = self.rows is not None and (
                self.rows.game is not None and self.rows.game.pk == event.get("game")
            )
            reuse_table = moved and same_game
            if not reuse_table and not await self._read_place():
                # No longer allowed to see the table (a private table closed).
                await self.close(code=CLOSE_NO_TABLE)
                return
            version = event.get("version")
            if self._watches_a_public_table() and isinstance(version, str):
                rendered = await self._spectator_frame(version)
            else:
                rendered = await self._render(reuse_table=True)
            if rendered is None:
                await self.close(code=CLOSE_NO_TABLE)
                return
            frame, version = rendered
        self.quiet_since = time.monotonic()
        await self.send(text_data=self._newest(frame, version))

    async def table_chat(self, event: dict[str, Any]) -> None:
        """A quick phrase at the table: a bubble by its sender's seat, unless this socket's
        player hides phrases or muted the sender. It leaves the frame and its version alone."""
        bubble = await self._chat_bubble(event)
        if bubble:
            await self.send(text_data=bubble)

    def _watches_a_public_table(self) -> bool:
        """Whether this socket's user watched a public table at the last read of their place."""
        return self.seen is not None and self.seen[1] is None and not self.seen[0].is_private

    async def _spectator_frame(self, version: str) -> tuple[str, str] | None:
        """A spectator's frame of the table at ``version`` or later: rendered once in this
        process for every spectator socket of a public table (anyone signed in may watch it,
        so the frame is the same for all of them), by the first that needs it, through
        ``render_spectator_frame``, which knows no user and no seat."""
        loop = asyncio.get_running_loop()
        key = (loop, self.table_id, version, self.language)
        shared = _spectator_frames.get(key)
        if shared is not None:
            rendered = await asyncio.shield(shared)
            if rendered is not None:
                return rendered
            # The first render failed or found no public table: this socket reads for itself.
            return await self._render()
        shared = loop.create_future()
        _spectator_frames.put(key, shared)
        try:
            rendered = await self._render_for_spectators()
        except BaseException:
            _spectator_frames.pop(key)
            shared.set_result(None)
            raise
        shared.set_result(rendered)
        if rendered is None:
            _spectator_frames.pop(key)
            # The table is private now, or gone: this socket's own read says what it may see.
            return await self._render()
        return rendered

    def _newest(self, frame: str, version: str) -> str:
        """``frame``, which shows ``version``, unless this socket sent a newer one already.
        Updates of one table can arrive out of order (two processes commit moves in turn and
        broadcast independently, or a frame rendered after a move arrives after a fresher
        read): each frame is the whole table, so an older one gives way to the newest sent."""
        if version_key(version) < version_key(self.version):
            return self.frame
        self.version, self.frame = version, frame
        return frame

    def _frame_from(self, event: dict[str, Any]) -> str | None:
        """This socket's frame among the ones rendered once for the whole table after a change:
        the one rendered for its user (for the seat they hold), in its language. Spectators
        render their own view."""
        frames = event.get("frames")
        if not frames or event.get("language") != self.language:
            return None
        frame = frames.get(self.user_key)
        return frame if isinstance(frame, str) else None

    def _position_in(self, event: dict[str, Any]) -> int | None:
        """The seat of this socket's user after the change ``event`` tells, if it says."""
        position = (event.get("seats") or {}).get(self.user_key)
        return position if type(position) is int else None

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.group is None:
            return
        if not await message_allowed(self.user.pk, self.windows):
            if self.warnings.due():
                await self.send(text_data=await self._refusal(Refused("too_fast")))
            return
        try:
            intent = parse_intent(text_data)
            if intent["id"] in self.applied:
                return  # made once already from this socket; its frame came with the move
            try:
                notices = await self._move_on_loop(intent)
                if notices is None:
                    notices = await self._act_in_service_process(intent)
            except (services.GameActionRefused, services.TableRefused) as refused:
                made, reply, notices = await self._answer_refusal(intent, refused)
            else:
                if notices is not None:
                    made, reply = True, ""
                else:
                    made, reply, notices = await self._act(intent)
            if made:
                self.applied.append(intent["id"])
            for group, notice in notices:
                await self._tell(group, notice)
        except Refused as refused:
            if refused.code == "duplicate":
                return  # made once already, from another socket of this user
            reply = await self._refusal(refused)
        if reply:
            await self.send(text_data=reply)

    async def _tell(self, group: str, notice: dict[str, Any]) -> None:
        try:
            await self.channel_layer.group_send(group, notice)
        except Exception:  # the change is committed; a lost notice must not undo it
            logger.exception("could not broadcast an update of table %s", notice.get("table"))

    async def _move_on_loop(self, intent: dict[str, Any]) -> Notices | None:
        """A play or pass, or 再来一局, of a seated player, made on the event loop
        (``games.loop_moves``): its notices, or None when it is to be made through the
        services."""
        if self.seen is None or self.seen[1] is None or not loop_moves.enabled():
            return None
        if intent["action"] == "again":
            if intent["move"] is not None:
                return None  # a start action (明牌开始) is written by the services
            return await loop_moves.table_again(user=self.user, table_id=self.table_id)
        if intent["action"] not in MOVES:
            return None
        move = _move_of(intent, self.seen[0])
        if move is None:
            return None
        return await loop_moves.table_move(
            user=self.user,
            table_id=self.table_id,
            action=move,
            version=intent["version"],
            action_id=intent["id"],
        )

    async def _act_in_service_process(self, intent: dict[str, Any]) -> Notices | None:
        """A seated player's move or 再来一局 that the loop did not make, made in a service
        process (``games.service_processes``): its notices, or None when it is to be made in
        this socket's thread."""
        if self.seen is None or self.seen[1] is None or intent["action"] not in MOVES | {"again"}:
            return None
        move = None
        if intent["action"] in MOVES:
            move = _move_of(intent, self.seen[0])
            if move is None:
                return None  # the thread says why
        return await service_processes.make(
            user_id=self.user.pk,
            table_id=self.table_id,
            language=self.language,
            intent=intent,
            move=move,
        )

    # Work in a thread of the pool (games.db_threads): the database and the templates ---------

    @in_pool_thread
    def _render(self, reuse_table: bool = False) -> tuple[str, str] | None:
        with translation.override(self.language):
            if (not reuse_table or self.seen is None) and not self._read_place_now():
                return None
            assert self.seen is not None
            if self.rows is None:
                self.rows = table_rows(table=self.seen[0])
            table, seat = self.seen
            return render_frame_and_version(table=table, seat=seat, rows=self.rows)

    @in_pool_thread
    def _read_place(self) -> bool:
        return self._read_place_now()

    def _read_place_now(self) -> bool:
        """Read the table and this socket's user's seat at it (None: watching) into ``seen``:
        the one place a socket learns whether its user plays or watches. False, with nothing
        seen, when the user may no longer see the table. The rows are read again after it."""
        self.rows = None
        try:
            self.seen = table_get_for_user(
                user=self.user, table_id=self.table_id, invite_code=self.invite
            )
        except Table.DoesNotExist:
            self.seen = None
            return False
        return True

    @in_pool_thread
    def _render_for_spectators(self) -> tuple[str, str] | None:
        return render_spectator_frame(table_id=self.table_id, language=self.language)

    @in_pool_thread
    def _place_take(self, kind: str, capacity: int) -> bool:
        """Whether this socket got one of the ``capacity`` places of ``kind``; True without
        one when the cache does not answer, which must not keep everyone from the tables."""
        try:
            key = place_take(kind=kind, capacity=capacity, owner=self.channel_name)
        except Exception:
            logger.exception("could not count the sockets of %s", kind)
            return True
        if key is not None:
            self.places.append(key)
        return key is not None

    @in_pool_thread
    def _places_renew(self) -> None:
        places_renew(list(self.places), self.channel_name)

    @in_pool_thread
    def _places_free(self, places: list[str]) -> None:
        places_free(places, self.channel_name)

    @in_pool_thread
    def _record_watching(self) -> None:
        """A spectator of a game in play may replay it once it is over: remembered once, as the
        socket opens, after its first frame went out."""
        game = None if self.rows is None else self.rows.game
        if game is not None and not game.is_over:
            services.game_watch_record(user=self.user, game=game)

    @in_pool_thread
    def _current_version(self) -> str | None:
        table = Table.objects.filter(pk=self.table_id).first()
        return None if table is None else table_version(table=table)

    @in_pool_thread
    def _act(self, intent: dict[str, Any]) -> tuple[bool, str, Notices]:
        """Make the intent; returns whether it was made, what to send back to this client only,
        and the notices of what it committed, for the table's group (with everyone's frames)."""
        user = self.user
        with translation.override(self.language), services.notices_collected() as notices:
            if self.seen is not None and self.seen[1] is not None:
                # Seated at the last frame: the service checks the seat again under its locks.
                table, seat = self.seen
            else:
                table, seat = self._seen_again(user)
            move = None
            if intent["action"] in MOVES:
                move = _move_of(intent, table)
                if move is None:
                    raise Refused("no_selection")
            try:
                intent_make(user=user, table=table, intent=intent, move=move)
            except (services.TableRefused, services.GameActionRefused) as refused:
                made, reply = self._refusal_answer(intent, refused)
                return made, reply, notices
            except services.ChatRefused as refused:
                raise Refused(refused.code, refused.message) from None
            return True, "", notices

    @in_pool_thread
    def _answer_refusal(
        self, intent: dict[str, Any], refused: services.TableRefused | services.GameActionRefused
    ) -> tuple[bool, str, Notices]:
        """``_act``'s answer to an intent refused on the event loop."""
        with translation.override(self.language):
            made, reply = self._refusal_answer(intent, refused)
        return made, reply, []

    def _refusal_answer(
        self, intent: dict[str, Any], refused: services.TableRefused | services.GameActionRefused
    ) -> tuple[bool, str]:
        """What to send back to this client only for a refused intent (``Refused`` when a
        notice of the code is the whole answer)."""
        user = self.user
        if isinstance(refused, services.TableRefused):
            if intent["action"] == "again":
                # A fresh frame first: it says why for as long as it holds (the room no
                # longer admits the player's coins), where a notice alone would be wiped.
                table, seat = self._seen_again(user)
                frame = self._newest(*render_frame_and_version(table=table, seat=seat))
                return False, frame + render_notice(refused.message)
            raise Refused(refused.code, refused.message) from None
        # The table row of the last frame may be older than the table's version: what is
        # rendered here reads it again.
        if refused.code in ("choose_meaning", "stale"):
            table, seat = self._seen_again(user)
        if refused.code == "choose_meaning":
            prompt = render_prompt(
                table=table, seat=seat, cards=intent["cards"], choices=refused.choices
            )
            return False, prompt
        if refused.code == "stale":
            # The client's view is old: a fresh frame first, then why.
            frame = self._newest(*render_frame_and_version(table=table, seat=seat))
            return False, frame + render_notice(refusal_message("stale"))
        raise Refused(refused.code, refusal_message(refused.code, self._game_key())) from None

    def _game_key(self) -> str | None:
        """The key of the game played at the table of the last frame, if any."""
        return None if self.seen is None else self.seen[0].room.game

    def _seen_again(self, user: Any) -> tuple[Table, int]:
        """Read the table and the user's seat at it again; ``Refused`` if no longer seated."""
        try:
            self.seen = table_get_for_user(
                user=user, table_id=self.table_id, invite_code=self.invite
            )
        except Table.DoesNotExist:
            self.seen = None
            raise Refused("not_seated") from None
        table, seat = self.seen
        if seat is None:
            raise Refused("not_seated")
        return table, seat

    @in_pool_thread
    def _chat_bubble(self, event: dict[str, Any]) -> str:
        """The bubble of a quick phrase, appended to the page's ``#chat-bubbles`` (outside the
        frame, which every change replaces); empty when this player does not want it."""
        speaker = event.get("user")
        phrase = PHRASES.get(event.get("phrase") or "")
        if phrase is None or type(speaker) is not int:
            return ""
        if speaker != self.user.pk and not chat_wanted_from(
            user_id=self.user.pk, speaker_id=speaker
        ):
            return ""
        with translation.override(self.language):
            return format_html(
                '<div id="chat-bubbles" hx-swap-oob="beforeend">'
                '<p class="chat-bubble chat-bubble-{}" data-chat-id="{}" data-chat-seat="{}"'
                ' data-chat-user="{}" data-phrase="{}" data-label="{}">'
                '<span aria-hidden="true">{}</span></p></div>',
                phrase.kind,
                event.get("id"),
                event.get("seat"),
                speaker,
                phrase.id,
                phrase.label,
                phrase.text,
            )

    @in_pool_thread
    def _refusal(self, refused: Refused) -> str:
        with translation.override(self.language):
            return render_notice(refused.message or refusal_message(refused.code))
