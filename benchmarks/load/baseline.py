"""The bare transport: what one action costs Channels without the game.

A client's message triggers one ``group_send`` of a fragment-sized frame to its group of three
sockets, and every socket of the group sends that frame on, as the table's consumers send theirs.
No database, no template: the same daphne process, the same channel layer, the same number of
sockets, so the game's cost can be read as a ratio to this one.

The protocol mirrors the table's: a frame starts with ``<section id="table" data-version="0.0.N"``
and the client to move at version ``N`` is seat ``N % 3``; it answers with ``{"version":
"0.0.N"}`` and the next frame is ``N + 1``.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer

#: Frame size when the client does not ask for one: about the size of a table frame.
DEFAULT_FRAME_BYTES = 7000
MAX_FRAME_BYTES = 64_000


def bare_frame(number: int, size: int) -> str:
    """A frame of about ``size`` bytes whose version is ``0.0.number``."""
    head = f'<section id="table" data-version="0.0.{number}" data-status="bare">'
    return head + "x" * max(0, size - len(head) - 10) + "</section>"


class BareConsumer(AsyncWebsocketConsumer):
    """``/ws/bare/<group>/?bytes=N``: one ``group_send`` per message received."""

    group: str
    size: int

    async def connect(self) -> None:
        self.group = f"bare-{self.scope['url_route']['kwargs']['group']}"
        query = parse_qs((self.scope.get("query_string") or b"").decode("latin-1"))
        try:
            size = int((query.get("bytes") or [DEFAULT_FRAME_BYTES])[0])
        except ValueError:
            size = DEFAULT_FRAME_BYTES
        self.size = min(max(size, 0), MAX_FRAME_BYTES)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            version = json.loads(text_data or "")["version"]
            number = int(str(version).rsplit(".", 1)[-1])
        except (ValueError, KeyError, TypeError):
            return
        await self.channel_layer.group_send(
            self.group, {"type": "bare.frame", "text": bare_frame(number + 1, self.size)}
        )

    async def bare_frame(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])
