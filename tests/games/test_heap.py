"""A started worker's heap: what it loaded is out of the garbage collector's sight before it
serves, and the frame templates are compiled already."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from django.conf import settings

PROBE = """
import gc, json
import gandengyan.asgi
from django.conf import settings
from games.frames import render
print(json.dumps({
    "frozen": gc.get_freeze_count(),
    "thresholds": gc.get_threshold(),
    "watched": len(gc.get_objects()),
    "templates": {
        language: len(render._fragments_environment(language).cache or {})
        for language, _name in settings.LANGUAGES
    },
}))
"""


def test_a_started_worker_has_frozen_what_it_loaded_and_compiled_its_templates() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "gandengyan.settings"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=settings.BASE_DIR,
        check=True,
    )
    heap = json.loads(done.stdout.splitlines()[-1])
    # Nearly everything is frozen: the probe's own few objects are left to the collector.
    assert heap["frozen"] > 50_000
    assert heap["watched"] < heap["frozen"] / 100
    # In every language: the frame and the parts every game shares, and each game's own.
    templates = 2 + 2 * len(settings.GAME_ENGINES)
    assert heap["templates"] == {language: templates for language, _name in settings.LANGUAGES}


def test_a_started_worker_collects_the_young_as_its_settings_say() -> None:
    for given, expected in (("", [700, 10, 10]), ("50000,20,1000", [50000, 20, 1000])):
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "gandengyan.settings"}
        env["GC_THRESHOLDS"] = given
        done = subprocess.run(
            [sys.executable, "-c", PROBE],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=settings.BASE_DIR,
            check=True,
        )
        assert json.loads(done.stdout.splitlines()[-1])["thresholds"] == expected, given
