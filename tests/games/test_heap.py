"""A started worker's heap: what it loaded is out of the garbage collector's sight before it
serves, and the frame templates are compiled already."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings

from games.heap import collect_young_on_a_clock

PROBE = """
import gc, json, sys
import gandengyan.asgi
from channels.layers import channel_layers
from django.conf import settings
from games.frames import render
print(json.dumps({
    "views_imported": "games.table_views" in sys.modules,
    "channel_layer": "default" in channel_layers.backends,
    "frozen": gc.get_freeze_count(),
    "thresholds": gc.get_threshold(),
    "watched": len(gc.get_objects()),
    "templates": {
        language: len(render._fragments_environment(language).cache or {})
        for language, _name in settings.LANGUAGES
    },
}))
"""


def _started_worker(**environment: str) -> dict[str, Any]:
    """What ``PROBE`` finds in a process of its own that started the site's ASGI application,
    with ``environment`` added to this one's."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "gandengyan.settings", **environment}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=settings.BASE_DIR,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_a_started_worker_has_frozen_what_it_loaded_and_compiled_its_templates() -> None:
    heap = _started_worker()
    # Nearly everything is frozen: the probe's own few objects are left to the collector.
    assert heap["frozen"] > 50_000
    assert heap["watched"] < heap["frozen"] / 100
    # In every language: the frame and the parts every game shares, and each game's own.
    templates = 2 + 2 * len(settings.GAME_ENGINES)
    assert heap["templates"] == {language: templates for language, _name in settings.LANGUAGES}


def test_a_started_worker_has_imported_its_views_and_made_its_channel_layer() -> None:
    """Django imports the URLconf at the first URL it reverses and Channels makes its layer at
    the first socket: in a worker both fell on the event loop, 10-35 ms of imports."""
    started = _started_worker()
    assert started["views_imported"] and started["channel_layer"]


def test_a_started_worker_collects_the_young_as_its_settings_say() -> None:
    for given, expected in (("", [700, 10, 10]), ("50000,20,1000", [50000, 20, 1000])):
        assert _started_worker(GC_THRESHOLDS=given)["thresholds"] == expected, given


@pytest.mark.asyncio
async def test_a_loop_with_table_sockets_collects_the_young_on_a_clock() -> None:
    """Once per loop, however often a socket asks: a young pass every tenth of a second here."""
    passes: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 0:
            passes.append(0)

    gc.callbacks.append(count)
    try:
        with override_settings(YOUNG_COLLECTION_SECONDS=0):
            collect_young_on_a_clock()
            await asyncio.sleep(0.35)
        assert passes == []  # turned off: only the thresholds collect
        with override_settings(YOUNG_COLLECTION_SECONDS=0.1):
            collect_young_on_a_clock()
            collect_young_on_a_clock()  # a second socket of the same loop
            await asyncio.sleep(0.55)
    finally:
        gc.callbacks.remove(count)
    assert 3 <= len(passes) <= 7, passes
