"""Websocket paths the site has no socket at."""

from __future__ import annotations

import logging

import pytest
from channels.testing import WebsocketCommunicator

from gandengyan.asgi import application

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("path", ["/ws/nope/", "/ws/tables/abc/", "/", "/ws/tables/1/x/"])
async def test_a_socket_to_an_unknown_path_is_refused_without_an_error(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    headers = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]
    communicator = WebsocketCommunicator(application, path, headers=headers)
    with caplog.at_level(logging.INFO):
        connected, _code = await communicator.connect(timeout=5)
        await communicator.disconnect(timeout=5)
    assert not connected
    assert [record for record in caplog.records if record.levelno >= logging.ERROR] == []
