"""Log lines on standard output carry the id of their request, and of their table on a table's
socket (gandengyan.log_context)."""

import io
import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import AsyncClient, Client

from gandengyan.log_context import ContextFilter, SocketLogContext, request_id, table_id


@pytest.fixture
def log_output() -> Iterator[io.StringIO]:
    """What the settings' console handler writes, for the test."""
    handler = next(
        handler
        for handler in logging.getLogger().handlers
        if isinstance(handler, logging.StreamHandler)
        and any(isinstance(each, ContextFilter) for each in handler.filters)
    )
    stream = io.StringIO()
    previous = handler.setStream(stream)
    yield stream
    handler.setStream(previous)


def lines_with(output: io.StringIO, text: str) -> list[str]:
    return [line for line in output.getvalue().splitlines() if text in line]


LINE = re.compile(
    r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} WARNING django\.request "
    r"\[request=(?P<id>[^\] ]+)\]: Not Found: /no-such-page/"
)


@pytest.mark.django_db
def test_a_request_log_line_carries_the_proxy_request_id(log_output: io.StringIO) -> None:
    response = Client().get("/no-such-page/", headers={"x-request-id": "edge-4f2a9c"})
    assert response.status_code == 404
    assert response["X-Request-ID"] == "edge-4f2a9c"
    [line] = lines_with(log_output, "Not Found")
    matched = LINE.fullmatch(line)
    assert matched, line
    assert matched["id"] == "edge-4f2a9c"


@pytest.mark.django_db
def test_a_request_without_a_sane_id_gets_a_new_one(log_output: io.StringIO) -> None:
    first = Client().get("/no-such-page/", headers={"x-request-id": "evil id]\rFORGED"})
    second = Client().get("/no-such-page/")
    ids = [first["X-Request-ID"], second["X-Request-ID"]]
    assert all(re.fullmatch(r"[0-9a-f]{32}", each) for each in ids)
    assert ids[0] != ids[1]
    logged = [LINE.fullmatch(line) for line in lines_with(log_output, "Not Found")]
    assert [matched["id"] for matched in logged if matched] == ids
    assert "FORGED" not in log_output.getvalue()


@pytest.mark.django_db
@pytest.mark.asyncio
async def test_an_asgi_request_log_line_carries_its_id(log_output: io.StringIO) -> None:
    """Under ASGI the middleware runs in a thread: the id still reaches the line Django writes
    after the response has come back through it."""
    response = await AsyncClient().get("/no-such-page/", headers={"x-request-id": "asgi-77"})
    assert response["X-Request-ID"] == "asgi-77"
    [line] = lines_with(log_output, "Not Found")
    matched = LINE.fullmatch(line)
    assert matched and matched["id"] == "asgi-77", line


def test_a_line_outside_any_request_has_no_ids(log_output: io.StringIO) -> None:
    logging.getLogger("games.runner").warning("a runner's line")
    [line] = lines_with(log_output, "a runner's line")
    assert line.endswith(" WARNING games.runner: a runner's line")


@pytest.mark.asyncio
async def test_a_table_socket_log_lines_carry_the_table_id(log_output: io.StringIO) -> None:
    """A socket's own lines and those of its database threads carry its id and its table's."""
    logger = logging.getLogger("games.consumers")

    def in_a_database_thread() -> None:
        logger.warning("from a database thread")

    async def consumer(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert (await receive())["type"] == "websocket.connect"
        logger.warning("accepting")
        await database_sync_to_async(in_a_database_thread)()
        await send({"type": "websocket.accept"})

    communicator = WebsocketCommunicator(
        SocketLogContext(consumer), "/ws/tables/42/", headers=[(b"x-request-id", b"sock-1")]
    )
    connected, _ = await communicator.connect()
    assert connected
    await communicator.disconnect()
    for text in ("accepting", "from a database thread"):
        [line] = lines_with(log_output, text)
        assert f"WARNING games.consumers [request=sock-1 table=42]: {text}" in line


def test_the_table_sockets_are_wrapped_in_the_log_context() -> None:
    from channels.routing import ProtocolTypeRouter

    from gandengyan.asgi import application

    router = application.application
    assert isinstance(router, ProtocolTypeRouter)
    assert isinstance(router.application_mapping["websocket"], SocketLogContext)


@pytest.mark.asyncio
async def test_the_runner_started_by_a_socket_does_not_carry_its_ids(
    log_output: io.StringIO,
) -> None:
    """The process's runner may start inside a table socket; its lines must not carry that
    socket's ids ever after. Without database access here its pass fails, which it logs."""
    import asyncio

    from django.test import override_settings

    from games import runner

    with override_settings(TABLE_RUNNER_IN_PROCESS=True, TABLE_RUNNER_INTERVAL_SECONDS=0.05):
        request_id.set("sock-2")
        table_id.set(42)
        runner.ensure_running_in_this_process()
        task = runner._running.pop(id(asyncio.get_running_loop()))
        try:
            for _ in range(200):
                if lines_with(log_output, "the table runner's pass failed"):
                    break
                await asyncio.sleep(0.05)
        finally:
            task.cancel()
    [line, *_] = lines_with(log_output, "the table runner's pass failed")
    assert line.endswith(" ERROR games.runner: the table runner's pass failed"), line
