"""Helpers for tests of the live table: websocket clients through the site's real ASGI stack
(origin check, session cookie, routing), and checks on the frames they receive."""

from __future__ import annotations

import json
import random
import re
import uuid
from collections.abc import Callable
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.models import User
from games.models import Game, Table
from games.rules.cards import cards_from_mask
from games.rules.gandengyan import PASS, GameState, GandengyanRules, Play
from games.rules.gandengyan.moves import move_from_json
from games.selectors import game_state
from gandengyan.asgi import application

VERSION = re.compile(r'id="table"[^>]*data-version="([^"]+)"', re.S)
DATA_CARD = re.compile(r'data-card="([^"]+)"')
# Card codes anywhere in the text, as words: "5s", "Th", "BJ" ...
CARD_WORD = re.compile(r"(?<![0-9A-Za-z])([2-9TJQKA][shdc]|BJ|RJ)(?![0-9A-Za-z])")
SEED = re.compile(r'<code class="seed"[^>]*>[0-9a-f]*</code>')


def choose_intent(game: Game, rng: random.Random) -> tuple[int, dict[str, Any]]:
    """The seat to move in ``game`` and a legal intent for it as a client sends it, picked at
    random among the engine's legal moves (mostly plays, so that games stay short)."""
    return random_intent(game_state(game=game), rng)


def random_intent(state: GameState, rng: random.Random) -> tuple[int, dict[str, Any]]:
    """``choose_intent`` for the position ``state`` of a game being played."""
    moves = state.legal_moves()
    plays = [move for move in moves if isinstance(move, Play)]
    move = rng.choice(plays if plays and rng.random() < 0.8 else moves)
    assert state.to_move is not None
    if move is PASS:
        return state.to_move, {"action": "pass"}
    assert isinstance(move, Play) and move.combo is not None
    cards = [str(card) for card in move.cards]
    return state.to_move, {"action": "play", "cards": cards, "as": move.combo.ranks_text()}


def session_cookie(user: User) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


async def connect(
    user: User | None, table_id: int, *, language: str = "zh-hans", query: str = ""
) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]
    cookies = [f"django_language={language}"]
    if user is not None:
        cookies.append(f"sessionid={await database_sync_to_async(session_cookie)(user)}")
    headers.append((b"cookie", "; ".join(cookies).encode()))
    path = f"/ws/tables/{table_id}/" + (f"?{query}" if query else "")
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _code = await communicator.connect(timeout=10)
    assert connected
    return communicator


def version_of(frame: str) -> str | None:
    match = VERSION.search(frame)
    return match.group(1) if match else None


def intent(action: str, **fields: Any) -> str:
    """A message as the table page sends it: the form's fields, HEADERS (htmx's websocket
    extension) and a fresh ``action_id`` (static/js/table.js), unless ``fields`` give one."""
    message = {"action": action, "action_id": uuid.uuid4().hex, **fields}
    return json.dumps({**message, "HEADERS": {"HX-Request": "true"}})


def state_at(game: Game, events: int) -> GameState:
    """The game's position after its first ``events`` stored actions."""
    rules = GandengyanRules.from_dict(game.rules)
    state = GameState.from_position(game.hands, game.stock, game.dealer, rules=rules)
    actions = list(game.events.order_by("number").values_list("seat", "action")[:events])
    for seat, action in actions:
        state = state.apply(seat, move_from_json(action))
    return state


def hidden_cards(state: GameState, seat: int | None) -> set[str]:
    """The cards ``seat`` may not see in ``state``: every other hand and the stock."""
    hidden = {str(card) for card in state.stock_cards()}
    for other in range(state.players):
        if other != seat:
            hidden |= {str(card) for card in cards_from_mask(state.hands[other])}
    return hidden


def check_frame(frame: str, *, seat: int | None) -> str:
    """Assert that ``frame`` (a whole-table frame) shows ``seat`` no card it may not see, at the
    position its version names; returns the version."""
    version = version_of(frame)
    assert version is not None, frame[:300]
    table_version, game_id, events = version.split(".")
    if game_id == "0":
        assert not DATA_CARD.search(frame)
        return version
    game = Game.objects.get(pk=int(game_id))
    state = state_at(game, int(events))
    hidden = hidden_cards(state, seat)
    if state.is_terminal:
        # 亮牌: once the game is over its hands are public; the stock never is.
        hidden = set(map(str, state.stock_cards()))
    shown = set(DATA_CARD.findall(frame)) | set(CARD_WORD.findall(SEED.sub("", frame)))
    leaked = shown & hidden
    assert not leaked, f"seat {seat} was shown {sorted(leaked)} at {version}"
    if seat is None:
        assert 'name="cards"' not in frame and 'id="hand-form"' not in frame
    if game.status == Game.Status.PLAYING and game.seed:
        assert game.seed not in frame
    return version


async def receive_frames_until(
    communicator: WebsocketCommunicator, *, seat: int | None, version: str, timeout: float = 10
) -> list[str]:
    """Receive (and check) frames until one shows ``version``; returns all received."""
    frames = []
    while True:
        text = await communicator.receive_from(timeout=timeout)
        frames.append(text)
        if version_of(text) is None:
            continue
        seen = await database_sync_to_async(check_frame)(text, seat=seat)
        if seen == version:
            return frames


def current_version(table_id: int) -> str:
    from games.selectors import table_version

    return table_version(table=Table.objects.get(pk=table_id))


async def follow(
    socket: WebsocketCommunicator,
    *,
    seat: int | None,
    table_id: int,
    old: str | None,
    check: Callable[..., str] | None = None,
) -> tuple[int, str]:
    """Receive (and ``check``: ``check_frame`` by default) frames until the table has moved on
    from ``old`` and a frame shows where it is now; returns how many frames came and that
    version. Where it is now is read once a frame has moved on, so that a change made of two
    commits is followed to its end."""
    check = check or check_frame
    received = 0
    target = None
    while True:
        text = await socket.receive_from(timeout=10)
        received += 1
        if version_of(text) is None:
            continue
        seen = await database_sync_to_async(check)(text, seat=seat)
        if target is None and seen != old:
            target = await database_sync_to_async(current_version)(table_id)
        if target is not None and seen == target:
            return received, target
