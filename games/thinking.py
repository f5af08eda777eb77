"""Where bots think: in a process of their own, never on a worker's event loop.

A bot's choice is pure CPU work: up to a few milliseconds for the sensible bots, the whole time
budget (about a tenth of a second) for a searching one. Done in a thread of a worker it would
hold the interpreter's lock while the event loop waits for it; done on the loop it would stop
every socket of the worker. So each process hands its bots' choices to a small pool of thinking
processes (``settings.THINKING_PROCESSES``; 0: the caller's own thread, as the tests and tools
that need no worker do):

* ``choose(engine, state, policy)`` blocks its caller (a database thread: the runner's
  bots, 托管) until the choice is made, with the lock released meanwhile;
* ``prepare_hint(engine, state)`` is awaited on the event loop after a move made there, and
  remembers the game's own bot's choice for the seat to move, which the Hint button offers
  first (``hint_choice``, called while the frames are rendered, finds it there). It asks the
  loop's own thinking process (``games.thinker``) through the loop's pipes: a pool's threads
  would take the interpreter's lock from the loop to pickle and unpickle.

The thinking processes import only the engines and the bots (standard library only), never
Django, and get the engine, the position and the policy pickled: the objects the caller would
have used, so a choice is the one the caller would have made (the time budget of a search
aside, which a busy machine cuts short wherever it runs).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import pickle
import sys
import threading
import weakref
from collections import OrderedDict, deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from django.conf import settings

from games.bots import choose_for
from games.rules.protocol import Policy

from .thinker import LENGTH, end_with_parent

__all__ = ["choose", "hint_choice", "prepare_hint", "shutdown", "warm"]

logger = logging.getLogger(__name__)

#: How many positions' choices a process keeps, hints and named bots' each (a few per table).
REMEMBERED = 2048

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()
_remembered: OrderedDict[Any, Any] = OrderedDict()
_remembered_lock = threading.Lock()
_MISSING = object()


def _forget_after_fork() -> None:
    """In a forked child: none of the parent's pool, locks or loops' processes is its own."""
    global _pool, _pool_lock, _remembered_lock
    _pool = None
    _pool_lock = threading.Lock()
    _remembered_lock = threading.Lock()
    _loop_thinkers.clear()


def _thinking_pool() -> ProcessPoolExecutor | None:
    """The process's pool of thinking processes, started at its first use (None: none)."""
    global _pool
    processes = settings.THINKING_PROCESSES
    if processes <= 0 or multiprocessing.current_process().daemon:
        # A daemonic process (a test's live server) may not start processes of its own.
        return None
    with _pool_lock:
        if _pool is None:
            # A fresh interpreter, not a fork of a worker with its threads, sockets and loop.
            context = multiprocessing.get_context("spawn")
            _pool = ProcessPoolExecutor(
                max_workers=processes,
                mp_context=context,
                initializer=end_with_parent,
                initargs=(os.getpid(),),
            )
        return _pool


def warm() -> None:
    """Start the thinking processes now, in the background, so that the first choice does not
    wait for a new interpreter to start (a second or two)."""
    pool = _thinking_pool()
    if pool is not None:
        pool.submit(int)


def shutdown() -> None:
    """Stop the thinking processes (they are started again when next needed)."""
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def _choose_here(engine: Any, state: Any, policy: Policy[Any] | None) -> Any:
    """The choice itself, in whichever process runs it: ``policy``'s, or the game's own bot's
    (None), for the seat to move."""
    return choose_for(state, engine.bot_policy() if policy is None else policy)


def choose(
    engine: Any, state: Any, policy: Policy[Any] | None = None, *, remember: Any = None
) -> Any:
    """``policy``'s action (None: the game's own bot's) for the seat to move in ``state``, made
    in a thinking process; for a caller that may wait (never the event loop). With
    ``remember`` (a hashable name of the policy, such as its level and seed), a choice made
    before for the same position and name is given again at once, and this one is kept: a
    caller thinks before it takes its locks, then decides under them."""
    key = None if remember is None else _key(engine, (state, remember))
    if key is not None:
        choice = _recall(key)
        if choice is not _MISSING:
            return choice
    choice = _choose_in_pool(engine, state, policy)
    if key is not None:
        _remember(key, choice)
    return choice


def _choose_in_pool(engine: Any, state: Any, policy: Policy[Any] | None) -> Any:
    pool = _thinking_pool()
    if pool is None:
        return _choose_here(engine, state, policy)
    try:
        future = pool.submit(_choose_here, engine, state, policy)
    except (BrokenProcessPool, RuntimeError, OSError):
        _forget_broken(pool)
        return _choose_here(engine, state, policy)
    try:
        return future.result()
    except BrokenProcessPool:
        _forget_broken(pool)
        return _choose_here(engine, state, policy)


def _forget_broken(pool: ProcessPoolExecutor) -> None:
    """A thinking process died (killed, out of memory): this choice is made by its caller, and
    the next starts new processes."""
    global _pool
    logger.error("a thinking process died; starting new ones")
    with _pool_lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


def _key(engine: Any, state: Any) -> Any:
    try:
        key = (engine.key, state)
        hash(key)
    except TypeError:
        return None
    return key


def _remember(key: Any, choice: Any) -> None:
    with _remembered_lock:  # the loop and the database threads both remember
        _remembered[key] = choice
        _remembered.move_to_end(key)
        while len(_remembered) > REMEMBERED:
            _remembered.popitem(last=False)


def _recall(key: Any) -> Any:
    with _remembered_lock:
        return _remembered.get(key, _MISSING)


class _LoopThinker:
    """A thinking process (``games.thinker``) that one event loop talks to through its own
    pipes: the loop writes a request and reads the answer as it does a socket's, and no thread
    takes the interpreter's lock for it. Answers come in the order of the requests."""

    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process | None = None
        self.waiting: deque[asyncio.Future[tuple[bool, Any]]] = deque()
        self.starting = asyncio.Lock()

    async def ask(self, engine: Any, state: Any, policy: Policy[Any] | None) -> Any:
        process = await self._running()
        assert process.stdin is not None
        request = pickle.dumps((engine, state, policy), protocol=pickle.HIGHEST_PROTOCOL)
        answer: asyncio.Future[tuple[bool, Any]] = asyncio.get_running_loop().create_future()
        self.waiting.append(answer)
        process.stdin.write(LENGTH.pack(len(request)) + request)
        made, value = await answer
        if not made:
            raise value
        return value

    async def _running(self) -> asyncio.subprocess.Process:
        async with self.starting:
            if self.process is None or self.process.returncode is not None:
                self.process = await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "games.thinker",
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    cwd=settings.BASE_DIR,
                )
                asyncio.get_running_loop().create_task(self._answers(self.process))
            return self.process

    async def _answers(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        try:
            while True:
                (size,) = LENGTH.unpack(await process.stdout.readexactly(LENGTH.size))
                answer = pickle.loads(await process.stdout.readexactly(size))
                waiting = self.waiting.popleft()
                if not waiting.done():
                    waiting.set_result(answer)
        except (asyncio.IncompleteReadError, ConnectionError) as gone:
            logger.error("a thinking process of the event loop died; starting a new one")
            if self.process is process:
                self.process = None
            while self.waiting:
                waiting = self.waiting.popleft()
                if not waiting.done():
                    waiting.set_exception(ThinkerGone(str(gone)))


class ThinkerGone(RuntimeError):
    """The event loop's thinking process ended before it answered."""


#: The thinking process of each event loop (a worker has one loop; tests start many).
_loop_thinkers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopThinker] = (
    weakref.WeakKeyDictionary()
)


#: The Hint button's choices, by the very position object they were made for (kept with
#: them, so that its id is not reused meanwhile): the frames after a move ask for the position
#: the move made, which the process also keeps for the table's next reads, and finding it by
#: identity spares hashing it whole (its history included) at every move.
_hints: OrderedDict[int, tuple[str, Any, Any]] = OrderedDict()


def _kept_hint(engine: Any, state: Any) -> Any:
    found = _hints.get(id(state))
    if found is None or found[1] is not state or found[0] != engine.key:
        return _MISSING
    return found[2]


def _keep_hint(engine: Any, state: Any, choice: Any) -> None:
    with _remembered_lock:  # the loop and the database threads both keep hints
        _hints[id(state)] = (engine.key, state, choice)
        while len(_hints) > REMEMBERED:
            _hints.popitem(last=False)


async def prepare_hint(engine: Any, state: Any) -> None:
    """Make the game's own bot's choice for the seat to move in ``state`` in the event loop's
    thinking process, without blocking the loop, and keep it for ``hint_choice``."""
    if state.to_move is None or state.is_terminal or settings.THINKING_PROCESSES <= 0:
        return
    if _kept_hint(engine, state) is not _MISSING:
        return
    loop = asyncio.get_running_loop()
    thinker = _loop_thinkers.get(loop)
    if thinker is None:
        thinker = _loop_thinkers[loop] = _LoopThinker()
    try:
        choice = await thinker.ask(engine, state, None)
    except ThinkerGone:
        return  # the frames' render makes this one
    _keep_hint(engine, state, choice)


def hint_choice(engine: Any, state: Any) -> Any:
    """The game's own bot's choice for the seat to move in ``state``, the first play the Hint
    button offers: the one ``prepare_hint`` made, or made now (in a page's or a database
    thread's render) and kept for the position's next frames."""
    choice = _kept_hint(engine, state)
    if choice is not _MISSING:
        return choice
    # Not prepared on the loop (no move path renders a frame there without it): waiting for a
    # thinking process would stop the loop as long as choosing here.
    choice = _choose_here(engine, state, None) if _on_event_loop() else choose(engine, state)
    _keep_hint(engine, state, choice)
    return choice


def _on_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


os.register_at_fork(after_in_child=_forget_after_fork)
