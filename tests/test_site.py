"""Project-wide checks: configuration, ASGI entry point, migrations."""

import importlib

import pytest
from django.core.management import call_command


def test_system_checks_pass() -> None:
    call_command("check", fail_level="WARNING")


def test_asgi_application_is_a_protocol_router_that_starts_the_runner() -> None:
    from channels.routing import ProtocolTypeRouter

    from games.runner import StartingTheRunner

    module = importlib.import_module("gandengyan.asgi")
    assert isinstance(module.application, StartingTheRunner)
    router = module.application.application
    assert isinstance(router, ProtocolTypeRouter)
    assert set(router.application_mapping) == {"http", "websocket"}


@pytest.mark.django_db
def test_no_migrations_are_missing() -> None:
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


@pytest.mark.asyncio
async def test_websocket_from_a_foreign_origin_is_refused() -> None:
    from channels.testing import WebsocketCommunicator

    from gandengyan.asgi import application

    communicator = WebsocketCommunicator(
        application, "/ws/anything/", headers=[(b"origin", b"http://evil.example")]
    )
    connected, _ = await communicator.connect()
    assert not connected
    await communicator.disconnect()


@pytest.mark.django_db
def test_production_settings_pass_the_deployment_checks() -> None:
    """With DEBUG off and a real secret key, ``check --deploy`` finds nothing to warn about, on
    a database that answers (the check of the demo accounts reads it)."""
    import os
    import subprocess
    import sys

    from django.conf import settings
    from django.db import connection

    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "gandengyan.settings",
        "DEBUG": "false",
        "SECRET_KEY": "a-long-random-production-key-" + "x7Qp" * 12,
        "ALLOWED_HOSTS": "gandengyan.example",
    }
    if connection.vendor == "postgresql":
        database = connection.settings_dict
        env["DATABASE_URL"] = (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/"
            f"{database['NAME']}"
        )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.asyncio
async def test_an_idle_redis_layer_keeps_waiting_without_an_error() -> None:
    """On Redis, a worker whose tables are quiet for longer than redis-py's default read timeout
    (5 s) keeps listening: a timeout there would close every idle table's sockets."""
    import asyncio
    import os

    from channels.layers import get_channel_layer

    if not os.environ.get("REDIS_URL"):
        pytest.skip("needs REDIS_URL: the in-memory layer has no read timeout")
    layer = get_channel_layer()
    channel = await layer.new_channel()
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(layer.receive(channel), timeout=6.5)
