"""Fixtures of the games tests: a room, a table and three players with coins."""

from __future__ import annotations

import pytest

from accounts.models import User
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
