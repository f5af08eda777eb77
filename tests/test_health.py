"""The health check at /healthz: 200 when the database and the channel layer answer, 503 naming
the part that does not, and no error in the log either way."""

import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connections
from django.test import Client, override_settings


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.django_db
def test_a_healthy_site_answers_200_without_a_cookie(caplog: pytest.LogCaptureFixture) -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"status": "ok", "database": "ok", "channel_layer": "ok"}
    assert not response.cookies
    assert "no-store" in response["Cache-Control"]
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]


@pytest.mark.django_db
def test_a_probe_over_plain_http_is_answered_not_redirected() -> None:
    with override_settings(DEBUG=False, SECURE_SSL_REDIRECT=True):
        assert Client().get("/healthz").status_code == 200
        # Every other page is redirected to HTTPS, as before.
        assert Client().get("/rules/").status_code == 301


@pytest.mark.django_db
def test_only_reads_are_allowed() -> None:
    assert Client().post("/healthz").status_code == 405


@pytest.mark.django_db
def test_a_channel_layer_that_does_not_answer_makes_it_503(
    caplog: pytest.LogCaptureFixture,
) -> None:
    unreachable_redis = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [f"redis://127.0.0.1:{closed_port()}/0"]},
        }
    }
    with override_settings(CHANNEL_LAYERS=unreachable_redis), caplog.at_level(logging.WARNING):
        response = Client().get("/healthz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "database": "ok",
        "channel_layer": "failed",
    }
    warnings = [record for record in caplog.records if record.name == "gandengyan.health"]
    assert [record.levelno for record in warnings] == [logging.WARNING]
    assert "channel layer" in warnings[0].getMessage()
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


@pytest.fixture
def unreachable_database(tmp_path: Path) -> Iterator[None]:
    """The default connection pointed, for the test, at a database that is not there: a closed
    port on PostgreSQL, a file in a folder that does not exist on SQLite. The connection's
    settings are the handler's, so any thread that connects meets the same database."""
    connection = connections["default"]
    saved = dict(connection.settings_dict)
    connection.close()
    if connection.vendor == "sqlite":
        connection.settings_dict["NAME"] = str(tmp_path / "missing" / "db.sqlite3")
    else:
        # The process's pool connects with the settings it was made with: a new one is made,
        # which gives up on the missing database after a second rather than the settings' wait.
        connection.close_pool()
        options = connection.settings_dict["OPTIONS"]
        connection.settings_dict.update(
            {
                "HOST": "127.0.0.1",
                "PORT": closed_port(),
                "OPTIONS": {**options, "pool": {**options["pool"], "timeout": 1.0}},
            }
        )
    yield
    connection.close()
    if connection.vendor == "postgresql":
        connection.close_pool()
    connection.settings_dict.clear()
    connection.settings_dict.update(saved)


# Serialized: the flush after it must leave the rooms and the house that the migrations made.
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_database_that_does_not_answer_makes_it_503(
    unreachable_database: None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        response = Client().get("/healthz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "database": "failed",
        "channel_layer": "ok",
    }
    warnings = [record for record in caplog.records if record.name == "gandengyan.health"]
    assert len(warnings) == 1
    assert "database" in warnings[0].getMessage()
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
