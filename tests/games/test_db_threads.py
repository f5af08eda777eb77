"""The table sockets' pool of database threads."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from games import db_threads


def _answer() -> int:
    return 42


def test_a_forked_process_gets_threads_of_its_own() -> None:
    """A forked child (a test's live server) has none of its parent's threads: work it hands to
    the pool must still run, not wait forever for threads that exist only in the parent."""
    assert db_threads._pool.submit(_answer).result(timeout=10) == 42
    assert db_threads.pool_started()
    child = os.fork()
    if child == 0:  # the child: exit 0 only when the pool answered in time
        try:
            ok = db_threads._pool.submit(_answer).result(timeout=5) == 42
        except BaseException:
            ok = False
        os._exit(0 if ok else 1)
    _pid, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_threads_hand_the_lock_over_as_often_as_the_setting_says(settings: Any) -> None:
    """A pool thread busy with a query or a template keeps the event loop waiting for the
    interpreter's lock at most this long at a time."""
    before = sys.getswitchinterval()
    settings.GIL_SWITCH_SECONDS = 0.002
    try:
        db_threads.switch_threads_often()
        assert sys.getswitchinterval() == pytest.approx(0.002)
    finally:
        sys.setswitchinterval(before)


def test_a_worker_switches_threads_every_millisecond() -> None:
    """The ASGI application a worker serves sets the interval as it starts (Python's own is
    5 ms); a process of its own, as a worker is, so that this one keeps its interval."""
    shown = subprocess.run(
        [sys.executable, "-c", "import sys, gandengyan.asgi; print(sys.getswitchinterval())"],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "gandengyan.settings"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert float(shown.stdout.split()[-1]) == pytest.approx(0.001)
