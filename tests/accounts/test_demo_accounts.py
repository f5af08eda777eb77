"""A demo account made in a DEBUG run (``manage.py seed_demo``: ``admin``/``admin``) fails the
deployment checks with DEBUG off while its demo password still opens it; ``scripts/serve.sh``
then refuses to serve (``tests/test_serve_production.py``)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from io import StringIO
from pathlib import Path

import pytest
from django.core import checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import connection
from pytest_django.fixtures import Settings

from accounts.models import User

pytestmark = pytest.mark.django_db


def demo_errors(check_id: str = "accounts.E001") -> list[checks.CheckMessage]:
    found = checks.run_checks(include_deployment_checks=True, tags=[checks.Tags.security])
    return [message for message in found if message.id == check_id]


@contextmanager
def unreadable_database(folder: Path) -> Iterator[None]:
    """Point the connection at a database that cannot be read: on SQLite a file that is not a
    database, on PostgreSQL a database that does not exist."""
    saved = copy.deepcopy(connection.settings_dict)
    connection.close()
    if connection.vendor == "sqlite":
        garbage = folder / "not-a-database.sqlite3"
        garbage.write_bytes(b"this is not a database\n" * 200)
        connection.settings_dict["NAME"] = str(garbage)
    else:
        connection.settings_dict["NAME"] = "gandengyan_no_such_database"
        # The pool keeps the database it was opened on: a new one, quick to give up, opens on
        # the missing database.
        connection.close_pool()
        pool = connection.settings_dict["OPTIONS"]["pool"]
        connection.settings_dict["OPTIONS"]["pool"] = {**pool, "timeout": 1}
    try:
        yield
    finally:
        connection.close()
        if connection.vendor == "postgresql":
            connection.close_pool()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)


def seed_demo(settings: Settings) -> None:
    settings.DEBUG = True
    call_command("seed_demo", stdout=StringIO())
    settings.DEBUG = False


def test_the_demo_admin_fails_the_deploy_check_until_its_password_changes(
    settings: Settings,
) -> None:
    seed_demo(settings)
    assert User.objects.get(username="admin").check_password("admin")
    [error] = demo_errors()
    assert error.level == checks.ERROR
    assert "admin, lisi, zhangsan" in error.msg
    with pytest.raises(SystemCheckError, match="accounts.E001"):
        call_command("check", deploy=True, fail_level="ERROR", stdout=StringIO())

    for username in ("admin", "lisi"):
        user = User.objects.get(username=username)
        user.set_password("a-real-password-9f2c")
        user.save(update_fields=["password"])
    [error] = demo_errors()
    assert "zhangsan" in error.msg and "admin" not in error.msg
    zhangsan = User.objects.get(username="zhangsan")
    zhangsan.set_unusable_password()
    zhangsan.save(update_fields=["password"])
    assert demo_errors() == []


def test_a_demo_password_from_the_environment_is_caught_too(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEMO_ADMIN_PASSWORD", "s3cret-admin")
    seed_demo(settings)
    [error] = demo_errors()
    assert error.msg.startswith("The demo accounts admin, lisi, zhangsan ")


def test_a_development_site_keeps_its_demo_accounts(settings: Settings) -> None:
    seed_demo(settings)
    settings.DEBUG = True
    assert demo_errors() == []


def test_other_accounts_named_like_the_demo_pass(settings: Settings) -> None:
    settings.DEBUG = False
    User.objects.create_user(username="admin", password="a-real-password-9f2c")
    assert demo_errors() == []


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_database_that_cannot_be_read_fails_the_check(settings: Settings, tmp_path: Path) -> None:
    """The check used to pass whenever the database raised an error: it could not tell whether
    a demo password opened an account, and said nothing."""
    settings.DEBUG = False
    with unreadable_database(tmp_path):
        [error] = demo_errors("accounts.E002")
        assert error.level == checks.ERROR
        assert "could not read the database" in error.msg
        with pytest.raises(SystemCheckError, match="accounts.E002"):
            call_command("check", deploy=True, fail_level="ERROR", stdout=StringIO())
    assert demo_errors("accounts.E002") == []


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_database_not_migrated_yet_passes(settings: Settings, tmp_path: Path) -> None:
    """A new, empty database holds no account at all: nothing to report."""
    if connection.vendor != "sqlite":
        pytest.skip("an empty database is a new file on SQLite")
    settings.DEBUG = False
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict["NAME"] = str(tmp_path / "empty.sqlite3")
    try:
        assert demo_errors("accounts.E002") == [] and demo_errors() == []
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)
