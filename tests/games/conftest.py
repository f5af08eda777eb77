"""Fixtures of the games tests: a room, a table and three players with coins, and the live
table's channel layer for tests that talk to the sockets."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from django.db import connections
from django.test import override_settings

from accounts.models import User
from games import socket_limits
from games.models import Room, Table
from tests.games.helpers import make_player, make_room


@pytest.fixture
def room(db: None) -> Room:
    return make_room()


@pytest.fixture
def table(room: Room) -> Table:
    return Table.objects.create(room=room)


@pytest.fixture
def trio(db: None) -> list[User]:
    """Three players with 100,000 coins each."""
    return [make_player(name) for name in ("zhao", "qian", "sun")]


@pytest.fixture
def outsider(db: None) -> User:
    return make_player("li")


@pytest.fixture
def staff(db: None) -> User:
    return User.objects.create_superuser(username="boss", password="pw-123456")


@pytest_asyncio.fixture
async def live_layer_no_runner() -> AsyncIterator[None]:
    """A channel layer made in the test's event loop; the runner stays off, so that the test
    moves the bots and the clocks itself, in a known order. The connections the consumers'
    database thread kept open are closed after, so that the test database can be dropped."""
    channel_layers.backends.clear()
    socket_limits.reset()
    # The tests act far faster than a person; a test of the flood limit sets its own.
    with override_settings(TABLE_RUNNER_IN_PROCESS=False, TABLE_MESSAGE_RATE="1000/second"):
        yield
    await database_sync_to_async(connections.close_all)()  # Channels' own thread's
    channel_layers.backends.clear()
