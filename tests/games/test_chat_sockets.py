"""Quick phrases over the table's websocket, through the site's real ASGI stack and the channel
layer of the run (in memory by default, Redis when REDIS_URL is set): who may speak, who hears,
and that a phrase never changes the table's frame or version."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import Table, TableMessage
from tests.games.helpers import make_player, make_room
from tests.games.live import connect, current_version, intent

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.usefixtures("live_layer_no_runner"),
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

BUBBLE = re.compile(
    r'<p class="chat-bubble chat-bubble-(\w+)" data-chat-id="(\d+)" data-chat-seat="(\d)"'
)


@dataclass
class Sockets:
    table: Table
    zhao: User
    qian: User
    watcher: User
    seat_of: dict[int, int]
    sockets: dict[str, WebsocketCommunicator]


def _two_at_a_table() -> tuple[Table, User, User, User, dict[int, int]]:
    room = make_room()
    zhao, qian, watcher = make_player("zhao"), make_player("qian"), make_player("kan")
    table, _seat = services.table_play(user=zhao, room=room)
    services.table_play(user=qian, room=room)  # two of three seats: no game starts
    seats = dict(table.seats.filter(user__isnull=False).values_list("user_id", "position"))
    return table, zhao, qian, watcher, seats


@pytest_asyncio.fixture
async def table_sockets() -> AsyncIterator[Sockets]:
    table, zhao, qian, watcher, seats = await database_sync_to_async(_two_at_a_table)()
    sockets = {}
    for name, user in (("zhao", zhao), ("qian", qian), ("watcher", watcher)):
        socket = await connect(user, table.pk)
        await socket.receive_from(timeout=10)  # the first frame
        sockets[name] = socket
    try:
        yield Sockets(table, zhao, qian, watcher, seats, sockets)
    finally:
        for socket in sockets.values():
            await socket.disconnect()


async def test_a_phrase_reaches_every_socket_as_a_bubble_by_its_seat(
    table_sockets: Sockets,
) -> None:
    t = table_sockets
    version = await database_sync_to_async(current_version)(t.table.pk)
    await t.sockets["zhao"].send_to(text_data=intent("say", phrase="well_played"))
    stored = None
    for name in ("zhao", "qian", "watcher"):
        text = await t.sockets[name].receive_from(timeout=10)
        match = BUBBLE.search(text)
        assert match is not None, text
        assert 'id="chat-bubbles" hx-swap-oob="beforeend"' in text
        assert match.group(1) == "phrase"
        assert int(match.group(3)) == t.seat_of[t.zhao.pk]
        assert 'data-phrase="well_played"' in text
        assert 'id="table"' not in text  # no frame: the table did not change
        stored = stored or await database_sync_to_async(TableMessage.objects.get)()
        assert int(match.group(2)) == stored.pk
        assert await t.sockets[name].receive_nothing(timeout=0.2)
    assert await database_sync_to_async(current_version)(t.table.pk) == version


async def test_an_emote_is_shown_with_its_name_in_the_sockets_language(
    table_sockets: Sockets,
) -> None:
    t = table_sockets
    english = await connect(t.watcher, t.table.pk, language="en")
    await english.receive_from(timeout=10)
    await t.sockets["qian"].send_to(text_data=intent("say", phrase="rose"))
    text = await english.receive_from(timeout=10)
    assert 'class="chat-bubble chat-bubble-emote"' in text
    assert 'data-label="A rose"' in text
    assert "🌹" in text
    await english.disconnect()


async def test_a_muted_player_is_not_heard_by_the_one_who_muted_them(
    table_sockets: Sockets,
) -> None:
    t = table_sockets
    await database_sync_to_async(services.player_mute)(
        user=t.qian, muted_id=t.zhao.pk, table=t.table
    )
    await t.sockets["zhao"].send_to(text_data=intent("say", phrase="hello"))
    assert BUBBLE.search(await t.sockets["zhao"].receive_from(timeout=10))  # one's own
    assert BUBBLE.search(await t.sockets["watcher"].receive_from(timeout=10))
    assert await t.sockets["qian"].receive_nothing(timeout=0.5)
    # Qian still speaks to zhao, who muted nobody.
    await t.sockets["qian"].send_to(text_data=intent("say", phrase="friends"))
    assert BUBBLE.search(await t.sockets["zhao"].receive_from(timeout=10))


async def test_a_player_with_phrases_off_hears_none(table_sockets: Sockets) -> None:
    t = table_sockets

    def phrases_off() -> None:
        User.objects.filter(pk=t.watcher.pk).update(phrases_on=False)

    await database_sync_to_async(phrases_off)()
    await t.sockets["zhao"].send_to(text_data=intent("say", phrase="bomb"))
    assert BUBBLE.search(await t.sockets["qian"].receive_from(timeout=10))
    assert await t.sockets["watcher"].receive_nothing(timeout=0.5)


async def test_a_spectator_may_not_speak(table_sockets: Sockets) -> None:
    t = table_sockets
    await t.sockets["watcher"].send_to(text_data=intent("say", phrase="hello"))
    text = await t.sockets["watcher"].receive_from(timeout=10)
    assert 'id="notice"' in text and "is-shown" in text
    assert await t.sockets["zhao"].receive_nothing(timeout=0.3)
    assert not await database_sync_to_async(TableMessage.objects.exists)()


@pytest.mark.parametrize(
    "message",
    [
        intent("say", phrase="free text"),
        intent("say", phrase=["hello"]),
        intent("say"),
        intent("say", phrase="x" * 5000),
    ],
)
async def test_anything_but_a_listed_id_is_refused(table_sockets: Sockets, message: str) -> None:
    t = table_sockets
    await t.sockets["zhao"].send_to(text_data=message)
    text = await t.sockets["zhao"].receive_from(timeout=10)
    assert 'id="notice"' in text and "is-shown" in text
    assert "chat-bubble" not in text
    assert await t.sockets["qian"].receive_nothing(timeout=0.3)
    assert not await database_sync_to_async(TableMessage.objects.exists)()


async def test_too_fast_is_refused_to_the_sender_only(table_sockets: Sockets) -> None:
    t = table_sockets
    await t.sockets["zhao"].send_to(text_data=intent("say", phrase="hurry"))
    assert BUBBLE.search(await t.sockets["zhao"].receive_from(timeout=10))
    assert BUBBLE.search(await t.sockets["qian"].receive_from(timeout=10))
    await t.sockets["zhao"].send_to(text_data=intent("say", phrase="hurry"))
    text = await t.sockets["zhao"].receive_from(timeout=10)
    assert 'id="notice"' in text and "is-shown" in text and "chat-bubble" not in text
    assert await t.sockets["qian"].receive_nothing(timeout=0.3)
    assert await database_sync_to_async(TableMessage.objects.count)() == 1


async def test_a_player_muted_by_staff_is_told_why(table_sockets: Sockets) -> None:
    t = table_sockets
    await database_sync_to_async(services.user_chat_ban)(
        user_id=t.zhao.pk, until=timezone.now() + timedelta(hours=24)
    )
    await t.sockets["zhao"].send_to(text_data=intent("say", phrase="hello"))
    text = await t.sockets["zhao"].receive_from(timeout=10)
    assert 'id="notice"' in text and "is-shown" in text
    assert await t.sockets["qian"].receive_nothing(timeout=0.3)
