"""High card (``tests.games.toy``), a second game, through the whole live stack: the lobby's
Play seats players at a table of the engine's size, the runner seats a bot and plays its turns
and a timeout, people act over real websockets (consumer, decisions, services), every frame is
rendered with the game's own templates and shows a seat only its own hidden cards, the game
settles into the ledger, and 再来一局 deals the next one. Nothing here knows 干瞪眼."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import connections
from django.db.models import Sum
from django.test import override_settings

from accounts.models import LedgerEntry
from games import services, socket_limits
from games.engines import engine_for
from games.frames import table_view
from games.models import Game, Room, Table
from games.runner import run_due_work
from tests.games.helpers import balance, make_player, make_room
from tests.games.live import connect, current_version, intent, version_of
from tests.games.toy import ENGINE
from tests.games.toy.rules import HighcardState

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

ENGINES = [*settings.GAME_ENGINES, "tests.games.toy.ENGINE"]
HIDDEN_CARD = re.compile(r'data-hidden-card="(\d+)"')
SHOWN_CARD = re.compile(r'data-shown-card="(\d+)"')
BASE = 400


@pytest_asyncio.fixture(autouse=True)
async def _toy_installed() -> AsyncIterator[None]:
    """High card installed beside 干瞪眼, a channel layer of this test's event loop, and no
    runner in the process: the test runs it itself, at the times it chooses."""
    channel_layers.backends.clear()
    socket_limits.reset()
    with override_settings(
        GAME_ENGINES=ENGINES, TABLE_RUNNER_IN_PROCESS=False, TABLE_MESSAGE_RATE="1000/second"
    ):
        yield
    await database_sync_to_async(connections.close_all)()
    channel_layers.backends.clear()


def _toy_room() -> Room:
    room = make_room(code="toy", base=BASE)
    room.game = ENGINE.key
    room.full_clean()
    room.save(update_fields=["game"])
    return room


def toy_state_at(game: Game, events: int) -> HighcardState:
    """The game's position after its first ``events`` stored actions, through the engine."""
    engine = engine_for(game.game)
    options = engine.options_from_json(game.rules)
    state = engine.deal_from_json({"dealer": game.dealer, "hands": game.hands}, options)
    for seat, action in game.events.order_by("number").values_list("seat", "action")[:events]:
        state = state.apply(seat, engine.action_from_json(action))
    assert isinstance(state, HighcardState)
    return state


def check_toy_frame(frame: str, *, seat: int | None) -> tuple[str, HighcardState | None]:
    """Assert that ``frame`` shows ``seat`` exactly its own hidden cards and only revealed ones
    on the board, at the position its version names; returns the version and the position."""
    version = version_of(frame)
    assert version is not None, frame[:300]
    assert 'class="seat' in frame and 'id="notice"' in frame
    _table, game_id, events = version.split(".")
    if game_id == "0":
        assert not HIDDEN_CARD.search(frame) and not SHOWN_CARD.search(frame)
        return version, None
    game = Game.objects.get(pk=int(game_id))
    assert game.game == ENGINE.key
    state = toy_state_at(game, int(events))
    own = [] if seat is None or state.is_terminal else sorted(state.hidden(seat))
    assert sorted(map(int, HIDDEN_CARD.findall(frame))) == own, (seat, version)
    revealed = {card for cards in state.shown for card in cards}
    assert set(map(int, SHOWN_CARD.findall(frame))) <= revealed
    # The frame is the toy's, not 干瞪眼's.
    assert "stock-count" not in frame and 'id="hand-form"' not in frame
    return version, state


async def _frames_until(socket: WebsocketCommunicator, *, seat: int, version: str) -> str:
    """Receive and check frames until one shows ``version``; returns it."""
    while True:
        text = await socket.receive_from(timeout=10)
        if version_of(text) is None:
            continue
        seen, _state = await database_sync_to_async(check_toy_frame)(text, seat=seat)
        if seen == version:
            return text


async def _version(table_id: int) -> str:
    return await database_sync_to_async(current_version)(table_id)


async def _wait_for_change(table_id: int, version: str) -> str:
    for _ in range(500):
        now = await _version(table_id)
        if now != version:
            return now
        await asyncio.sleep(0.01)
    raise AssertionError(f"table {table_id} stayed at version {version}")


def _seat_count(table_id: int) -> int:
    return Table.objects.get(pk=table_id).seats.count()


def _latest_game(table_id: int) -> Game:
    game = Game.objects.filter(table_id=table_id).order_by("-number").first()
    assert game is not None
    return game


def _fill_with_a_bot(table_id: int) -> Game:
    """The runner seats a bot once the table has waited long enough, and the game is dealt."""
    table = Table.objects.get(pk=table_id)
    assert table.waiting_since is not None
    later = table.waiting_since + timedelta(seconds=settings.BOT_FILL_SECONDS + 1)
    assert run_due_work(now=later) >= 1
    return _latest_game(table_id)


def _run_due(game: Game) -> int:
    """The runner, just after the turn of ``game``'s seat to move is due."""
    game.refresh_from_db()
    assert game.turn_deadline is not None
    return run_due_work(now=game.turn_deadline + timedelta(milliseconds=1))


def _timeout(game: Game) -> dict[str, Any]:
    """The seat to move lets its time run out: ``game_turn_due`` plays for it."""
    game.refresh_from_db()
    assert game.turn_deadline is not None
    event = services.game_turn_due(game=game, now=game.turn_deadline + timedelta(seconds=1))
    assert event is not None
    return dict(event.action)


def _ledger_of(game: Game) -> list[LedgerEntry]:
    return list(LedgerEntry.objects.filter(game=game))


@pytest.mark.asyncio
async def test_two_people_and_a_bot_play_high_card_over_websockets_and_play_again() -> None:
    room = await database_sync_to_async(_toy_room)()
    users = [await database_sync_to_async(make_player)(name) for name in ("zhao", "qian")]
    before = [await database_sync_to_async(balance)(user) for user in users]
    seats: list[int] = []
    table_id = 0
    for user in users:
        table, seat = await database_sync_to_async(services.table_play)(user=user, room=room)
        seats.append(seat)
        table_id = table.pk
    assert seats == [0, 1]
    assert await database_sync_to_async(_seat_count)(table_id) == ENGINE.default_options.players
    sockets = [await connect(user, table_id, language="en") for user in users]
    try:
        version = await _version(table_id)
        for seat, socket in zip(seats, sockets, strict=True):
            await _frames_until(socket, seat=seat, version=version)

        game = await database_sync_to_async(_fill_with_a_bot)(table_id)
        assert game.game == ENGINE.key and game.status == Game.Status.PLAYING
        version = await _version(table_id)
        timed_out = False
        while True:
            frames = [
                await _frames_until(socket, seat=seat, version=version)
                for seat, socket in zip(seats, sockets, strict=True)
            ]
            await database_sync_to_async(game.refresh_from_db)()
            if game.status != Game.Status.PLAYING:
                break
            _seen, state = await database_sync_to_async(check_toy_frame)(frames[0], seat=0)
            assert state is not None and state.to_move == game.to_move
            to_move = game.to_move
            assert to_move is not None
            if to_move == 2:
                # The bot's turn: the runner plays it, revealing its highest card.
                hidden = max(state.hidden(2))
                assert await database_sync_to_async(_run_due)(game) == 1
                event = await database_sync_to_async(game.events.order_by("-number").first)()
                assert event is not None and event.action == {"reveal": hidden}
            elif not timed_out:
                # A person's time runs out: the lowest hidden card is revealed for them.
                timed_out = True
                lowest = min(state.hidden(to_move))
                assert await database_sync_to_async(_timeout)(game) == {"reveal": lowest}
            else:
                frame = frames[seats.index(to_move)]
                assert 'data-my-turn="true"' in frame and "Your turn: reveal" in frame
                card = max(map(int, HIDDEN_CARD.findall(frame)))
                move = json.dumps({"reveal": card})
                assert f"value='{move}'" in frame  # the form the page sends
                await sockets[seats.index(to_move)].send_to(
                    text_data=intent("act", move=move, version=version)
                )
            version = await _wait_for_change(table_id, version)
        assert timed_out
        # Everyone sees the settlement, the seed and every card, now that the game is over.
        for frame in frames:
            assert 'class="settlement"' in frame and game.seed in frame
            assert len(SHOWN_CARD.findall(frame)) == 6
    finally:
        for socket in sockets:
            await socket.disconnect()

    await database_sync_to_async(game.refresh_from_db)()
    assert game.settled_at is not None and game.winner is not None
    ledger = await database_sync_to_async(_ledger_of)(game)
    assert ledger and sum(entry.amount for entry in ledger) == 0
    after = [await database_sync_to_async(balance)(user) for user in users]
    for seat, (was, now) in enumerate(zip(before, after, strict=True)):
        assert now - was == (2 * BASE if game.winner == seat else -BASE)

    # 再来一局: both people press Play again over their sockets; the bot is ready already.
    sockets = [await connect(user, table_id, language="en") for user in users]
    try:
        version = await _version(table_id)
        for seat, socket in zip(seats, sockets, strict=True):
            frame = await _frames_until(socket, seat=seat, version=version)
            assert 'data-action="again"' in frame
        for socket in sockets:
            await socket.send_to(text_data=intent("again"))
            version = await _wait_for_change(table_id, version)
        # The last 再来一局 marks its player ready and deals: the frames to wait for are the
        # deal's, whichever of the two changes the version read above was.
        for _ in range(500):
            if (await database_sync_to_async(_latest_game)(table_id)).number == 2:
                break
            await asyncio.sleep(0.01)
        version = await _version(table_id)
        following = await database_sync_to_async(_latest_game)(table_id)
        assert following.number == 2 and following.game == ENGINE.key
        assert following.status == Game.Status.PLAYING
        assert following.dealer == game.winner  # the winner deals
        for seat, socket in zip(seats, sockets, strict=True):
            await _frames_until(socket, seat=seat, version=version)
    finally:
        for socket in sockets:
            await socket.disconnect()


@pytest.mark.asyncio
async def test_a_refused_or_malformed_act_changes_nothing_and_says_so() -> None:
    room = await database_sync_to_async(_toy_room)()
    users = [await database_sync_to_async(make_player)(name) for name in ("zhao", "qian")]
    table_id = 0
    for user in users:
        table, _seat = await database_sync_to_async(services.table_play)(user=user, room=room)
        table_id = table.pk
    game = await database_sync_to_async(_fill_with_a_bot)(table_id)
    version = await _version(table_id)
    to_move = game.to_move
    socket = await connect(users[0], table_id, language="en")
    try:
        await _frames_until(socket, seat=0, version=version)
        state = await database_sync_to_async(toy_state_at)(game, 0)
        not_held = next(card for card in range(7, 15) if card not in state.hidden(0))
        messages = [
            {"move": json.dumps({"reveal": not_held})},
            {"move": "{not json"},
            {"move": json.dumps(["reveal", 9])},
            {"move": json.dumps({"play": "3s"})},
        ]
        expected = [
            "It is not your turn." if to_move != 0 else "That action is not allowed now.",
            "That action was not understood.",
            "That action was not understood.",
            "That action was not understood.",
        ]
        for message, words in zip(messages, expected, strict=True):
            await socket.send_to(text_data=intent("act", **message, version=version))
            reply = await socket.receive_from(timeout=10)
            assert 'id="notice"' in reply and words in reply, reply[:300]
        assert await _version(table_id) == version
    finally:
        await socket.disconnect()


def test_the_views_of_a_toy_table_hold_only_the_viewers_own_cards(
    transactional_db: None,
) -> None:
    room = _toy_room()
    users = [make_player(name) for name in ("zhao", "qian", "sun")]
    table = None
    for user in users:
        table, _seat = services.table_play(user=user, room=room)
    assert table is not None
    game = _latest_game(table.pk)
    state = toy_state_at(game, 0)
    table = Table.objects.select_related("room").get(pk=table.pk)
    for seat in (None, 0, 1, 2):
        view = table_view(table=table, seat=seat)
        engine_view = view["game"]["view"]
        assert engine_view == state.view(seat, history=False)
        text = json.dumps(view)
        assert ("hand" in engine_view) == (seat is not None)
        if seat is not None:
            assert engine_view["hand"] == list(state.hidden(seat))
            moving = seat == state.to_move
            hints = [ENGINE.action_to_json(a) for a in state.legal_actions(seat)]
            assert view["game"]["hints"] == (hints if moving else None)
        for other in range(3):
            if other != seat:
                assert str(state.hands[other]) not in text
    assert LedgerEntry.objects.filter(game=game).aggregate(total=Sum("amount"))["total"] is None
