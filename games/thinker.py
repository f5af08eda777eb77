"""A thinking process for an event loop: ``python -m games.thinker``.

It reads requests from its standard input and answers each on its standard output, in order:
a request is a pickled ``(engine, state, policy)`` (policy None: the game's own bot), the
answer the pickled ``(True, action)`` or ``(False, exception)``; each is sent as 4 bytes of
length (big-endian) and then the pickle. It imports the engines and the bots only, never
Django, and ends when its input closes (its worker has gone).

``games.thinking`` talks to it from the event loop through the loop's own pipes, so that the
loop only writes a request and reads an answer, as it does a socket's messages: no thread of
the worker's takes the interpreter's lock to do it.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
import threading
import time
from typing import Any, BinaryIO

from games.bots import choose_for

LENGTH = struct.Struct(">I")


def answer(request: bytes) -> bytes:
    """The answer to one request, pickled."""
    try:
        engine, state, policy = pickle.loads(request)
        action = choose_for(state, engine.bot_policy() if policy is None else policy)
        reply: tuple[bool, Any] = (True, action)
    except Exception as error:  # told to the asking process, which raises it there
        reply = (False, error)
    try:
        return pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:  # an answer that cannot cross: say so in plain words
        return pickle.dumps((False, RuntimeError(f"unpicklable answer: {error!r}")))


def end_with_parent(parent: int) -> None:
    """In a pool's thinking process: end it once the process that started it is gone (killed
    without a chance to stop its pool), instead of waiting for work for ever."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


def serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """Answer requests until the input ends."""
    while True:
        head = requests.read(LENGTH.size)
        if len(head) < LENGTH.size:
            return
        (size,) = LENGTH.unpack(head)
        body = requests.read(size)
        if len(body) < size:
            return
        reply = answer(body)
        answers.write(LENGTH.pack(len(reply)) + reply)
        answers.flush()


if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout.buffer)
