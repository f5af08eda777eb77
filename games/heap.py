"""A worker's heap, settled before it serves.

A full pass of the garbage collector looks at every object the process holds and, in a worker,
runs on the event loop: with the modules, the URL patterns, the translations and the compiled
templates of a started worker, about a hundred thousand objects, it kept every socket waiting
for tens of milliseconds. What a worker loads at start lives as long as it does, so once it is
loaded it is moved out of the collector's sight (``gc.freeze``): a full pass then looks only at
what the worker made since, such as its sockets and the positions of the games it serves.
"""

from __future__ import annotations

import asyncio
import gc
import weakref

from channels.layers import get_channel_layer
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from .frames.render import load_fragments


def settle() -> None:
    """Load what the first requests and frames would, collect, and freeze what is left."""
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            pass  # loads the language's catalogue
    load_fragments()
    # Django imports the URLconf (and with it every view) at the first URL it resolves or
    # reverses, and Channels its layer (and the Redis client) at the first socket: in a worker
    # both fall on the event loop, 10-35 ms of imports every socket waits for.
    reverse("games:home")
    get_channel_layer()
    gc.collect()
    gc.freeze()
    if settings.GC_THRESHOLDS:
        # Collect the young less often: most of what a message makes is freed by its reference
        # count before then, instead of being promoted and walked by every later pass.
        gc.set_threshold(*settings.GC_THRESHOLDS)


#: The event loops whose young generation is collected on a clock.
_clocked: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


def collect_young_on_a_clock() -> None:
    """Collect the young generation every ``YOUNG_COLLECTION_SECONDS`` on the running loop, once
    per loop. The threshold alone let a young pass walk 50,000 to 90,000 objects (freeing an old
    object lowers the count, so the count does not bound the list): 15 to 65 ms that every socket
    of the worker waited. On a clock a pass holds what a fifth of a second made."""
    every = settings.YOUNG_COLLECTION_SECONDS
    if not every:
        return
    loop = asyncio.get_running_loop()
    if loop in _clocked:
        return
    _clocked.add(loop)

    def collect() -> None:
        gc.collect(0)
        loop.call_later(every, collect)

    loop.call_later(every, collect)
