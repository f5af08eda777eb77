"""A spectator who sits down, with real daphne workers on PostgreSQL and Redis: the player's
socket, open as a spectator's before the deal, and two other spectators' sockets are on one
worker, in English (not the site's default language, so each renders its own frames); the
player presses 开始游戏 in the room through the other worker, takes the table's last seat and the
game is dealt at once. No frame a spectator receives holds a card of any hand."""

from __future__ import annotations

import asyncio
import re
import urllib.parse
import urllib.request

import pytest
import websockets
from django.test import Client

from accounts.models import User
from games import services
from games.models import Table
from tests.games.helpers import make_player, make_room
from tests.games.live import check_frame, version_of
from tests.test_workers import Worker, in_thread, workers

__all__ = ["workers"]  # the fixture, shared with the other tests of workers

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def _session(user: User) -> str:
    client = Client()
    client.force_login(user)
    return str(client.cookies["sessionid"].value)


def _press_play(worker: Worker, room_code: str, session: str) -> int:
    """开始游戏 on the room's page, as the browser sends it to ``worker``; the answer's status."""
    base = f"http://127.0.0.1:{worker.port}"
    opener = urllib.request.build_opener(_NoRedirect)
    page = opener.open(
        urllib.request.Request(
            f"{base}/rooms/{room_code}/",
            headers={"Cookie": f"sessionid={session}; django_language=en"},
        ),
        timeout=15,
    )
    html = page.read().decode()
    token = CSRF_FIELD.search(html)
    assert token is not None, html[:500]
    cookie = page.headers.get_all("Set-Cookie") or []
    csrf = next(
        part.split("=", 1)[1]
        for header in cookie
        for part in header.split(";")[:1]
        if part.startswith("csrftoken=")
    )
    request = urllib.request.Request(
        f"{base}/rooms/{room_code}/play/",
        data=urllib.parse.urlencode({"csrfmiddlewaretoken": token.group(1)}).encode(),
        headers={
            "Cookie": f"sessionid={session}; csrftoken={csrf}; django_language=en",
            "Referer": f"{base}/rooms/{room_code}/",
        },
        method="POST",
    )
    try:
        return int(opener.open(request, timeout=15).status)
    except urllib.error.HTTPError as answer:
        return int(answer.code)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


def _table_waiting_for_one(room_code: str) -> tuple[Table, User]:
    room = make_room(code=room_code, rules={"players": 3})
    table = None
    for name in ("dong", "nan"):
        table, _seat = services.table_play(user=make_player(name), room=room)
    assert table is not None
    table.refresh_from_db()
    assert table.status == Table.Status.WAITING
    return table, make_player("xi")


async def _open(worker: Worker, table_id: int, session: str) -> websockets.ClientConnection:
    return await websockets.connect(
        f"{worker.url}/ws/tables/{table_id}/",
        origin=websockets.Origin("http://127.0.0.1"),
        additional_headers={"Cookie": f"sessionid={session}; django_language=en"},
        open_timeout=10,
    )


async def _frames_until_dealt(socket: websockets.ClientConnection, seat: int | None) -> int:
    """Receive and check frames for ``seat`` until one shows a game; how many came."""
    count = 0
    while True:
        text = await asyncio.wait_for(socket.recv(), timeout=20)
        assert isinstance(text, str)
        version = version_of(text)
        if version is None:
            continue
        count += 1
        await in_thread(check_frame, text, seat=seat)
        assert seat is not None or 'id="hand-form"' not in text
        if version.split(".")[1] != "0":
            return count


def test_a_spectator_who_sits_down_on_another_worker_leaks_no_hand(
    workers: list[Worker],
) -> None:
    table, newcomer = _table_waiting_for_one("sit-down")
    watchers = [make_player(name) for name in ("kan", "wang")]
    sessions = [_session(user) for user in (newcomer, *watchers)]

    async def scenario() -> None:
        first, second = workers
        # The newcomer's socket first, so that it is the first spectator to hear of the deal.
        sockets = [await _open(first, table.pk, session) for session in sessions]
        for socket in sockets:
            text = await asyncio.wait_for(socket.recv(), timeout=20)
            assert version_of(str(text)) is not None
        status = await asyncio.to_thread(_press_play, second, "sit-down", sessions[0])
        assert status == 302
        seat = await in_thread(lambda: table.seats.get(user=newcomer).position)
        for socket in sockets[1:]:
            assert await _frames_until_dealt(socket, None) >= 1
        assert await _frames_until_dealt(sockets[0], seat) >= 1
        for socket in sockets:
            await socket.close()

    asyncio.run(scenario())
