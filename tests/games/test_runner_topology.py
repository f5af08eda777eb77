"""Where the table runner runs: inside daphne by default, started by the site's first request,
and never where the table sockets could not hear it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command
from django.db import connections
from django.test import override_settings

from games import runner

REDIS_LAYER = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": ["redis://127.0.0.1:6379/0"]},
    }
}
HOST = [(b"host", b"127.0.0.1")]
MEMORY_LAYER = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def site_env(**changes: str) -> dict[str, str]:
    """The environment of the README's site (the production settings, the embedded default)."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL")
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "gandengyan.settings",
            "DATABASE_URL": f"sqlite:///{settings.TEST_ARTIFACTS_DIR / 'topology.sqlite3'}",
            "REDIS_URL": "",
        }
    )
    env.update(changes)
    return env


@override_settings(CHANNEL_LAYERS=MEMORY_LAYER)
def test_run_tables_refuses_the_in_memory_layer_and_says_what_to_do() -> None:
    with pytest.raises(CommandError) as refused:
        call_command("run_tables")
    message = str(refused.value)
    assert "in-memory" in message
    assert "REDIS_URL" in message
    assert "TABLE_RUNNER_IN_PROCESS" in message


@override_settings(CHANNEL_LAYERS={})
def test_run_tables_refuses_when_there_is_no_channel_layer_at_all() -> None:
    with pytest.raises(CommandError):
        call_command("run_tables")


@override_settings(CHANNEL_LAYERS=REDIS_LAYER)
def test_a_shared_layer_lets_a_runner_run_apart_from_daphne() -> None:
    assert runner.separate_runner_refusal() is None
    with override_settings(TABLE_RUNNER_IN_PROCESS=False):
        runner.check_sockets_hear_a_runner()  # run_tables beside it reaches the sockets


@override_settings(CHANNEL_LAYERS=MEMORY_LAYER, TABLE_RUNNER_IN_PROCESS=False)
def test_sockets_that_no_runner_can_reach_are_refused() -> None:
    with pytest.raises(ImproperlyConfigured, match="TABLE_RUNNER_IN_PROCESS"):
        runner.check_sockets_hear_a_runner()


@override_settings(CHANNEL_LAYERS=MEMORY_LAYER, TABLE_RUNNER_IN_PROCESS=True)
def test_the_in_memory_layer_with_the_runner_in_daphne_is_fine() -> None:
    runner.check_sockets_hear_a_runner()


def test_the_real_processes_refuse_to_start_unheard() -> None:
    """``run_tables`` and a daphne without its runner, started as a person would on the
    embedded default, stop at once with the reason instead of serving stale tables."""
    command = subprocess.run(
        [sys.executable, "manage.py", "run_tables"],
        cwd=settings.BASE_DIR,
        env=site_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert command.returncode != 0
    assert "in-memory" in command.stderr and "REDIS_URL" in command.stderr
    daphne = subprocess.run(
        [sys.executable, "-m", "daphne", "-p", "0", "gandengyan.asgi:application"],
        cwd=settings.BASE_DIR,
        env=site_env(TABLE_RUNNER_IN_PROCESS="false"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert daphne.returncode != 0
    assert "ImproperlyConfigured: TABLE_RUNNER_IN_PROCESS is off" in daphne.stderr


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
@override_settings(TABLE_RUNNER_IN_PROCESS=True, TABLE_RUNNER_INTERVAL_SECONDS=60)
async def test_the_first_page_request_starts_the_runner_once() -> None:
    from gandengyan.asgi import application

    loop = asyncio.get_running_loop()
    runner._running.pop(id(loop), None)
    try:
        request = HttpCommunicator(application, "GET", "/rules/", headers=HOST)
        response = await request.get_response()
        assert response["status"] == 200
        task = runner._running.get(id(loop))
        assert task is not None and not task.done()
        await HttpCommunicator(application, "GET", "/rules/", headers=HOST).get_response()
        assert runner._running[id(loop)] is task  # still the one runner
    finally:
        started = runner._running.pop(id(loop), None)
        if started is not None:
            started.cancel()
            with pytest.raises(asyncio.CancelledError):
                await started
        # The requests' connection lives in asgiref's thread: close it there, as daphne would.
        await sync_to_async(connections.close_all)()
