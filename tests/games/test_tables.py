"""Tables through the services: seating, private tables, bots taking free seats, starting games,
playing again, who may see a table, and what each viewer sees of it."""

from __future__ import annotations

import json
import random
import re
import threading
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import connection, connections, transaction
from django.utils import translation

from accounts.models import User
from accounts.services import user_lock
from games import frames, selectors, services
from games.frames import render_frame_and_version
from games.models import Game, Room, Seat, Table
from games.rules import parse_cards
from games.services import TableRefused
from tests.games.helpers import make_player, make_room, play_out, set_balance

pytestmark = pytest.mark.django_db

CARD_TOKEN = re.compile(r"\b(?:[2-9TJQKA][shdc]|BJ|RJ)\b")


def seats_of(table: Table) -> list[tuple[int, str | None, bool]]:
    return [
        (seat.position, seat.user.username if seat.user else None, seat.is_bot)
        for seat in Seat.objects.filter(table=table).select_related("user").order_by("position")
    ]


class refused:
    """``with refused("table_full"):`` expects a ``TableRefused`` with that code and a message."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> bool:
        assert isinstance(exc, TableRefused), f"expected TableRefused({self.code}), got {exc!r}"
        assert exc.code == self.code, exc.code
        assert isinstance(exc.message, str) and exc.message
        return True


def full_table(room: Room, players: list[User]) -> tuple[Table, Game]:
    for user in players:
        table, _ = services.table_play(user=user, room=room)
    game = Game.objects.get(table=table, status=Game.Status.PLAYING)
    return table, game


# Seating -----------------------------------------------------------------------------------------


def test_play_opens_a_public_table_and_seats_the_next_players_there(
    room: Room, trio: list[User]
) -> None:
    table, position = services.table_play(user=trio[0], room=room)
    assert position == 0
    assert table.room == room and not table.is_private and table.invite_code is None
    assert table.status == Table.Status.WAITING
    assert table.created_by == trio[0]
    assert seats_of(table) == [(0, "zhao", False), (1, None, False), (2, None, False)]
    assert table.waiting_since is not None

    again, position = services.table_play(user=trio[0], room=room)
    assert (again, position) == (table, 0)

    second, position = services.table_play(user=trio[1], room=room)
    assert (second, position) == (table, 1)
    assert Table.objects.count() == 1


def test_play_takes_the_lowest_free_seat_of_the_oldest_waiting_public_table(room: Room) -> None:
    a, b, c, d, e, f = (make_player(name) for name in "abcdef")
    first, _ = services.table_play(user=a, room=room)
    services.table_play(user=b, room=room)
    services.table_leave(user=a, table=first)  # seat 0 is free again, b still sits at seat 1
    private = services.table_create_private(user=c, room=room)

    assert services.table_play(user=d, room=room) == (first, 0)
    assert services.table_play(user=e, room=room) == (first, 2)
    first.refresh_from_db()
    assert first.status == Table.Status.PLAYING  # the last seat taken: the game started

    third, position = services.table_play(user=f, room=room)
    assert third not in (first, private) and position == 0
    assert seats_of(private) == [(0, "c", False), (1, None, False), (2, None, False)]


def test_a_full_table_starts_a_game_with_the_players_by_seat(room: Room, trio: list[User]) -> None:
    table, game = full_table(room, trio)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING and table.waiting_since is None
    assert [(p.seat, p.user, p.is_bot) for p in game.players.order_by("seat")] == [
        (0, trio[0], False),
        (1, trio[1], False),
        (2, trio[2], False),
    ]
    assert game.number == 1 and game.base == room.base
    assert not Seat.objects.filter(table=table, ready=True).exists()
    # Nothing more to start while the game is being played.
    assert services.table_start_game(table=table) is None
    assert Game.objects.filter(table=table).count() == 1


def test_refusals_carry_a_code_and_a_translated_message(room: Room, trio: list[User]) -> None:
    novice = Room.objects.get(code="novice")  # 1,000 – 50,000 coins
    rich, poor = trio[0], trio[1]
    set_balance(poor, 999)
    nobody = User.objects.create_user(username="no-wallet", password="pw-123456")

    with refused("balance_too_high"):
        services.table_play(user=rich, room=novice)
    with translation.override("zh-hans"), pytest.raises(TableRefused) as caught:
        services.table_play(user=poor, room=novice)
    assert caught.value.code == "balance_too_low"
    assert "新手场" in caught.value.message and "999" in caught.value.message
    with refused("no_wallet"):
        services.table_play(user=nobody, room=novice)
    with refused("balance_too_high"):
        services.table_create_private(user=rich, room=novice)

    Room.objects.filter(pk=room.pk).update(is_open=False)
    room.refresh_from_db()
    with refused("room_closed"):
        services.table_play(user=rich, room=room)
    with refused("room_closed"):
        services.table_create_private(user=rich, room=room)
    assert not Table.objects.exists() and not Seat.objects.exists()


def test_a_player_sits_at_one_table_at_a_time(trio: list[User]) -> None:
    one, two = make_room(code="one"), make_room(code="two")
    zhao = trio[0]
    first, _ = services.table_play(user=zhao, room=one)

    # Play in another room: zhao leaves the waiting table, which closes, nobody being left.
    second, position = services.table_play(user=zhao, room=two)
    assert second != first and position == 0
    first.refresh_from_db()
    assert first.status == Table.Status.CLOSED
    assert Seat.objects.filter(user=zhao).count() == 1

    # A private table of his own: he leaves the public one.
    private = services.table_create_private(user=zhao, room=one)
    assert Seat.objects.get(user=zhao).table == private
    second.refresh_from_db()
    assert second.status == Table.Status.CLOSED

    # Once a game is being played at his table, he cannot sit elsewhere; his seat is kept.
    services.table_join_by_invite(user=trio[1], code=private.invite_code or "")
    services.table_join_by_invite(user=trio[2], code=private.invite_code or "")
    private.refresh_from_db()
    assert private.status == Table.Status.PLAYING
    with refused("playing_elsewhere"):
        services.table_play(user=zhao, room=two)
    with refused("playing_elsewhere"):
        services.table_create_private(user=zhao, room=two)
    # Play in the room of his table takes him back to it.
    assert services.table_play(user=zhao, room=one) == (private, 0)
    assert Seat.objects.get(user=zhao).table == private


def test_the_invitation_flow_of_a_private_table(room: Room, trio: list[User]) -> None:
    zhao, qian, sun = trio
    table = services.table_create_private(user=zhao, room=room)
    assert table.is_private and table.invite_code and len(table.invite_code) >= 16
    assert re.fullmatch(r"[A-Za-z0-9_-]+", table.invite_code)
    assert seats_of(table)[0] == (0, "zhao", False)
    other = services.table_create_private(user=make_player("li"), room=room)
    assert other.invite_code != table.invite_code

    # Play never seats anyone at a private table.
    public, _ = services.table_play(user=qian, room=room)
    assert public != table

    with refused("bad_invite"):
        services.table_join_by_invite(user=sun, code="not-a-code")
    with refused("bad_invite"):
        services.table_join_by_invite(user=sun, code="")
    assert services.table_join_by_invite(user=qian, code=table.invite_code) == (table, 1)
    assert services.table_join_by_invite(user=qian, code=table.invite_code) == (table, 1)
    public.refresh_from_db()
    assert public.status == Table.Status.CLOSED  # qian left it for the private table
    assert services.table_join_by_invite(user=sun, code=table.invite_code) == (table, 2)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING

    with refused("table_full"):
        services.table_join_by_invite(user=make_player("zhou"), code=table.invite_code)

    novice = Room.objects.get(code="novice")
    low = services.table_create_private(user=make_player("wu", coins=2_000), room=novice)
    with refused("balance_too_high"):
        services.table_join_by_invite(user=make_player("zheng"), code=low.invite_code or "")
    services.table_leave(user=User.objects.get(username="wu"), table=low)
    with refused("table_closed"):
        services.table_join_by_invite(user=make_player("wang", 2_000), code=low.invite_code or "")


def test_leaving_frees_the_seat_and_the_last_player_closes_the_table(
    room: Room, trio: list[User]
) -> None:
    zhao, qian, sun = trio
    table, _ = services.table_play(user=zhao, room=room)
    services.table_play(user=qian, room=room)
    with refused("not_seated"):
        services.table_leave(user=sun, table=table)

    services.table_leave(user=zhao, table=table)
    assert seats_of(table) == [(0, None, False), (1, "qian", False), (2, None, False)]
    table.refresh_from_db()
    assert table.status == Table.Status.WAITING and table.waiting_since is not None

    services.table_leave(user=qian, table=table)
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED and table.waiting_since is None
    with refused("table_closed"):
        services.table_play_again(user=qian, table=table)
    # A closed table is never offered again.
    assert services.table_play(user=sun, room=room)[0] != table


def test_leaving_during_a_game_frees_the_seat_when_it_ends(
    room: Room, trio: list[User], outsider: User
) -> None:
    zhao, qian, sun = trio
    table, game = full_table(room, trio)
    assert services.table_leave(user=qian, table=table) == services.Leave.AFTER_GAME
    assert services.table_leave(user=qian, table=table) == services.Leave.AFTER_GAME
    # The seat is kept, and the game goes on with the player in it.
    assert seats_of(table)[1] == (1, "qian", False)
    assert Seat.objects.get(user=qian).leaves_after_game
    services.table_leave_cancel(user=qian, table=table)
    assert not Seat.objects.get(user=qian).leaves_after_game
    services.table_leave_cancel(user=qian, table=table)  # nothing planned: nothing changes
    assert services.table_leave(user=qian, table=table) == services.Leave.AFTER_GAME
    for asking in (services.table_leave, services.table_leave_cancel):
        with refused("not_seated"):
            asking(user=outsider, table=table)

    play_out(game)
    table.refresh_from_db()
    assert seats_of(table) == [(0, "zhao", False), (1, None, False), (2, "sun", False)]
    assert table.status == Table.Status.WAITING and table.waiting_since is not None
    # Nobody waits for the player who left: the others' 再来一局 and a bot start the next game.
    with refused("not_seated"):
        services.table_play_again(user=qian, table=table)
    services.table_play_again(user=zhao, table=table)
    services.table_play_again(user=sun, table=table)
    later = table.waiting_since + timedelta(seconds=settings.BOT_FILL_SECONDS)
    assert services.table_fill_with_bots(table=table, now=later) == 1
    second = Game.objects.get(table=table, number=2)
    assert [p.is_bot for p in second.players.order_by("seat")] == [False, True, False]
    assert not Seat.objects.filter(leaves_after_game=True).exists()


def test_between_games_leaving_is_at_once(room: Room, trio: list[User]) -> None:
    table, game = full_table(room, trio)
    play_out(game)
    assert services.table_leave(user=trio[1], table=table) == services.Leave.NOW
    assert seats_of(table)[1] == (1, None, False)


def test_the_last_player_leaving_after_the_game_closes_the_table(
    room: Room, trio: list[User]
) -> None:
    zhao = trio[0]
    table, _ = services.table_play(user=zhao, room=room)
    services.table_call_bots(user=zhao, table=table)
    game = Game.objects.get(table=table)
    services.table_set_auto_play(user=zhao, table=table, on=True)
    assert services.table_leave(user=zhao, table=table) == services.Leave.AFTER_GAME
    play_out(game)
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert seats_of(table) == [(0, None, False), (1, None, False), (2, None, False)]
    assert selectors.table_of_user(user=zhao) is None
    # Its page still shows how the last game ended, to the player who left it.
    assert selectors.table_get_for_user(user=zhao, table_id=table.pk) == (table, None)
    with translation.override("zh-hans"):
        frame, _ = render_frame_and_version(table=table, seat=None)
    assert 'class="settlement"' in frame and "zhao" in frame
    assert "seat-card-count" not in frame and "seat-coins" not in frame
    assert (
        "seat-ready" not in frame
        and "mini-cards" not in frame.split('class="opponents"')[1].split('class="board"')[0]
    )
    assert 'class="button button-primary back-to-lobby"' in frame and "返回大厅" in frame


# Bots --------------------------------------------------------------------------------------------


def test_bots_take_the_free_seats_only_after_the_wait(room: Room, trio: list[User]) -> None:
    table, _ = services.table_play(user=trio[0], room=room)
    assert table.waiting_since is not None
    since = table.waiting_since
    wait = timedelta(seconds=settings.BOT_FILL_SECONDS)

    assert services.table_fill_with_bots(table=table, now=since + wait - timedelta(seconds=1)) == 0
    assert list(selectors.tables_to_fill_with_bots(now=since + wait / 2)) == []
    assert seats_of(table) == [(0, "zhao", False), (1, None, False), (2, None, False)]

    # Another player sitting down does not restart the wait.
    services.table_play(user=trio[1], room=room)
    assert list(selectors.tables_to_fill_with_bots(now=since + wait)) == [table]
    assert services.table_fill_with_bots(table=table, now=since + wait) == 1
    assert seats_of(table) == [(0, "zhao", False), (1, "qian", False), (2, None, True)]

    game = Game.objects.get(table=table)
    assert [(p.user, p.is_bot) for p in game.players.order_by("seat")] == [
        (trio[0], False),
        (trio[1], False),
        (None, True),
    ]
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING and table.waiting_since is None
    assert services.table_fill_with_bots(table=table, now=since + 10 * wait) == 0


def test_bots_never_sit_at_a_table_without_players(room: Room, trio: list[User]) -> None:
    table, _ = services.table_play(user=trio[0], room=room)
    services.table_leave(user=trio[0], table=table)
    later = table.created_at + timedelta(hours=1)
    assert services.table_fill_with_bots(table=table, now=later) == 0
    assert seats_of(table) == [(0, None, False), (1, None, False), (2, None, False)]


def test_a_player_leaving_after_a_game_leaves_a_seat_for_bots_or_others(
    room: Room, trio: list[User]
) -> None:
    table, game = full_table(room, trio)
    play_out(game)
    services.table_leave(user=trio[2], table=table)
    table.refresh_from_db()
    assert table.status == Table.Status.WAITING and table.waiting_since is not None
    services.table_play_again(user=trio[0], table=table)
    services.table_play_again(user=trio[1], table=table)
    assert Game.objects.filter(table=table).count() == 1  # a seat is still free
    later = table.waiting_since + timedelta(seconds=settings.BOT_FILL_SECONDS)
    assert services.table_fill_with_bots(table=table, now=later) == 1
    second = Game.objects.get(table=table, number=2)
    assert [p.is_bot for p in second.players.order_by("seat")] == [False, False, True]


# Playing again -----------------------------------------------------------------------------------


def test_the_winner_deals_the_next_game_once_every_player_is_ready(
    room: Room, trio: list[User]
) -> None:
    table, first = full_table(room, trio)
    play_out(first)
    first.refresh_from_db()
    table.refresh_from_db()
    assert first.status == Game.Status.FINISHED and table.status == Table.Status.WAITING
    assert services.table_start_game(table=table) is None  # nobody is ready yet

    with refused("not_seated"):
        services.table_play_again(user=make_player("li"), table=table)
    assert services.table_play_again(user=trio[0], table=table) is None
    assert services.table_play_again(user=trio[0], table=table) is None
    assert services.table_play_again(user=trio[1], table=table) is None
    second = services.table_play_again(user=trio[2], table=table)
    assert second is not None
    assert second.number == 2 and second.dealer == first.winner
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    with refused("game_in_progress"):
        services.table_play_again(user=trio[0], table=table)


def test_playing_again_needs_coins_in_the_room_range(trio: list[User]) -> None:
    novice = Room.objects.get(code="novice")
    players = [make_player(name, coins=20_000) for name in ("a", "b", "c")]
    table, game = full_table(novice, players)
    play_out(game)
    set_balance(players[0], 500)
    with refused("balance_too_low"):
        services.table_play_again(user=players[0], table=table)
    services.table_leave(user=players[0], table=table)


def test_the_frame_of_a_player_who_cannot_afford_the_next_game_says_so_and_how_to_go_on(
    trio: list[User],
) -> None:
    novice, junior = Room.objects.get(code="novice"), Room.objects.get(code="junior")
    players = [make_player(name, coins=20_000) for name in ("a", "b", "c")]
    table, game = full_table(junior, players)
    play_out(game)
    set_balance(players[0], 2_000)  # below 初级场's 3,000, within 新手场's range
    set_balance(players[1], 500)  # below every room: relief coins
    set_balance(players[2], 20_000)  # whatever the game took, still within 初级场's range
    table.refresh_from_db()
    with translation.override("zh-hans"):
        frames = [render_frame_and_version(table=table, seat=seat)[0] for seat in range(3)]
    poor, poorer, fine = frames
    for frame in (poor, poorer):
        assert "data-next-game-refused" in frame and "你不能在本场继续下一局。" in frame
        assert 'data-action="again"' not in frame
    assert f'href="/rooms/{novice.code}/"' in poor and "新手场" in poor
    assert 'href="/accounts/profile/"' not in poor
    assert 'href="/accounts/profile/"' in poorer and "救济" in poorer
    assert "data-next-game-refused" not in fine and 'data-action="again"' in fine
    # The refusal is the one the services make when the player presses 再来一局 anyway.
    with refused("balance_too_low"):
        services.table_play_again(user=players[0], table=table)


def test_the_frame_offers_auto_play_and_leaving_after_the_game_to_its_player_only(
    room: Room, trio: list[User]
) -> None:
    table, game = full_table(room, trio)
    with translation.override("zh-hans"):
        mine = render_frame_and_version(table=table, seat=1)[0]
        watching = render_frame_and_version(table=table, seat=None)[0]
    assert 'data-action="auto"' in mine and 'data-action="leave"' in mine
    assert "本局结束后离开" in mine and 'data-action="stay"' not in mine
    assert 'data-action="auto"' not in watching and 'data-action="leave"' not in watching

    services.table_leave(user=trio[1], table=table)
    with translation.override("zh-hans"):
        mine = render_frame_and_version(table=table, seat=1)[0]
        other = render_frame_and_version(table=table, seat=0)[0]
    assert 'class="leave-after-banner"' in mine and 'data-action="stay"' in mine
    assert 'data-action="leave"' not in mine and "本局结束后你将离开牌桌" in mine
    assert "badge-leaving" in other and 'class="leave-after-banner"' not in other
    services.table_set_auto_play(user=trio[1], table=table, on=True)
    with translation.override("zh-hans"):
        mine = render_frame_and_version(table=table, seat=1)[0]
    assert 'data-action="auto"' not in mine and 'data-action="resume"' in mine
    assert "在此之前由机器人替你出牌。" in mine


def test_the_losers_cards_are_shown_with_the_settlement_only_after_the_end(
    room: Room, trio: list[User]
) -> None:
    table, game = full_table(room, trio)
    for seat in (None, 0):
        frame = render_frame_and_version(table=table, seat=seat)[0]
        assert "data-shown-hand" not in frame
    play_out(game, seed=3)
    game.refresh_from_db()
    table.refresh_from_db()
    state = selectors.game_state(game=game)
    frame = render_frame_and_version(table=table, seat=None)[0]
    for player in game.players.all():
        row = re.search(rf'<tr[^>]*data-seat="{player.seat}">(.*?)</tr>', frame, re.S)[1]
        held = sorted(CARD_TOKEN.findall(row))
        assert held == sorted(str(card) for card in state.hand(player.seat))
        assert ("data-shown-hand" in row) == (player.seat != game.winner)


def test_the_table_calls_a_game_by_the_number_its_record_has(room: Room, trio: list[User]) -> None:
    make_room(code="other")  # games of other tables come first: the two numbers differ
    other = Table.objects.create(room=Room.objects.get(code="other"))
    services.game_start(table=other, players=trio, seed=1)
    table, game = full_table(room, trio)
    assert game.number == 1 and game.pk != 1
    frame = render_frame_and_version(table=table, seat=0)[0]
    assert f'<dd class="game-number">#{game.pk}</dd>' in frame


# Access ------------------------------------------------------------------------------------------


def test_who_may_see_a_table(room: Room, trio: list[User], outsider: User) -> None:
    zhao, qian, _ = trio
    public, _ = services.table_play(user=zhao, room=room)
    assert selectors.table_get_for_user(user=zhao, table_id=public.pk) == (public, 0)
    assert selectors.table_get_for_user(user=outsider, table_id=str(public.pk)) == (public, None)
    with pytest.raises(Table.DoesNotExist):
        selectors.table_get_for_user(user=AnonymousUser(), table_id=public.pk)
    for missing in (public.pk + 1000, "x", None):
        with pytest.raises(Table.DoesNotExist):
            selectors.table_get_for_user(user=zhao, table_id=missing)  # type: ignore[arg-type]

    private = services.table_create_private(user=qian, room=room)
    code = private.invite_code
    assert code
    assert selectors.table_get_for_user(user=qian, table_id=private.pk) == (private, 0)
    for wrong in (None, "", code[:-1], code + "x"):
        with pytest.raises(Table.DoesNotExist):
            selectors.table_get_for_user(user=outsider, table_id=private.pk, invite_code=wrong)
    assert selectors.table_get_for_user(user=outsider, table_id=private.pk, invite_code=code) == (
        private,
        None,
    )
    with pytest.raises(Table.DoesNotExist):
        selectors.table_get_for_user(user=AnonymousUser(), table_id=private.pk, invite_code=code)

    # A player who left a table is a spectator of a public one, and a stranger to a private one.
    other = make_room(code="other")
    services.table_play(user=zhao, room=other)
    assert selectors.table_get_for_user(user=zhao, table_id=public.pk) == (public, None)
    services.table_play(user=qian, room=other)
    with pytest.raises(Table.DoesNotExist):
        selectors.table_get_for_user(user=qian, table_id=private.pk)
    assert selectors.table_of_user(user=qian) is not None
    assert selectors.table_of_user(user=AnonymousUser()) is None


# Views -------------------------------------------------------------------------------------------


def assert_no_hidden_cards(table: Table, game: Game) -> None:
    """No view of ``table`` (any seat, or a spectator) names a card of another hand or the stock."""
    game.refresh_from_db()
    table.refresh_from_db()
    state = selectors.game_state(game=game)
    hands = [{str(card) for card in state.hand(seat)} for seat in range(state.players)]
    stock = {str(card) for card in state.stock_cards()}
    for viewer in [*range(state.players), None]:
        view = frames.table_view(table=table, seat=viewer)
        text = json.dumps(view)
        assert json.loads(text) == view  # JSON-safe
        # Once the game is over its hands are public (亮牌); the stock never is.
        others = [hand for seat, hand in enumerate(hands) if seat != viewer]
        hidden = stock.union(*others) if not game.is_over else stock
        shown = set(CARD_TOKEN.findall(text))
        assert not shown & hidden, (viewer, shown & hidden)
        engine_view = view["game"]["view"]
        if viewer is None:
            assert "hand" not in engine_view
        else:
            assert engine_view["hand"] == [str(card) for card in state.hand(viewer)]
        if not game.is_over:
            assert view["game"]["seed"] is None and game.seed not in text


def test_table_view_shows_each_seat_only_its_own_hand(room: Room, trio: list[User]) -> None:
    table, game = full_table(room, trio)
    rng = random.Random(7)
    state = selectors.game_state(game=game)
    assert_no_hidden_cards(table, game)
    actions = 0
    while not state.is_terminal:
        move = rng.choice(state.legal_moves())
        services.game_act(game=game, seat=state.to_move, action=dict(move.to_json()))
        state = selectors.game_state(game=game)
        actions += 1
        if actions % 3 == 0:
            assert_no_hidden_cards(table, game)
    assert_no_hidden_cards(table, game)


def test_table_view_of_a_game_in_progress_and_over(room: Room, trio: list[User]) -> None:
    table, game = full_table(room, trio)
    state = selectors.game_state(game=game)
    view = frames.table_view(table=table, seat=1)
    assert view["table"] == table.pk and view["you"] == 1
    assert view["room"] == {"code": room.code, "name": room.name, "base": room.base}
    assert view["status"] == "playing" and view["private"] is False
    assert view["invite_code"] is None
    assert view["stock"] == state.stock_count == 38 and view["multiplier"] == 1
    assert [seat["name"] for seat in view["seats"]] == ["zhao", "qian", "sun"]
    assert [seat["coins"] for seat in view["seats"]] == [100_000] * 3
    assert [seat["cards"] for seat in view["seats"]] == [state.hand_count(s) for s in range(3)]
    assert [seat["dealer"] for seat in view["seats"]] == [s == game.dealer for s in range(3)]
    assert [seat["to_move"] for seat in view["seats"]] == [s == state.to_move for s in range(3)]
    assert [seat["is_you"] for seat in view["seats"]] == [False, True, False]
    assert view["game"]["seed"] is None and view["game"]["settlement"] is None
    assert view["game"]["seed_commitment"] == game.seed_commitment

    play_out(game, seed=5)
    game.refresh_from_db()
    table.refresh_from_db()
    view = frames.table_view(table=table, seat=None)
    assert view["status"] == "waiting" and view["game"]["over"] is True
    assert view["game"]["seed"] == game.seed
    settlement = view["game"]["settlement"]
    assert settlement["multiplier"] == game.result["multiplier"]
    assert [row["coins"] for row in settlement["seats"]] == game.result["coins"]
    assert sum(row["coins"] for row in settlement["seats"]) == 0
    assert not any(seat["to_move"] for seat in view["seats"])
    assert json.loads(json.dumps(view)) == view


def test_a_new_player_in_a_seat_does_not_see_the_last_hand_of_that_seat(
    room: Room, trio: list[User]
) -> None:
    table, game = full_table(room, trio)
    play_out(game, seed=1)
    services.table_leave(user=trio[2], table=table)
    services.table_play(user=make_player("li"), room=room)
    view = frames.table_view(table=table, seat=2)
    assert "hand" not in view["game"]["view"]
    assert view["seats"][2]["name"] == "li"


def test_a_bot_seat_is_named_in_the_active_language(room: Room, trio: list[User]) -> None:
    table, _ = services.table_play(user=trio[0], room=room)
    services.table_fill_with_bots(
        table=table, now=table.waiting_since + timedelta(seconds=settings.BOT_FILL_SECONDS)
    )
    with translation.override("zh-hans"):
        names = [seat["name"] for seat in frames.table_view(table=table, seat=0)["seats"]]
    assert names == ["zhao", "机器人 2", "机器人 3"]
    with translation.override("en"):
        view = frames.table_view(table=table, seat=None)
    assert [seat["name"] for seat in view["seats"]] == ["zhao", "Bot 2", "Bot 3"]
    assert [seat["coins"] for seat in view["seats"]] == [100_000, None, None]
    assert [seat["is_bot"] for seat in view["seats"]] == [False, True, True]


def test_the_private_invite_code_is_shown_to_its_players_only(room: Room, trio: list[User]) -> None:
    table = services.table_create_private(user=trio[0], room=room)
    assert frames.table_view(table=table, seat=0)["invite_code"] == table.invite_code
    assert frames.table_view(table=table, seat=None)["invite_code"] is None


# Versions ----------------------------------------------------------------------------------------


def test_the_version_changes_with_every_seating_change_and_action(
    room: Room, trio: list[User]
) -> None:
    zhao, qian, sun = trio
    versions: list[str] = []

    def snapshot(table: Table) -> None:
        table.refresh_from_db()
        versions.append(frames.table_view(table=table, seat=None)["version"])
        assert len(set(versions)) == len(versions), versions

    table, _ = services.table_play(user=zhao, room=room)
    snapshot(table)
    services.table_play(user=qian, room=room)
    snapshot(table)
    services.table_leave(user=qian, table=table)
    snapshot(table)
    services.table_play(user=qian, room=room)
    snapshot(table)
    services.table_play(user=sun, room=room)  # the game starts
    snapshot(table)
    game = Game.objects.get(table=table)
    state = selectors.game_state(game=game)
    while not state.is_terminal:
        move = state.legal_moves()[-1]
        services.game_act(game=game, seat=state.to_move, action=dict(move.to_json()))
        state = selectors.game_state(game=game)
        snapshot(table)
    services.table_play_again(user=zhao, table=table)
    snapshot(table)
    services.table_play_again(user=qian, table=table)
    snapshot(table)
    services.table_play_again(user=sun, table=table)  # the second game starts
    snapshot(table)
    assert selectors.table_version(table=table) == versions[-1]


def test_the_card_pattern_finds_every_card_of_a_text() -> None:
    text = "3s Th BJ RJ 2c Ad"
    assert CARD_TOKEN.findall(text) == [str(card) for card in parse_cards(text)]


# Concurrency -------------------------------------------------------------------------------------


@pytest.mark.postgres  # row locks: skipped unless the run is on PostgreSQL
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_players_pressing_play_at_once_fill_tables_without_a_double_seat() -> None:
    room = make_room(code="rush")
    other = make_room(code="rush-other")
    users = [make_player(f"r{i}") for i in range(12)]
    barrier = threading.Barrier(len(users))
    errors: list[BaseException] = []

    def worker(user: User, number: int) -> None:
        try:
            barrier.wait(timeout=30)
            services.table_play(user=user, room=room)
            services.table_play(user=user, room=room)  # a double click
            if number % 4 == 0:
                services.table_play(user=user, room=other)  # and off to another room
        except services.TableRefused as exc:
            assert exc.code == "playing_elsewhere", exc.code
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=worker, args=(user, number)) for number, user in enumerate(users)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors

    seated = list(Seat.objects.filter(user__isnull=False).select_related("table"))
    assert sorted(seat.user_id for seat in seated) == sorted(user.pk for user in users)
    for table in Table.objects.exclude(status=Table.Status.CLOSED):
        seats = list(table.seats.all())
        assert len(seats) == 3
        taken = [seat for seat in seats if seat.user_id is not None or seat.is_bot]
        playing = Game.objects.filter(table=table, status=Game.Status.PLAYING).count()
        assert playing == (1 if len(taken) == 3 else 0)
        assert table.status == (Table.Status.PLAYING if playing else Table.Status.WAITING)


@pytest.mark.postgres  # row locks: skipped unless the run is on PostgreSQL
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_player_queued_behind_their_own_lock_does_not_hold_up_their_tables_game() -> None:
    # One of the player's tabs holds their row (on its way to another room, it will wait for
    # this table) while the last player sits down: the game starts without waiting for it.
    room = make_room(code="queue")
    first, second, third = (make_player(f"q{i}") for i in range(3))
    services.table_play(user=first, room=room)
    services.table_play(user=second, room=room)
    held, release = threading.Event(), threading.Event()

    def other_tab() -> None:
        try:
            with transaction.atomic():
                user_lock(user_id=first.pk)
                held.set()
                release.wait(timeout=30)
        finally:
            connections.close_all()

    thread = threading.Thread(target=other_tab)
    thread.start()
    try:
        assert held.wait(timeout=30)
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '5s'")
            table, _seat = services.table_play(user=third, room=room)
    finally:
        release.set()
        thread.join(timeout=30)
    assert Game.objects.filter(table=table, status=Game.Status.PLAYING).count() == 1
    assert {player.user_id for player in Game.objects.get(table=table).players.all()} == {
        first.pk,
        second.pk,
        third.pk,
    }


def test_after_a_game_the_table_says_until_when_its_players_may_play_again(
    room: Room, trio: list[User]
) -> None:
    table, game = full_table(room, trio)
    assert frames.table_view(table=table, seat=0)["ready_by"] is None  # being played
    play_out(game)
    game.refresh_from_db()
    table.refresh_from_db()
    assert game.finished_at is not None
    ready_by = (game.finished_at + timedelta(seconds=settings.READY_SECONDS)).isoformat()
    assert frames.table_view(table=table, seat=1)["ready_by"] == ready_by
    assert frames.table_view(table=table, seat=None)["ready_by"] == ready_by
    with translation.override("en"):
        frame, _ = render_frame_and_version(table=table, seat=1)
    assert f'data-count-to="{ready_by}"' in frame
    assert "Players who are not ready in {n} s leave their seats." in frame
    with translation.override("zh-hans"):
        frame, _ = render_frame_and_version(table=table, seat=1)
    assert "{n} 秒内未准备的玩家将离座。" in frame
    # Once every player is ready the next game starts, and the time no longer shows.
    for user in trio:
        services.table_play_again(user=user, table=table)
    table.refresh_from_db()
    assert frames.table_view(table=table, seat=0)["ready_by"] is None


def test_only_a_public_table_counts_down_to_its_bots(room: Room, trio: list[User]) -> None:
    public, _ = services.table_play(user=trio[0], room=room)
    private = services.table_create_private(user=trio[1], room=room)
    assert public.waiting_since is not None and private.waiting_since is not None
    bots_at = public.waiting_since + timedelta(seconds=settings.BOT_FILL_SECONDS)
    assert frames.table_view(table=public, seat=0)["bots_at"] == bots_at.isoformat()
    assert frames.table_view(table=private, seat=0)["bots_at"] is None
    with translation.override("en"):
        frame, _ = render_frame_and_version(table=private, seat=0)
    assert "bots take the free seats" not in frame
    assert "Waiting for friends to sit down" in frame
    with translation.override("zh-hans"):
        frame, _ = render_frame_and_version(table=private, seat=0)
    assert "等待好友入座" in frame and "机器人补位" in frame  # the button still offers bots
