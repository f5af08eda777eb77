"""上海斗地主 at a table, through the services, the clock and the frames: four seats, 25 cards
each from two decks, the bidding (小地主, 大地主, 不叫) with a redeal when all four pass, the
landlord taking the eight bottom cards, the farmers' bomb allowances enforced by the server,
timeouts and auto-play, the settlement in points × base through the ledger, and the record and
replay of a game; every frame shows a seat only what it may see."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from django.db.models import Sum
from django.utils import translation

from accounts.models import LedgerEntry
from games import runner, selectors, services
from games.errors import GameActionRefused
from games.frames import render_frame_and_version
from games.frames.refusals import refusal_message
from games.frames.views import table_view
from games.models import Game, GameEvent, Room, Seat, Table
from games.rules import Phase
from games.rules.shanghai import BIG, ENGINE, NO_BID, PASS, SMALL, GameState, Play
from games.rules.shanghai.cards import format_cards
from games.rules.shanghai.game import deal_from_seed
from games.selectors import game_state
from tests.games.helpers import (
    balance,
    make_player,
    play_shanghai,
    shanghai_game,
    shanghai_room,
)

pytestmark = pytest.mark.django_db

CARD = re.compile(r'data-card="([^"]+)"')
VALUE = re.compile(r'name="cards" value="([^"]+)"')
BASE = 50


def fresh(game: Game) -> tuple[Game, GameState]:
    game.refresh_from_db()
    state = game_state(game=game)
    assert isinstance(state, GameState)
    return game, state


def frame(table: Table, seat: int | None, language: str = "en") -> str:
    table = Table.objects.select_related("room").get(pk=table.pk)
    with translation.override(language):
        return render_frame_and_version(table=table, seat=seat)[0]


def version_of(table: Table, seat: int) -> str:
    table = Table.objects.select_related("room").get(pk=table.pk)
    return render_frame_and_version(table=table, seat=seat)[1]


def act(user: Any, table: Table, seat: int, move: dict[str, Any]) -> GameEvent:
    return services.table_game_act(
        user=user, table=table, action=move, version=version_of(table, seat)
    )


def codes(cards: Any) -> set[str]:
    return {str(card) for card in cards}


def check_frames(table: Table, state: GameState) -> None:
    """Each seat's frame (and a spectator's) holds its own cards and what is public: no card of
    another seat's hand, and no bottom card before the landlord takes them. Both copies of a
    card are told apart by their deck."""
    bottom = codes(state.bottom)
    public_bottom = bottom if state.landlord is not None else set()
    for seat in (0, 1, 2, 3, None):
        shown = set(CARD.findall(frame(table, seat)))
        for other in range(4):
            if other == seat:
                continue
            hidden = codes(state.hand(other)) - public_bottom
            assert not shown & hidden, f"seat {seat} sees {shown & hidden} of seat {other}"
        if state.landlord is None:
            assert not shown & bottom, f"seat {seat} sees the bottom cards face down"


def four_players(room: Room, *, seed: int) -> tuple[list[Any], Table, Game]:
    users = [make_player(name) for name in ("dong", "nan", "xi", "bei")]
    game = shanghai_game(room, users, seed=seed)
    return users, Table.objects.get(pk=game.table_id), game


def test_the_rooms_are_listed_after_doudizhus_in_the_lobby(client: Any) -> None:
    rooms = list(Room.objects.filter(game="shanghai").order_by("position"))
    assert [room.code for room in rooms] == [
        "sh-novice",
        "sh-junior",
        "sh-intermediate",
        "sh-senior",
        "sh-master",
    ]
    doudizhu = Room.objects.filter(game="doudizhu").order_by("-position").first()
    assert doudizhu is not None and rooms[0].position > doudizhu.position
    for room in rooms:
        # A 大地主 lost costs the landlord nine bases: a room asks for more than that.
        assert room.min_coins >= 9 * room.base
        assert ENGINE.options_from_json(room.rules) == ENGINE.default_options
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    section = page[page.index('id="game-shanghai"') :]
    assert "上海斗地主" in section[:400]
    for room in rooms:
        assert f'id="room-{room.code}"' in section
    room_page = client.get(f"/rooms/{rooms[0].code}/").content.decode()
    assert rooms[0].name_zh in room_page


def test_four_seats_are_dealt_25_cards_each_and_see_only_their_own() -> None:
    room = shanghai_room()
    users, table, game = four_players(room, seed=11)
    game, state = fresh(game)
    assert state.phase is Phase.BID and game.players.count() == 4
    check_frames(table, state)
    for seat in range(4):
        page = frame(table, seat)
        values = VALUE.findall(page)
        # Every card a checkbox of its own, the two copies of a card apart by their deck.
        assert sorted(values) == sorted(codes(state.hand(seat))) and len(values) == 25
        assert len(set(values)) == 25
        # The eight bottom cards face down, three opponents with 25 cards each.
        assert page.count('class="card-back"') == 8 + 4
        assert page.count('class="seat-card-count">25<') == 4
    # Somewhere both copies of a card are in one hand: two checkboxes, one name for both.
    doubled = next(
        (seat, base)
        for seat in range(4)
        for base, count in Counter(code.split(".")[0] for code in codes(state.hand(seat))).items()
        if count == 2
    )
    seat, base = doubled
    page = frame(table, seat)
    assert f'value="{base}.1"' in page and f'value="{base}.2"' in page
    labels = re.findall(rf'value="{re.escape(base)}\.[12]"[^>]*aria-label="([^"]+)"', page)
    assert len(labels) == 2 and labels[0] == labels[1] and "of" in labels[0]
    # The seat to bid is offered 小地主, 大地主 and 不叫, and nobody else is.
    to_move = state.to_move
    assert to_move is not None
    offered = frame(table, to_move)
    for name in ("bid-small", "bid-big", "bid-pass"):
        assert f'data-action="{name}"' in offered
    assert 'data-action="bid-' not in frame(table, (to_move + 1) % 4)
    assert 'data-action="bid-' not in frame(table, None)


def test_a_small_landlord_topped_by_a_big_one_takes_the_bottom_and_sets_the_bombs() -> None:
    room = shanghai_room()
    users, table, game = four_players(room, seed=5)
    game, state = fresh(game)
    first = state.to_move
    assert first is not None
    bottom = codes(state.bottom)
    act(users[first], table, first, SMALL.to_json())
    game, state = fresh(game)
    second = (first + 1) % 4
    # After 小地主 only 大地主 or 不叫.
    page = frame(table, second)
    assert 'data-action="bid-small"' not in page and 'data-action="bid-big"' in page
    with pytest.raises(GameActionRefused) as refused:
        act(users[second], table, second, SMALL.to_json())
    assert refused.value.code == "wrong_bid"
    act(users[second], table, second, BIG.to_json())
    game, state = fresh(game)
    # 大地主 ends the bidding: the big bidder is the landlord, holds 33 cards and leads.
    assert state.landlord == second and state.bid == "big" and state.to_move == second
    assert len(state.hand(second)) == 33 and bottom <= codes(state.hand(second))
    check_frames(table, state)
    spectator = frame(table, None)
    bottom_html = spectator[spectator.index("data-bottom") :]
    bottom_html = bottom_html[: bottom_html.index("</div>")]
    assert set(CARD.findall(bottom_html)) == bottom
    assert 'data-bid="big"' in spectator and "data-points>9<" in spectator
    notes = dict(
        re.findall(
            r'data-seat="(\d)">\s*<div class="seat-head">.*?data-seat-note>([^<]+)<',
            spectator,
            re.S,
        )
    )
    # The 小地主 bidder may bomb twice, the landlord and the farmers never asked freely.
    assert notes[str(first)] == "Bombs 2/2"
    assert notes[str(second)] == "Bombs ∞"
    for seat in ((second + 1) % 4, (second + 2) % 4):
        assert notes[str(seat)] == "Bombs ∞"


def test_four_no_bids_deal_the_cards_again() -> None:
    room = shanghai_room()
    users, table, game = four_players(room, seed=8)
    game, state = fresh(game)
    dealt = [codes(state.hand(seat)) for seat in range(4)]
    for _turn in range(4):
        seat = state.to_move
        assert seat is not None
        act(users[seat], table, seat, NO_BID.to_json())
        game, state = fresh(game)
    assert state.phase is Phase.BID and len(state.deals) == 2 and not state.bids
    assert [codes(state.hand(seat)) for seat in range(4)] != dealt
    assert state.to_move == state.deals[1].first_bidder
    check_frames(table, state)
    page = frame(table, None)
    assert 'data-sound="deal"' in page and 'data-redeal="1"' in page
    # No card of the thrown-in deal is left in any frame.
    for seat in range(4):
        values = set(VALUE.findall(frame(table, seat)))
        assert values == codes(state.hand(seat))


def _bomb_seed() -> tuple[int, int, list[str]]:
    """A seed whose first bidder holds bombs of two ranks: the seed, the seat, the two bombs."""
    for seed in range(500):
        deal = deal_from_seed(seed)
        hand = deal.hands[deal.first_bidder]
        by_rank: dict[str, list[str]] = {}
        for card in hand:
            if card.suit is not None:
                by_rank.setdefault(card.rank.symbol, []).append(str(card))
        bombs = [" ".join(cards) for cards in by_rank.values() if len(cards) >= 4]
        if len(bombs) >= 2:
            return seed, deal.first_bidder, bombs[:2]
    raise AssertionError("no deal with two bombs in the first bidder's hand")


def test_a_farmer_who_said_no_bid_may_bomb_once_and_the_server_refuses_a_second() -> None:
    seed, passer, (bomb, other_bomb) = _bomb_seed()
    room = shanghai_room()
    users, table, game = four_players(room, seed=seed)
    game, state = fresh(game)
    assert state.to_move == passer
    act(users[passer], table, passer, NO_BID.to_json())
    landlord = (passer + 1) % 4
    act(users[landlord], table, landlord, BIG.to_json())
    game, state = fresh(game)
    assert state.landlord == landlord and state.bombs_left[passer] == 1
    # The landlord leads a single, the two farmers after pass, the passer bombs.
    act(users[landlord], table, landlord, state.legal_moves()[0].to_json())
    for seat in ((landlord + 1) % 4, (landlord + 2) % 4):
        act(users[seat], table, seat, PASS.to_json())
    act(users[passer], table, passer, {"play": bomb})
    game, state = fresh(game)
    assert state.bombs_left[passer] == 0 and state.bombs_played[passer] == 1
    for seat in (landlord, (landlord + 1) % 4, (landlord + 2) % 4):
        act(users[seat], table, seat, PASS.to_json())
    game, state = fresh(game)
    assert state.to_move == passer and state.table is None
    # Leading again, the passer is offered no bomb, and the server refuses one with its reason.
    page = frame(table, passer)
    assert "every bomb the bidding allows you" in page
    assert "Bombs 0/1" in page
    hints = re.search(r'<script id="hints" type="application/json">(.*?)</script>', page, re.S)
    assert hints is not None
    for hint in json.loads(hints.group(1)):
        play = Play.parse(hint["cards"])
        assert play.combo is not None and not play.combo.is_bomb
    before = game.events.count()
    with pytest.raises(GameActionRefused) as refused:
        act(users[passer], table, passer, {"play": other_bomb})
    assert refused.value.code == "bomb_limit"
    with translation.override("en"):
        message = refusal_message("bomb_limit", "shanghai")
    assert "every bomb the bidding allows you" in message
    assert game.events.count() == before


def test_a_timeout_says_no_bid_and_two_in_a_row_hand_the_seat_to_auto_play() -> None:
    room = shanghai_room()
    users, table, game = four_players(room, seed=21)

    def time_out() -> GameEvent:
        game.refresh_from_db()
        assert game.turn_deadline is not None
        assert runner.run_due_work(now=game.turn_deadline + timedelta(seconds=0.01)) == 1
        event = game.events.order_by("-number").first()
        assert event is not None
        return event

    game, state = fresh(game)
    first = state.to_move
    assert first is not None
    event = time_out()
    assert event.seat == first and event.action == {"bid": "pass"}
    assert event.source == GameEvent.Source.TIMEOUT
    # The others pass too: the cards are dealt again, and the seat's clock runs out once more.
    game, state = fresh(game)
    while len(state.deals) == 1:
        seat = state.to_move
        assert seat is not None
        act(users[seat], table, seat, NO_BID.to_json())
        game, state = fresh(game)
    while state.to_move != first:
        seat = state.to_move
        assert seat is not None
        act(users[seat], table, seat, NO_BID.to_json())
        game, state = fresh(game)
    assert time_out().source == GameEvent.Source.TIMEOUT
    seat_row = Seat.objects.get(table=table, position=first)
    assert seat_row.auto_play
    assert 'data-action="resume"' in frame(table, first)
    services.table_set_auto_play(user=users[first], table=table, on=False)
    assert not Seat.objects.get(table=table, position=first).auto_play


@pytest.mark.parametrize("seed", [1, 2])
def test_a_person_and_three_bots_play_a_whole_game_and_the_ledger_settles_it_once(
    seed: int,
) -> None:
    """The person at seat 0 says 小地主 when asked and plays the Hint button's first play; the
    runner's clock moves the bots."""
    room = shanghai_room()
    person = make_player("p", 50_000)
    table = Table.objects.create(room=room)
    table.seats.create(position=0, user=person, ready=True)
    for position in (1, 2, 3):
        table.seats.create(position=position, is_bot=True, ready=True)
    game = services.game_start(table=table, players=[person, None, None, None], seed=seed)
    start = balance(person)
    for _turn in range(800):
        game, state = fresh(game)
        if game.status != Game.Status.PLAYING:
            break
        if _turn % 10 == 0:
            check_frames(table, state)
        if state.to_move == 0:
            hints = hints_of(table)
            if state.phase is Phase.BID:
                act(person, table, 0, hints[0])
            elif hints:
                act(person, table, 0, {"play": hints[0]["cards"]})
            else:
                act(person, table, 0, PASS.to_json())
        else:
            game.refresh_from_db()
            assert game.turn_deadline is not None
            assert services.game_turn_due(game=game, now=game.turn_deadline) is not None
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.settled_at is not None
    result = game.result
    assert result is not None
    # Points × base, zero-sum: the landlord against each farmer.
    points = result["points"]
    assert points in (6, 9)
    landlord = result["landlord"]
    sign = 1 if result["landlord_won"] else -1
    for seat in range(4):
        expected = sign * points * BASE if seat == landlord else -sign * points // 3 * BASE
        assert result["payments"][seat] == expected
    rows = LedgerEntry.objects.filter(game=game)
    assert rows.aggregate(total=Sum("amount"))["total"] == 0
    assert balance(person) - start == result["coins"][0]
    services.game_settle(game=game)
    assert LedgerEntry.objects.filter(game=game).count() == rows.count()
    # The settlement on the table: points by seat, the hands left shown.
    page = frame(table, 0)
    assert "settlement" in page
    for seat in range(4):
        points_shown = re.search(
            rf'<tr[^>]*data-seat="{seat}">.*?data-points="(-?\d+)"', page, re.S
        )
        assert points_shown is not None
        assert int(points_shown.group(1)) == result["payments"][seat] // BASE


def hints_of(table: Table) -> list[Any]:
    table = Table.objects.select_related("room").get(pk=table.pk)
    view = table_view(table=table, seat=0)
    return list(view["game"]["hints"] or [])


def test_nobody_pays_more_than_they_have() -> None:
    room = shanghai_room()
    poor = [make_player(name, coins) for name, coins in (("a", 20), ("b", 10_000), ("c", 30))]
    rich = make_player("d", 10_000)
    users = [*poor, rich]
    game = shanghai_game(room, users, seed=4)
    start = [balance(user) for user in users]
    play_shanghai(game, redeal=False)
    game.refresh_from_db()
    result = game.result
    assert result is not None and sum(result["coins"]) == 0
    for seat, user in enumerate(users):
        assert balance(user) >= 0
        assert balance(user) - start[seat] == result["coins"][seat]
        assert abs(result["coins"][seat]) <= abs(result["payments"][seat])


def test_the_record_and_the_replay_are_the_game() -> None:
    room = shanghai_room()
    users, table, game = four_players(room, seed=13)
    play_shanghai(game)
    game.refresh_from_db()
    record = selectors.game_record(game=game)
    assert record["format"] == "shanghai-record/1"
    assert len(record["deals"]) == 2  # the first thrown in after four 不叫
    outcome = ENGINE.replay_record(record)
    assert outcome.ok and outcome.state == game_state(game=game)
    assert outcome.settlement is not None
    assert list(outcome.settlement.payments) == game.result["payments"]  # type: ignore[index]
    # The players' replay: one frame a step, the last with the hands left.
    frames = selectors.game_replay_frames(game=game)
    assert len(frames) == game.events.count() + 1
    final = game_state(game=game)
    assert frames[-1]["hands"] == [format_cards(final.hand(seat)) for seat in range(4)]
    assert frames[-1]["winner"] == final.winner
    landlord = final.landlord
    assert landlord is not None
    assert frames[-1]["roles"][landlord] == "Landlord" or frames[-1]["roles"][landlord] == "地主"
    assert frames[-1]["piles"][0]["cards"] == format_cards(final.bottom)
