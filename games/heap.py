"""A worker's heap, settled before it serves.

A full pass of the garbage collector looks at every object the process holds and, in a worker,
runs on the event loop: with the modules, the URL patterns, the translations and the compiled
templates of a started worker, about a hundred thousand objects, it kept every socket waiting
for tens of milliseconds. What a worker loads at start lives as long as it does, so once it is
loaded it is moved out of the collector's sight (``gc.freeze``): a full pass then looks only at
what the worker made since, such as its sockets and the positions of the games it serves.
"""

from __future__ import annotations

import gc

from django.conf import settings
from django.utils import translation

from .frames.render import load_fragments


def settle() -> None:
    """Load what the first requests and frames would, collect, and freeze what is left."""
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            pass  # loads the language's catalogue
    load_fragments()
    gc.collect()
    gc.freeze()
    if settings.GC_THRESHOLDS:
        # Collect the young less often: most of what a message makes is freed by its reference
        # count before then, instead of being promoted and walked by every later pass.
        gc.set_threshold(*settings.GC_THRESHOLDS)
