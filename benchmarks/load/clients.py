"""Scripted websocket players, and what they measure.

Every client acts only from its own frames, like a browser: a table client reads the version,
``data-status``, ``data-my-turn``, ``data-phase`` (斗地主's), ``data-can-beat`` and
``data-leading`` of each frame and, on its turn, the ``#hints`` JSON (its legal plays, the bot's
choice first), and sends what htmx would send (``{"action": "play", "cards": [...], "as": "...",
"version": "...", "HEADERS": {...}}``, or a pass; ``{"action": "again"}`` at the end of a game).
At a 斗地主 table it waits while the table's clock shows the deal, and on its turn to bid or to
choose 加倍 it presses one of the buttons the frame shows (``data-action="bid-call"``,
``"double"`` ...), which send the engine's action (``{"action": "act", "move": "{\"bid\":
\"call\"}", "version": "..."}``); it never declares 明牌, nor chooses 加倍 before its turn, so
that only the seat to move acts. A bare client (``benchmarks.load.baseline``) answers the frame of
its turn with its version.

Pace: ``flat`` acts as soon as the frame arrives; ``human`` thinks 2–4 s first (drawn from the
run's seed), then acts if nothing newer came meanwhile.

What is measured, for the moves sent inside the window (plays and passes; 斗地主's bids and
加倍 too; an ``again`` is counted apart, as its effect is shared with the other players'):

- latency: from just before the client sends the action to the moment every one of the table's
  clients (three, or one at a table of two bots) has received a frame with a later version
  than the one the action was chosen on
  (a move moves the version from ``T.G.N`` to ``T.G.N+1``, and nothing else can move it
  meanwhile: no other seat acts, and the only runner, 斗地主's clock, acts only while the deal
  is shown, when no seat does: the players' own deadlines are far beyond the step; a bot moves
  only after its pause, which starts when the move before it is made);
- lost: such an update that some client had still not received when the step ended (after a
  drain of up to ``drain`` seconds with no new actions);
- gaps: table notices a socket missed (the channel layer dropped them, or a socket fell behind)
  that its table mates received: each socket of a table must get one frame per notice, so the
  three counts of group frames must agree, counting the frames of changes after the table's
  last socket read its first frame (the sockets connect one after another, and a change made
  meanwhile, such as a stage of 斗地主's deal, reaches only those already there). The counts are
  compared once every socket of the table has the newest frame any of them got, or after up to
  ``drain`` seconds more: a change nobody waits for (a 再来一局, a stage of the deal) may still
  be on its way to one socket when the others have it;
- out of order: a frame with a lower version than one the socket already had;
- skipped: versions a socket never saw while a later one of the same game arrived. Not a loss:
  a socket renders the table when its notice arrives, and if the next move has committed by then
  it shows that one (twice); every frame is the whole table;
- refused: actions the server refused (a notice instead of a frame; ``stale`` for a reply that
  re-sends the table), and errors: failed connections, sockets closed by the server, send errors.
  A socket the server closes with 1006, 1011, 1012 or 1013 reconnects after up to a second, as
  htmx does (the error is counted; its table is left out of the gap count).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import websockets

from .database import SeatedTable

VERSION = re.compile(r'data-version="(\d+)\.(\d+)\.(\d+)"')
FLAGS = re.compile(
    r'data-status="(\w+)"\s+data-my-turn="(\w+)"(?:\s+data-phase="(\w*)")?'
    r'\s+data-can-beat="(\w+)"\s+data-leading="(\w+)"'
)
#: The buttons of 斗地主's bidding and 加倍 in a frame (``data-action="bid-no_call"``).
CHOICES = re.compile(r'data-action="(bid-\w+|double|no-double)"')
NOTICE = re.compile(r'<div id="notice"[^>]*>(.*?)</div>', re.S)
HINTS_START = '<script id="hints" type="application/json">'
HEAD = 900  # the version and flags are in the first few hundred characters of a frame
THINK_SECONDS = (2.0, 4.0)
PASS_RATE = 0.15  # how often a follower passes when it could beat the table
FIRST_HINT_RATE = 0.75  # how often a player plays the first hint (the bot's choice)
#: How often a 斗地主 player says 叫地主 or 抢地主 when it may (otherwise 不叫 / 不抢: all three
#: saying 不叫 deals again), and 加倍 when it may.
BID_RATE = 0.5
DOUBLE_RATE = 0.3
CONNECTS_AT_ONCE = 32
#: Close codes after which htmx's websocket extension reconnects.
RECONNECT_CODES = {1006, 1011, 1012, 1013}

Version = tuple[int, int, int]


@dataclass
class StepConfig:
    kind: str  # "game" or "bare"
    pace: str  # "flat" or "human"
    tables: int
    duration: float
    warmup: float
    urls: list[str]
    seed: int = 1
    bare_bytes: int = 7000
    drain: float = 15.0
    token: str = "0"  # makes the bare transport's group names unique per step


@dataclass
class Pending:
    base: Version
    sent: float
    waiting: set[int]
    measured: bool


@dataclass
class Recorder:
    """Counters of one step, shared by all its clients."""

    window: tuple[float, float] = (float("inf"), float("inf"))
    go: bool = False
    stopping: bool = False
    actions: int = 0
    done: int = 0
    latencies: list[float] = field(default_factory=list)
    again: int = 0
    games: int = 0
    frames: int = 0
    frame_sizes: list[int] = field(default_factory=list)
    refused: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    out_of_order: int = 0
    skipped: int = 0
    lost: int = 0
    gaps: int = 0

    def in_window(self, moment: float) -> bool:
        return self.window[0] <= moment < self.window[1]


class TableRun:
    """The three clients of one table (or of one bare group) and its actions in flight."""

    def __init__(
        self, config: StepConfig, recorder: Recorder, index: int, seated: SeatedTable | None
    ) -> None:
        self.config = config
        self.recorder = recorder
        self.index = index
        self.pending: list[Pending] = []
        self.reconnected = False
        urls = config.urls
        self.seats = []
        for seat in range(3):
            url = urls[(index * 3 + seat) % len(urls)]
            if config.kind == "game":
                assert seated is not None
                if not seated.cookies[seat]:
                    continue  # a bot's seat: the table runner moves it
                path = f"{url}/ws/tables/{seated.table_id}/"
                cookie = f"sessionid={seated.cookies[seat]}; django_language=zh-hans"
            else:
                path = f"{url}/ws/bare/{config.token}-{index}/?bytes={config.bare_bytes}"
                cookie = "django_language=zh-hans"
            rng = random.Random(f"{config.seed}-{index}-{seat}")
            self.seats.append(SeatClient(self, seat, path, cookie, rng))

    def seen(self, seat: int, version: Version, moment: float) -> None:
        for item in list(self.pending):
            if seat in item.waiting and version > item.base:
                item.waiting.discard(seat)
                if not item.waiting:
                    self.pending.remove(item)
                    if item.measured:
                        self.recorder.done += 1
                        self.recorder.latencies.append(moment - item.sent)

    def settled(self) -> bool:
        """Whether every socket of the table has the newest frame any of them got: no notice
        is on its way to some of them only."""
        if self.reconnected:
            return True
        newest = {seat.group_versions[-1] if seat.group_versions else None for seat in self.seats}
        return len(newest) <= 1

    def close_books(self) -> None:
        """At the end of the step: updates never received, and notices missed by a socket."""
        self.recorder.lost += sum(1 for item in self.pending if item.measured)
        if self.reconnected:  # a socket was away: its count cannot be compared
            return
        everyone_there = max(seat.first for seat in self.seats)
        counts = [
            sum(1 for version in seat.group_versions if version > everyone_there)
            for seat in self.seats
        ]
        self.recorder.gaps += sum(max(counts) - count for count in counts)


class SeatClient:
    def __init__(
        self, table: TableRun, seat: int, url: str, cookie: str, rng: random.Random
    ) -> None:
        self.table = table
        self.recorder = table.recorder
        self.config = table.config
        self.seat = seat
        self.url = url
        self.cookie = cookie
        self.rng = rng
        self.socket: websockets.ClientConnection | None = None
        self.latest: tuple[Version, str] | None = None
        self.top: Version = (-1, -1, -1)
        self.acted: Version = (-1, -1, -1)
        self.again_game = -1
        self.first: Version = (-1, -1, -1)  # the version of the first frame
        self.group_versions: list[Version] = []  # of the frames every socket of the table gets
        self.thinking: asyncio.Task[None] | None = None
        self.listening: asyncio.Task[None] | None = None

    async def connect(self, limit: asyncio.Semaphore) -> bool:
        async with limit:
            text = await self.open()
        if text is None:
            return False
        if self.config.kind == "game":
            match = VERSION.search(text, 0, HEAD)
            if match is None:
                self.recorder.errors["first frame: no table"] += 1
                return False
            self.top = self.first = _version(match)
            self.latest = (self.top, text)
        else:
            self.top = self.first = (0, 0, 0)
            self.latest = ((0, 0, 0), "")
        self.listening = asyncio.create_task(self.listen())
        return True

    async def open(self) -> str | None:
        """Open the socket; returns the table's first frame ("" for a bare socket), or None."""
        try:
            self.socket = await websockets.connect(
                self.url,
                origin=websockets.Origin("http://127.0.0.1"),
                additional_headers={"Cookie": self.cookie},
                compression=None,
                proxy=None,
                ping_interval=None,
                open_timeout=60,
                close_timeout=5,
            )
        except Exception as exc:
            self.recorder.errors[f"connect: {type(exc).__name__}"] += 1
            return None
        if self.config.kind != "game":
            return ""
        # The table's consumer sends the current table at once.
        try:
            text = await asyncio.wait_for(self.socket.recv(), timeout=60)
        except Exception as exc:
            self.recorder.errors[f"first frame: {type(exc).__name__}"] += 1
            return None
        return text if isinstance(text, str) else None

    async def listen(self) -> None:
        """Receive until the step closes the socket. When the server closes it with a code
        after which htmx reconnects (1006, 1011, 1012, 1013), reconnect as htmx does, after
        up to a second, and go on from the fresh frame; every such close is an error."""
        while True:
            assert self.socket is not None
            code: int | None = None
            try:
                async for text in self.socket:
                    if isinstance(text, str):
                        await self.on_text(text)
            except websockets.ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd else 1006
            except Exception as exc:  # a bug in the client must show, not hang the step
                self.recorder.errors[f"client: {type(exc).__name__}: {exc}"] += 1
                return
            if self.recorder.stopping:
                return
            code = code or self.socket.close_code
            if code not in RECONNECT_CODES:
                self.recorder.errors[f"closed by server: {code}"] += 1
                return
            self.recorder.errors[f"closed by server: {code}, reconnected"] += 1
            self.table.reconnected = True
            await asyncio.sleep(self.rng.random())
            text = await self.open()
            if text is None:
                return
            if text:
                await self.on_text(text, group=False)

    async def on_text(self, text: str, *, group: bool = True) -> None:
        moment = time.perf_counter()
        match = VERSION.search(text, 0, HEAD)
        if match is None:
            notice = NOTICE.search(text)
            reason = "prompt" if 'id="prompt"' in text[:200] else "notice"
            if notice is not None:
                reason = notice.group(1).strip()[:60] or "empty notice"
            self.recorder.refused[reason] += 1
            return
        version = _version(match)
        recorder = self.recorder
        if 'class="notice is-shown"' in text:  # a reply to this client only: stale
            recorder.refused["stale"] += 1
        elif group:
            self.group_versions.append(version)
            recorder.frames += 1
            if len(recorder.frame_sizes) < 20_000:
                recorder.frame_sizes.append(len(text.encode()))
        if version < self.top:
            recorder.out_of_order += 1
        else:
            if version[:2] == self.top[:2] and version[2] > self.top[2] + 1:
                recorder.skipped += version[2] - self.top[2] - 1
            if version[1] != self.top[1] and self.seat == 0 and recorder.in_window(moment):
                recorder.games += 1  # a new game started at this table
            self.top = version
        self.latest = (version, text)
        self.table.seen(self.seat, version, moment)
        await self.decide()

    async def start(self) -> None:
        """The step begins: act on the frame already received, if it is this client's turn."""
        await self.decide()

    async def decide(self) -> None:
        recorder = self.recorder
        if not recorder.go or recorder.stopping or self.latest is None:
            return
        version, text = self.latest
        if version <= self.acted or version < self.top:
            return
        intent = self.intent(version, text)
        if intent is None:
            return
        self.acted = version
        if self.config.pace == "flat":
            await self.send(intent, version)
        else:
            think = self.rng.uniform(*THINK_SECONDS)
            self.thinking = asyncio.create_task(self.after(think, intent, version))

    async def after(self, seconds: float, intent: dict[str, Any], version: Version) -> None:
        await asyncio.sleep(seconds)
        if self.recorder.stopping or self.top != version:
            return  # something newer came meanwhile: that frame decides
        await self.send(intent, version)

    def intent(self, version: Version, text: str) -> dict[str, Any] | None:
        text_version = ".".join(map(str, version))
        if self.config.kind == "bare":
            return {"version": text_version} if version[2] % 3 == self.seat else None
        flags = FLAGS.search(text, 0, HEAD)
        if flags is None:
            return None
        status, my_turn, phase, can_beat, leading = flags.groups()
        headers = {"HX-Request": "true", "HX-Trigger": None, "HX-Target": "table"}
        if status == "waiting" and 'data-action="again"' in text:
            if self.again_game == version[1]:
                return None
            self.again_game = version[1]
            return {"action": "again", "HEADERS": headers}
        if status != "playing" or my_turn != "true" or phase == "deal":
            return None  # the table's clock shows the deal
        if phase in ("bid", "double"):
            return self.choice(phase, text, text_version, headers)
        hints: list[dict[str, str]] = []
        if can_beat == "true":
            start = text.find(HINTS_START)
            if start >= 0:
                start += len(HINTS_START)
                hints = json.loads(text[start : text.index("</script>", start)])
        if not hints or (leading != "true" and self.rng.random() < PASS_RATE):
            if leading == "true":
                self.recorder.errors["leading without hints"] += 1
                return None
            return {"action": "pass", "version": text_version, "HEADERS": headers}
        hint = hints[0] if self.rng.random() < FIRST_HINT_RATE else self.rng.choice(hints)
        return {
            "action": "play",
            "cards": hint["cards"].split(),
            "as": hint.get("as", ""),  # 斗地主's plays have one meaning: its hints give none
            "version": text_version,
            "HEADERS": headers,
        }

    def choice(
        self, phase: str, text: str, text_version: str, headers: dict[str, Any]
    ) -> dict[str, Any] | None:
        """斗地主's bid or 加倍 on this client's turn: one of the buttons its frame shows."""
        buttons = set(CHOICES.findall(text))
        move: dict[str, Any]
        if phase == "bid":
            yes = next((word for word in ("call", "rob") if f"bid-{word}" in buttons), None)
            no = next((word for word in ("no_call", "no_rob") if f"bid-{word}" in buttons), None)
            if yes is None or no is None:
                self.recorder.errors["bidding without its buttons"] += 1
                return None
            move = {"bid": yes if self.rng.random() < BID_RATE else no}
        else:
            if "no-double" not in buttons:
                self.recorder.errors["doubling without its buttons"] += 1
                return None
            move = {"double": "double" in buttons and self.rng.random() < DOUBLE_RATE}
        return {
            "action": "act",
            "move": json.dumps(move),
            "version": text_version,
            "HEADERS": headers,
        }

    async def send(self, intent: dict[str, Any], version: Version) -> None:
        recorder = self.recorder
        if self.socket is None:
            return
        moment = time.perf_counter()
        if intent.get("action") == "again":
            recorder.again += recorder.in_window(moment)
        else:
            measured = recorder.in_window(moment)
            recorder.actions += measured
            players = {seat.seat for seat in self.table.seats}
            self.table.pending.append(Pending(version, moment, players, measured))
        try:
            # A fresh id per action, as the page's script gives one (static/js/table.js).
            await self.socket.send(json.dumps({**intent, "action_id": uuid.uuid4().hex}))
        except websockets.ConnectionClosed:
            if not recorder.stopping:
                recorder.errors["send on a closed socket"] += 1

    async def close(self) -> None:
        if self.thinking is not None:
            self.thinking.cancel()
        if self.socket is not None:
            with contextlib.suppress(Exception):
                await self.socket.close()
        if self.listening is not None:
            try:
                await asyncio.wait_for(self.listening, timeout=5)
            except (TimeoutError, asyncio.CancelledError):
                self.listening.cancel()


def _version(match: re.Match[str]) -> Version:
    return (int(match.group(1)), int(match.group(2)), int(match.group(3)))


@dataclass
class StepOutcome:
    recorder: Recorder
    connected: int
    sockets: int
    tables: int = 0


async def run_step(
    config: StepConfig,
    tables: list[SeatedTable],
    on_window: Any = None,
    tick: Any = None,
) -> StepOutcome:
    """Connect every client, play for ``warmup`` + ``duration`` seconds, drain, close.

    ``on_window(start: bool)`` is called when the measured window opens and closes (to sample the
    server), and ``tick()`` about once a second inside it.
    """
    recorder = Recorder()
    runs = [
        TableRun(config, recorder, index, tables[index] if config.kind == "game" else None)
        for index in range(config.tables)
    ]
    clients = [seat for run in runs for seat in run.seats]
    limit = asyncio.Semaphore(CONNECTS_AT_ONCE)
    connected = sum(await asyncio.gather(*(seat.connect(limit) for seat in clients)))

    begin = time.perf_counter()
    recorder.window = (begin + config.warmup, begin + config.warmup + config.duration)
    recorder.go = True
    await asyncio.gather(*(seat.start() for seat in clients))
    await asyncio.sleep(max(0.0, recorder.window[0] - time.perf_counter()))
    if on_window is not None:
        on_window(True)
    while time.perf_counter() < recorder.window[1]:
        await asyncio.sleep(min(1.0, max(0.0, recorder.window[1] - time.perf_counter())))
        if tick is not None:
            tick()
    if on_window is not None:
        on_window(False)
    recorder.stopping = True

    drain_until = time.perf_counter() + config.drain
    while time.perf_counter() < drain_until and any(run.pending for run in runs):
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)  # the last frames of the last actions
    landed_until = time.perf_counter() + config.drain
    while time.perf_counter() < landed_until and not all(run.settled() for run in runs):
        await asyncio.sleep(0.1)
    for run in runs:
        run.close_books()
    await asyncio.gather(*(seat.close() for seat in clients))
    return StepOutcome(recorder, connected, len(clients), config.tables)
