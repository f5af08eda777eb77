"""Which database the suite runs on: ``./scripts/test.sh`` runs the database tests twice."""

import os

import pytest
from django.db import connection


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_postgres_run_uses_its_own_test_database() -> None:
    assert connection.vendor == "postgresql"
    assert connection.settings_dict["NAME"] == "test_gandengyan"
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version_num")
        assert int(cursor.fetchone()[0]) >= 140000


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def _sessions() -> set[int]:
    """The server processes of every session on the test database."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
        return {int(row[0]) for row in cursor.fetchall()}


@pytest.mark.postgres
# Restored as the other tests of real commits do: a flush without it runs post_migrate, whose
# rows the next restoring test would then insert a second time.
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_forked_child_connects_from_a_pool_of_its_own() -> None:
    """A forked child (a test's live server) inherits the parent's pool of connections: it must
    open its own, not talk on the parent's sockets, and leave the parent's sessions alone."""
    assert connection.pool is not None
    before = _sessions()
    connection.close()  # given back to the pool, which keeps it open
    child = os.fork()
    if child == 0:  # the child: exit 0 only on a session of its own
        try:
            ok = _backend_pid() not in before
            connection.close()
        except BaseException:
            ok = False
        os._exit(0 if ok else 1)
    _pid, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    # The parent's sessions are all still there.
    assert _sessions() >= before
