"""The live table over websockets, through the site's real ASGI stack and the channel layer of
the run (in memory by default, Redis when REDIS_URL is set).

Every frame a player or spectator receives is checked against the game's position at the
version the frame names: it holds no card of another seat's hand nor of the stock.
"""

from __future__ import annotations

import asyncio
import json
import os
import random

import pytest
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import override_settings
from django.utils import timezone, translation

from accounts.models import LedgerEntry, User
from games import services
from games.frames import render_frame_for_user
from games.models import Game, GameEvent, Room, Seat, Table
from tests.games.helpers import balance, make_player, make_room, start_from_position
from tests.games.live import (
    check_frame,
    choose_intent,
    connect,
    current_version,
    follow,
    intent,
    receive_frames_until,
    version_of,
)

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.usefixtures("live_layer_no_runner"),
    # Real commits, as the consumers see them; the rooms the migrations made are restored after.
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

ON_POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
# The 200 games are played on the embedded default; the PostgreSQL run, which repeats them over
# Redis, plays fewer to stay short. TEST_LIVE_GAMES sets the number.
GAMES = int(os.environ.get("TEST_LIVE_GAMES", "60" if ON_POSTGRES else "200"))
SPECTATED = 20  # the spectator watches the first games (spectators have their own tests too)


def _table_with_bots(user: User, room: Room) -> Table:
    table, _seat = services.table_play(user=user, room=room)
    services.table_call_bots(user=user, table=table)
    table.refresh_from_db()
    return table


def _latest_game(table_id: int) -> Game:
    return Game.objects.filter(table_id=table_id).order_by("-number").first()  # type: ignore[return-value]


async def test_200_games_against_bots_never_show_a_hidden_card() -> None:
    """A player at seat 0 plays 200 games (on PostgreSQL 60) against two bots, by intents over
    the socket, while a spectator watches the first of them; every frame of both is checked."""
    room = await database_sync_to_async(make_room)()
    player = await database_sync_to_async(make_player)("wang", coins=10**9)
    watcher = await database_sync_to_async(make_player)("kan", coins=10**9)
    table = await database_sync_to_async(_table_with_bots)(player, room)
    socket = await connect(player, table.pk)
    spectator: WebsocketCommunicator | None = await connect(watcher, table.pk)
    rng = random.Random(20261129)
    frames = 0
    finished = 0
    try:
        version = await _version(table.pk)
        frames += len(await receive_frames_until(socket, seat=0, version=version))
        assert spectator is not None
        frames += len(await receive_frames_until(spectator, seat=None, version=version))
        while True:
            game = await database_sync_to_async(_latest_game)(table.pk)
            if game.status != Game.Status.PLAYING:
                finished += 1
                if finished == GAMES:
                    break
                if finished == SPECTATED:
                    await spectator.disconnect()
                    spectator = None
                await socket.send_to(text_data=intent("again"))
            else:
                seat, chosen = await database_sync_to_async(choose_intent)(game, rng)
                if seat == 0:
                    await socket.send_to(text_data=intent(**chosen, version=version))
                else:
                    await database_sync_to_async(services.bot_take_turn)(game=game)
            received, version = await follow(socket, seat=0, table_id=table.pk, old=version)
            frames += received
            if spectator is not None:
                frames += len(await receive_frames_until(spectator, seat=None, version=version))
    finally:
        await socket.disconnect()
        if spectator is not None:
            await spectator.disconnect()
    assert finished == GAMES
    assert await database_sync_to_async(Game.objects.filter(table=table).count)() == GAMES
    assert frames > GAMES * 10


async def _wait_for_change(table_id: int, version: str | None) -> str:
    """The table's version once it differs from ``version`` (the intent has been handled)."""
    for _ in range(500):
        now = await _version(table_id)
        if now != version:
            return now
        await asyncio.sleep(0.01)
    raise AssertionError(f"table {table_id} stayed at version {version}")


async def _version(table_id: int) -> str:
    return await database_sync_to_async(current_version)(table_id)


# Three people at one table -----------------------------------------------------------------------


def _seated_table(room: Room, users: list[User]) -> Table:
    """A table where ``users`` sit, with no game yet."""
    table = Table.objects.create(room=room)
    for position, user in enumerate(users):
        table.seats.create(position=position, user=user, ready=True)
    return table


async def test_three_people_play_a_game_and_each_sees_every_move_and_only_their_cards() -> None:
    room = await database_sync_to_async(make_room)()
    users = [await database_sync_to_async(make_player)(name) for name in ("zhao", "qian", "sun")]
    table = await database_sync_to_async(_seated_table)(room, users)
    sockets = [await connect(user, table.pk) for user in users]
    for seat, socket in enumerate(sockets):
        await receive_frames_until(socket, seat=seat, version=await _version(table.pk))
    game = await database_sync_to_async(services.game_start)(table=table, players=users, seed=7)
    rng = random.Random(7)
    version = await _version(table.pk)
    last: list[str] = [""] * 3
    try:
        while True:
            for seat, socket in enumerate(sockets):
                last[seat] = (await receive_frames_until(socket, seat=seat, version=version))[-1]
            await database_sync_to_async(game.refresh_from_db)()
            if game.status != Game.Status.PLAYING:
                break
            seat, chosen = await database_sync_to_async(choose_intent)(game, rng)
            await sockets[seat].send_to(text_data=intent(**chosen, version=version))
            version = await _wait_for_change(table.pk, version)
    finally:
        for socket in sockets:
            await socket.disconnect()
    # Everyone sees the settlement and the seed, now that the game is over.
    for frame in last:
        assert game.seed in frame and 'class="settlement"' in frame
    assert game.settled_at is not None


# Refusals ----------------------------------------------------------------------------------------

HANDS = ["3s 4s 5s 9h 4d BJ", "6h 7h Kd 5c", "8c 9c Qc 6c"]
STOCK = "Ah As Ac Ad 2s 2h 7s 7c"


def _position_table(room: Room, users: list[User]) -> tuple[Table, Game]:
    table = _seated_table(room, users)
    game = start_from_position(table=table, players=users, hands=HANDS, stock=STOCK, dealer=0)
    return table, game


async def _three_at_a_position() -> tuple[list[User], Table, Game]:
    """Players a, b and c at a table playing the game of ``HANDS`` and ``STOCK``."""
    room = await database_sync_to_async(make_room)()
    users = [await database_sync_to_async(make_player)(name) for name in ("a", "b", "c")]
    table, game = await database_sync_to_async(_position_table)(room, users)
    return users, table, game


def _snapshot(table: Table, game: Game, users: list[User]) -> tuple[object, ...]:
    table.refresh_from_db()
    return (
        table.version,
        table.status,
        list(GameEvent.objects.filter(game=game).values_list("number", "seat", "action")),
        [balance(user) for user in users],
        LedgerEntry.objects.count(),
    )


async def _notice(socket: WebsocketCommunicator) -> str:
    """The notice of the next message (after the fresh frame a stale action gets first)."""
    text = await socket.receive_from(timeout=10)
    assert 'id="notice"' in text, text[:200]
    return text


@pytest.mark.parametrize(
    ("seat", "message", "expected"),
    [
        (1, {"action": "play", "cards": ["6h"]}, "还没轮到你"),
        (0, {"action": "play", "cards": ["3s", "9h"]}, "不成牌型"),
        (0, {"action": "play", "cards": ["6h"]}, "你手里没有这些牌"),
        (0, {"action": "pass"}, "必须出牌"),
        (0, {"action": "play", "cards": []}, "请先选择"),
        (0, {"action": "play", "cards": "3s", "as": "7"}, "不能这样出"),
        (0, {"action": "play", "cards": "BJ"}, "王"),
        (0, {"action": "play", "cards": [3, 4]}, "看不懂"),
        (0, {"action": "shuffle"}, "看不懂"),
        (0, {"action": "play", "cards": "3s", "version": "1.1.0"}, "牌局已变化"),
    ],
)
async def test_a_refused_action_gets_a_clear_message_and_changes_nothing(
    seat: int, message: dict[str, object], expected: str
) -> None:
    users, table, game = await _three_at_a_position()
    socket = await connect(users[seat], table.pk)
    version = await _version(table.pk)
    await receive_frames_until(socket, seat=seat, version=version)
    before = await database_sync_to_async(_snapshot)(table, game, users)
    fields = {"version": version, **message}
    await socket.send_to(text_data=intent(**fields))  # type: ignore[arg-type]
    text = await _notice(socket)
    if 'id="table"' in text:  # stale: a fresh frame, then the notice
        check = await database_sync_to_async(check_frame)(text, seat=seat)
        assert check == version
    assert expected in text
    assert await database_sync_to_async(_snapshot)(table, game, users) == before
    await socket.disconnect()


async def test_malformed_frames_are_refused_without_closing_the_socket() -> None:
    users, table, game = await _three_at_a_position()
    socket = await connect(users[0], table.pk)
    await receive_frames_until(socket, seat=0, version=await _version(table.pk))
    before = await database_sync_to_async(_snapshot)(table, game, users)
    for text in ["not json", "[1, 2]", '"play"', "{}", "x" * 10_000, '{"action": null}']:
        await socket.send_to(text_data=text)
        assert "看不懂" in await _notice(socket)
    assert await database_sync_to_async(_snapshot)(table, game, users) == before
    # Still connected: a good action goes through.
    version = await _version(table.pk)
    await socket.send_to(text_data=intent("play", cards=["3s"], version=version))
    await receive_frames_until(socket, seat=0, version=await _wait_for_change(table.pk, version))
    await socket.disconnect()


async def test_an_action_id_is_applied_once_from_any_socket() -> None:
    """A double click sends one action id twice, and a reconnect may send it again on a new
    socket: it is applied once and the repeats are ignored without a word. The same action
    under a new id, on the view it no longer matches, is refused as stale."""
    users, table, game = await _three_at_a_position()
    socket = await connect(users[0], table.pk, language="en")
    version = await _version(table.pk)
    await receive_frames_until(socket, seat=0, version=version)
    play = intent("play", cards=["3s"], version=version)
    await socket.send_to(text_data=play)
    await socket.send_to(text_data=play)  # a double click
    after = await _wait_for_change(table.pk, version)
    await receive_frames_until(socket, seat=0, version=after)

    again = await connect(users[0], table.pk, language="en")  # a reconnect resends it
    await receive_frames_until(again, seat=0, version=after)
    await again.send_to(text_data=play)
    # Silence for the repeats: the next message each socket gets answers a later request.
    for one in (socket, again):
        await one.send_to(text_data="not json")
        assert "not understood" in await _notice(one)

    await socket.send_to(text_data=intent("play", cards=["3s"], version=version))
    assert "The table changed before your action arrived" in await _notice_after_frame(socket)
    events = await database_sync_to_async(list)(
        game.events.values_list("seat", "action", "action_id")
    )
    assert events == [(0, {"play": "3s"}, json.loads(play)["action_id"])]
    await socket.disconnect()
    await again.disconnect()


async def _notice_after_frame(socket: WebsocketCommunicator) -> str:
    text = await socket.receive_from(timeout=10)
    while 'id="notice" class="notice is-shown"' not in text:
        text += await socket.receive_from(timeout=10)
    return text


async def test_a_message_without_an_action_id_is_refused() -> None:
    users, table, game = await _three_at_a_position()
    socket = await connect(users[0], table.pk)
    version = await _version(table.pk)
    await receive_frames_until(socket, seat=0, version=version)
    before = await database_sync_to_async(_snapshot)(table, game, users)
    for action_id in (None, "", "short", 12345678, "x" * 65, "spaces are not ok"):
        message = json.loads(intent("play", cards=["3s"], version=version))
        message["action_id"] = action_id
        await socket.send_to(text_data=json.dumps(message))
        assert "看不懂" in await _notice(socket)
    assert await database_sync_to_async(_snapshot)(table, game, users) == before
    await socket.disconnect()


async def test_a_flood_of_messages_is_cut_off_with_one_notice_and_changes_nothing() -> None:
    users, table, game = await _three_at_a_position()
    socket = await connect(users[1], table.pk)
    version = await _version(table.pk)
    await receive_frames_until(socket, seat=1, version=version)
    before = await database_sync_to_async(_snapshot)(table, game, users)
    with override_settings(TABLE_MESSAGE_RATE="5/minute"):
        for _ in range(40):  # out of turn: each of the first five is refused on its own
            await socket.send_to(text_data=intent("play", cards=["6h"], version=version))
        texts = [await socket.receive_from(timeout=10) for _ in range(6)]
        assert await socket.receive_nothing(timeout=0.5)
    assert sum("还没轮到你" in text for text in texts) == 5
    assert sum("太频繁" in text or "慢一点" in text for text in texts) == 1, texts[-1]
    assert await database_sync_to_async(_snapshot)(table, game, users) == before
    await socket.disconnect()


async def test_a_spectator_cannot_act_and_sees_no_hand() -> None:
    users, table, game = await _three_at_a_position()
    watcher = await database_sync_to_async(make_player)("kan")
    socket = await connect(watcher, table.pk)
    version = await _version(table.pk)
    frames = await receive_frames_until(socket, seat=None, version=version)
    assert 'id="hand-form"' not in frames[-1]
    before = await database_sync_to_async(_snapshot)(table, game, users)
    await socket.send_to(text_data=intent("play", cards=["3s"], version=version))
    assert "你没有坐在这张桌子上" in await _notice(socket)
    assert await database_sync_to_async(_snapshot)(table, game, users) == before
    await socket.disconnect()


async def test_a_joker_play_with_two_meanings_asks_which_one() -> None:
    users, table, game = await _three_at_a_position()
    socket = await connect(users[0], table.pk)
    version = await _version(table.pk)
    await receive_frames_until(socket, seat=0, version=version)
    await socket.send_to(text_data=intent("play", cards=["4s", "5s", "BJ"], version=version))
    prompt = await socket.receive_from(timeout=10)
    assert prompt.startswith('<div id="prompt"') or 'id="prompt"' in prompt
    assert 'value="3 4 5"' in prompt and 'value="4 5 6"' in prompt
    assert await database_sync_to_async(game.events.count)() == 0
    await socket.send_to(
        text_data=intent("play", cards="4s 5s BJ", version=version, **{"as": "4 5 6"})
    )
    await receive_frames_until(socket, seat=0, version=await _wait_for_change(table.pk, version))
    events = await database_sync_to_async(list)(game.events.values_list("action", flat=True))
    assert events == [{"play": "4s 5s BJ", "as": "4 5 6"}]
    await socket.disconnect()


async def test_only_signed_in_users_who_may_see_a_table_connect() -> None:
    room = await database_sync_to_async(make_room)()
    owner = await database_sync_to_async(make_player)("zhu")
    stranger = await database_sync_to_async(make_player)("lu")
    private = await database_sync_to_async(services.table_create_private)(user=owner, room=room)

    anonymous = await connect(None, private.pk)
    assert (await anonymous.receive_output(timeout=5))["code"] == 4401
    outsider = await connect(stranger, private.pk)
    assert (await outsider.receive_output(timeout=5))["code"] == 4404
    missing = await connect(stranger, 999_999)
    assert (await missing.receive_output(timeout=5))["code"] == 4404
    # With the invitation's code, the stranger may watch before sitting down.
    invited = await connect(stranger, private.pk, query=f"invite={private.invite_code}")
    frame = await invited.receive_from(timeout=10)
    assert version_of(frame) is not None
    await invited.disconnect()


async def test_the_player_to_move_sees_the_countdown_and_can_hand_the_seat_to_the_bot() -> None:
    users, table, game = await _three_at_a_position()
    await database_sync_to_async(_with_deadline)(game)
    socket = await connect(users[0], table.pk)
    other = await connect(users[1], table.pk)
    version = await _version(table.pk)
    frame = (await receive_frames_until(socket, seat=0, version=version))[-1]
    await receive_frames_until(other, seat=1, version=version)
    assert 'class="countdown" data-deadline="' in frame and 'data-seconds="20"' in frame

    await socket.send_to(text_data=intent("auto"))
    frame = await socket.receive_from(timeout=10)
    assert 'class="auto-play-banner"' in frame and "托管" in frame
    seen_by_other = await other.receive_from(timeout=10)
    assert "badge-auto" in seen_by_other and 'class="auto-play-banner"' not in seen_by_other
    seat = await database_sync_to_async(Seat.objects.get)(user=users[0])
    assert seat.auto_play

    await socket.send_to(text_data=intent("resume"))
    frame = await socket.receive_from(timeout=10)
    assert 'class="auto-play-banner"' not in frame and "badge-auto" not in frame
    seat = await database_sync_to_async(Seat.objects.get)(user=users[0])
    assert not seat.auto_play and seat.timeouts == 0
    assert await database_sync_to_async(game.events.count)() == 0
    await socket.disconnect()
    await other.disconnect()


async def test_a_player_asks_to_leave_after_the_game_over_the_socket_and_can_stay_after_all() -> (
    None
):
    users, table, game = await _three_at_a_position()
    socket = await connect(users[1], table.pk)
    other = await connect(users[0], table.pk)
    version = await _version(table.pk)
    frame = (await receive_frames_until(socket, seat=1, version=version))[-1]
    await receive_frames_until(other, seat=0, version=version)
    assert 'data-action="leave"' in frame and 'data-action="auto"' in frame

    await socket.send_to(text_data=intent("leave"))
    frame = await socket.receive_from(timeout=10)
    assert 'class="leave-after-banner"' in frame and 'data-action="stay"' in frame
    assert "badge-leaving" in await other.receive_from(timeout=10)
    seat = await database_sync_to_async(Seat.objects.get)(user=users[1])
    assert seat.leaves_after_game and seat.position == 1  # still seated, still playing

    await socket.send_to(text_data=intent("stay"))
    frame = await socket.receive_from(timeout=10)
    assert 'class="leave-after-banner"' not in frame and 'data-action="leave"' in frame
    seat = await database_sync_to_async(Seat.objects.get)(user=users[1])
    assert not seat.leaves_after_game
    assert await database_sync_to_async(game.events.count)() == 0
    await socket.disconnect()
    await other.disconnect()


def _with_deadline(game: Game) -> None:
    game.turn_deadline = services.turn_deadline(game=game, seat=0, now=timezone.now())
    game.save(update_fields=["turn_deadline"])


# Frames rendered once per move -------------------------------------------------------------------


def _fresh_frame(user: User, table_id: int, language: str = "zh-hans") -> tuple[str, str]:
    with translation.override(language):
        return render_frame_for_user(user=user, table_id=table_id)


async def test_each_player_gets_the_frame_rendered_for_their_own_seat_after_a_move() -> None:
    """After a move every player's socket forwards the frame rendered once for its seat: the
    same as the socket would render itself, in its language; a spectator and a player in
    another language render their own."""
    users, table, _game = await _three_at_a_position()
    watcher = await database_sync_to_async(make_player)("kan")
    sockets = [
        await connect(users[0], table.pk),
        await connect(users[1], table.pk),
        await connect(users[2], table.pk, language="en"),
    ]
    spectator = await connect(watcher, table.pk)
    version = await _version(table.pk)
    for seat, socket in enumerate(sockets):
        await receive_frames_until(socket, seat=seat, version=version)
    await receive_frames_until(spectator, seat=None, version=version)

    await sockets[0].send_to(text_data=intent("play", cards=["3s"], version=version))
    after = await _wait_for_change(table.pk, version)
    for seat, (socket, user) in enumerate(zip(sockets, users, strict=True)):
        frame = (await receive_frames_until(socket, seat=seat, version=after))[-1]
        language = "en" if seat == 2 else "zh-hans"
        assert ('aria-label="Table"' in frame) == (language == "en")
        assert (frame, after) == await database_sync_to_async(_fresh_frame)(
            user, table.pk, language
        )
    frame = (await receive_frames_until(spectator, seat=None, version=after))[-1]
    assert (frame, after) == await database_sync_to_async(_fresh_frame)(watcher, table.pk)
    for socket in (*sockets, spectator):
        await socket.disconnect()


async def test_a_seat_taken_that_starts_the_game_sends_each_player_one_frame() -> None:
    """Any change of a table, not only a move, comes with each seated player's frame rendered
    once after the commit; a seat taken that starts the game is one change, so one frame."""
    room = await database_sync_to_async(make_room)()
    users = [await database_sync_to_async(make_player)(name) for name in ("yi", "er", "san")]
    table, _seat = await database_sync_to_async(services.table_play)(user=users[0], room=room)
    await database_sync_to_async(services.table_play)(user=users[1], room=room)
    sockets = [await connect(users[0], table.pk), await connect(users[1], table.pk)]
    version = await _version(table.pk)
    for seat, socket in enumerate(sockets):
        await receive_frames_until(socket, seat=seat, version=version)

    await database_sync_to_async(services.table_play)(user=users[2], room=room)
    started = await _wait_for_change(table.pk, version)
    for socket, user in zip(sockets, users[:2], strict=True):
        frame = await socket.receive_from(timeout=10)
        assert 'data-status="playing"' in frame
        assert (frame, started) == await database_sync_to_async(_fresh_frame)(user, table.pk)
        assert await socket.receive_nothing(timeout=0.3)
    for socket in sockets:
        await socket.disconnect()


def _table_not_ready(room: Room, users: list[User]) -> Table:
    """A table where ``users`` sit, not yet ready for a game."""
    table = _seated_table(room, users)
    table.seats.update(ready=False)
    return table


async def test_a_socket_keeps_its_seat_across_a_change_but_asks_on_the_table_as_it_is_now() -> None:
    """A socket keeps the seat it read across a change that leaves its player there (another
    player ready; then the game starts), so its next move does not read the table first; what
    it renders for its own player after that change, the choice of a joker's meaning, carries
    the table's version as it is now, and the choice is made."""
    room = await database_sync_to_async(make_room)()
    users = [await database_sync_to_async(make_player)(name) for name in ("a", "b", "c")]
    table = await database_sync_to_async(_table_not_ready)(room, users)
    socket = await connect(users[0], table.pk)
    await receive_frames_until(socket, seat=0, version=await _version(table.pk))

    # Another player's change: the socket's frame comes with the seat its player still holds.
    before = await _version(table.pk)
    await database_sync_to_async(services.table_play_again)(user=users[1], table=table)
    ready = await _wait_for_change(table.pk, before)
    await receive_frames_until(socket, seat=0, version=ready)
    game = await database_sync_to_async(start_from_position)(
        table=table, players=users, hands=HANDS, stock=STOCK, dealer=0
    )
    version = await _version(table.pk)
    assert version != ready

    await socket.send_to(text_data=intent("play", cards=["4s", "5s", "BJ"], version=version))
    prompt = await socket.receive_from(timeout=10)
    assert 'id="prompt"' in prompt and 'value="4 5 6"' in prompt
    assert f'name="version" value="{version}"' in prompt
    await socket.send_to(
        text_data=intent("play", cards="4s 5s BJ", version=version, **{"as": "4 5 6"})
    )
    await _wait_for_change(table.pk, version)
    events = await database_sync_to_async(list)(game.events.values_list("action", flat=True))
    assert events == [{"play": "4s 5s BJ", "as": "4 5 6"}]
    await socket.disconnect()


async def test_an_update_older_than_the_last_frame_gives_way_to_the_newest_frame() -> None:
    """Two processes may broadcast a table's moves out of order: a socket never shows an older
    frame after a newer one, and still answers every notice with a frame."""
    users, table, game = await _three_at_a_position()
    socket = await connect(users[0], table.pk)
    first = await _version(table.pk)
    await receive_frames_until(socket, seat=0, version=first)
    await socket.send_to(text_data=intent("play", cards=["3s"], version=first))
    second = await _wait_for_change(table.pk, first)
    newest = (await receive_frames_until(socket, seat=0, version=second))[-1]

    layer = channel_layers["default"]
    await layer.group_send(
        services.table_group_name(table.pk),
        {
            "type": "table.update",
            "table": table.pk,
            "kind": "action",
            "game": game.pk,
            "number": 1,
            "frames": {str(users[0].pk): "an older frame"},
            "version": first,
            "language": "zh-hans",
        },
    )
    assert await socket.receive_from(timeout=10) == newest
    await socket.disconnect()


async def test_one_account_in_two_tabs_shares_one_seat() -> None:
    """Two tabs of one player are one seat: the same hand in both, a move from either shows in
    both, and the other tab's copy of that move, chosen on the old view, is refused as stale."""
    users, table, game = await _three_at_a_position()
    first, second = await connect(users[0], table.pk), await connect(users[0], table.pk)
    version = await _version(table.pk)
    frames = [
        (await receive_frames_until(tab, seat=0, version=version))[-1] for tab in (first, second)
    ]
    assert frames[0] == frames[1] and 'data-card="3s"' in frames[0]
    assert await database_sync_to_async(Seat.objects.filter(user=users[0]).count)() == 1

    await first.send_to(text_data=intent("play", cards=["3s"], version=version))
    after = await _wait_for_change(table.pk, version)
    for tab in (first, second):
        frame = (await receive_frames_until(tab, seat=0, version=after))[-1]
        assert 'data-card="3s"' in frame and 'value="3s"' not in frame  # played, not in hand
    await second.send_to(text_data=intent("play", cards=["3s"], version=version))
    assert "牌局已变化" in await _notice_after_frame(second)
    assert await database_sync_to_async(game.events.count)() == 1
    await first.disconnect()
    await second.disconnect()


def _move_whose_notice_is_lost(table: Table, user: User, version: str) -> None:
    """A move committed by a process that dies before its broadcast: the commit happens, the
    hooks that would tell the table do not."""
    from django.db import connection, transaction

    with transaction.atomic():
        services.table_game_act(
            user=user, table=table, action={"play": "3s"}, version=version, action_id="lost-1234"
        )
        connection.run_on_commit = []


async def test_a_quiet_socket_catches_up_with_a_change_whose_notice_was_lost() -> None:
    users, table, _game = await _three_at_a_position()
    with override_settings(TABLE_RESYNC_SECONDS=0.3, TABLE_RESYNC_GRACE_SECONDS=0.2):
        socket = await connect(users[1], table.pk)
        version = await _version(table.pk)
        await receive_frames_until(socket, seat=1, version=version)
        assert await socket.receive_nothing(timeout=0.6)  # nothing changed: nothing sent
        await database_sync_to_async(_move_whose_notice_is_lost)(table, users[0], version)
        after = await _version(table.pk)
        assert after != version
        frame = (await receive_frames_until(socket, seat=1, version=after, timeout=5))[-1]
        assert 'data-my-turn="true"' in frame  # seat 1 learns it is their turn
    await socket.disconnect()


def _move_whose_notice_is_late(
    table: Table, user: User, version: str
) -> list[tuple[str, dict[str, object]]]:
    """A move committed whose notices are held back, to be sent later: a busy channel layer."""
    with services.notices_collected() as notices:
        services.table_game_act(
            user=user, table=table, action={"play": "3s"}, version=version, action_id="late-1234"
        )
    return notices


async def test_a_quiet_socket_waits_for_a_notice_on_its_way() -> None:
    """The quiet socket's look at the table finds a change whose notice has not arrived yet:
    the notice comes within the grace, and the player gets one frame of the change, not two."""
    users, table, _game = await _three_at_a_position()
    with override_settings(TABLE_RESYNC_SECONDS=0.3, TABLE_RESYNC_GRACE_SECONDS=2.0):
        socket = await connect(users[1], table.pk)
        version = await _version(table.pk)
        await receive_frames_until(socket, seat=1, version=version)
        notices = await database_sync_to_async(_move_whose_notice_is_late)(table, users[0], version)
        after = await _version(table.pk)
        # The look comes within 0.3 s of the commit; the notice arrives after it, in its grace.
        await asyncio.sleep(0.6)
        layer = channel_layers["default"]
        for group, notice in notices:
            await layer.group_send(group, notice)
        frames = await receive_frames_until(socket, seat=1, version=after, timeout=5)
        assert [version_of(frame) for frame in frames] == [after]
        assert await socket.receive_nothing(timeout=2.5)  # the look sends no second one
    await socket.disconnect()


def _doudizhu_table_not_ready(users: list[User]) -> Table:
    room = make_room(code="ddz-socket")
    room.game = "doudizhu"
    room.save(update_fields=["game"])
    table = Table.objects.create(room=room)
    for position, user in enumerate(users):
        table.seats.create(position=position, user=user)
    return table


def _start_events(table_id: int) -> list[tuple[int | None, dict[str, object], str]]:
    game = _latest_game(table_id)
    return list(game.events.order_by("number").values_list("seat", "action", "source"))


async def test_a_start_with_the_hand_shown_over_the_socket_and_a_bad_one_refused() -> None:
    users = [await database_sync_to_async(make_player)(name) for name in ("d", "e", "f")]
    table = await database_sync_to_async(_doudizhu_table_not_ready)(users)
    socket = await connect(users[0], table.pk)
    try:
        await socket.receive_from(timeout=10)
        version = await _version(table.pk)
        # Not a choice the game offers before its deal: a clear answer, and nothing changes.
        await socket.send_to(text_data=intent("again", move='{"bid": "call"}'))
        text = await _notice(socket)
        with translation.override("zh-hans"):
            assert "此游戏在发牌前没有这个选项" in text
        assert await _version(table.pk) == version
        assert not await database_sync_to_async(
            Seat.objects.filter(table=table, ready=True).exists
        )()

        await socket.send_to(text_data=intent("again", move='{"show": true}'))
        await _wait_for_change(table.pk, version)
    finally:
        await socket.disconnect()
    for user in users[1:]:
        await database_sync_to_async(services.table_play_again)(user=user, table=table)
    events = await database_sync_to_async(_start_events)(table.pk)
    assert events == [(0, {"show": "start"}, GameEvent.Source.PLAYER)]
