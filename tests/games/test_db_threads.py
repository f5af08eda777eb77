"""The table sockets' pool of database threads."""

from __future__ import annotations

import os

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
