"""The card counter (记牌器), and the mark of a seat about to go out (报单 / 报双)."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.utils import translation

from accounts.models import User
from games import selectors, services
from games.frames import render_frame_and_version
from games.models import Table
from games.rules import parse_cards
from tests.games.helpers import (
    doudizhu_room,
    make_room,
    play_doudizhu,
    play_out,
    start_from_position,
)

pytestmark = pytest.mark.django_db

RANK = re.compile(r'<span(?: class="out")?><b>([^<]+)</b>(\d+)</span>')
ORDER = ["RJ", "BJ", "2", "A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3"]
LABELS = {"大": "RJ", "小": "BJ", "10": "T"}


def seated(room_table: Table, users: list[User]) -> Table:
    for position, user in enumerate(users):
        room_table.seats.create(position=position, user=user)
    return room_table


def counter(table: Table, seat: int | None) -> dict[str, int]:
    frame, _version = render_frame_and_version(table=table, seat=seat)
    board = frame[frame.index("data-card-counter") :]
    found = [(LABELS.get(label, label), left) for label, left in RANK.findall(board)[:15]]
    assert [rank for rank, _left in found] == ORDER
    # A rank with none left is dimmed.
    assert board.count('<span class="out">') == sum(left == "0" for _rank, left in found)
    return {rank: int(left) for rank, left in found}


def expected(record: dict, hand: str) -> dict[str, int]:
    """From the record's plays, as a person keeping count would: 4 of each rank, one joker each."""
    gone = Counter(card.rank.symbol for card in parse_cards(hand))
    for action in record["actions"]:
        if "play" in action:
            gone.update(card.rank.symbol for card in parse_cards(action["play"]))
    return {rank: (1 if rank in ("RJ", "BJ") else 4) - gone[rank] for rank in ORDER}


@pytest.mark.parametrize("game", ["gandengyan", "doudizhu"])
def test_the_counter_takes_the_played_cards_and_the_viewers_hand(
    game: str, trio: list[User]
) -> None:
    room = make_room() if game == "gandengyan" else doudizhu_room()
    table = seated(Table.objects.create(room=room), trio)
    played = services.game_start(table=table, players=trio, seed=21)
    if game == "gandengyan":
        play_out(played, seed=4, stop_before_end=True)
    else:
        play_doudizhu(played, until=lambda state: len(state.history) > 30)
    state = selectors.game_state(game=played)
    record = selectors.game_record(game=played)
    assert any("play" in action for action in record["actions"])
    for seat in range(3):
        hand = " ".join(str(card) for card in state.hand(seat))
        assert counter(table, seat) == expected(record, hand)
    # A spectator counts only what was played: every hand is unseen.
    assert counter(table, None) == expected(record, "")
    # Between games there is nothing to count.
    if game == "gandengyan":
        play_out(played, seed=4)
        frame, _version = render_frame_and_version(table=table, seat=0)
        assert "data-card-counter" not in frame


def test_a_seat_with_one_or_two_cards_is_marked(trio: list[User]) -> None:
    table = seated(Table.objects.create(room=make_room()), trio)
    start_from_position(
        table=table, players=trio, hands=["3s 9h", "4s", "5s 6s 7h"], stock="Ks Kh", dealer=2
    )
    with translation.override("en"):
        frame, _version = render_frame_and_version(table=table, seat=2)
    badges = re.findall(r'data-cards-left="(\d)">([^<]+)<', frame)
    assert sorted(badges) == [("1", "Last card!"), ("2", "Two cards left!")]
    with translation.override("zh-hans"):
        frame, _version = render_frame_and_version(table=table, seat=0)
    assert sorted(re.findall(r'data-cards-left="(\d)">([^<]+)<', frame)) == [
        ("1", "报单"),
        ("2", "报双"),
    ]


def test_each_seat_shows_its_play_of_the_last_round(trio: list[User]) -> None:
    table = seated(Table.objects.create(room=make_room()), trio)
    start_from_position(
        table=table,
        players=trio,
        hands=["3s 8c 9d", "4h 9h Kd", "6s Qc Jd"],
        stock="Ks Kh Kc Ts Tc Td",
        dealer=0,
    )

    def last_rounds() -> dict[str, str]:
        with translation.override("en"):
            frame, version = render_frame_and_version(table=table, seat=0)
        found = re.findall(
            r'data-seat="(\d)".*?(?:data-last-round>Last round: ([^<]+)</div>|(?=data-seat=)|$)',
            frame,
            re.S,
        )
        return {seat: text for seat, text in found if text}

    def act(user: User, action: dict[str, object]) -> None:
        with translation.override("en"):
            _frame, version = render_frame_and_version(table=table, seat=0)
        services.table_game_act(user=user, table=table, action=action, version=version)
        table.refresh_from_db()

    act(trio[0], {"play": "3s"})
    act(trio[1], {"play": "4h"})
    assert last_rounds() == {}  # the first round goes on
    act(trio[2], {"pass": True})
    act(trio[0], {"pass": True})
    # Seat 1 won the round and leads the next: every seat shows what it did last in it.
    assert last_rounds() == {"0": "Pass", "1": "4", "2": "Pass"}


def test_during_the_deal_the_counter_takes_only_the_cards_dealt_so_far(trio: list[User]) -> None:
    """斗地主's cards are shown dealt step by step: a player's counter takes from the deck only
    the cards of their hand dealt so far, never the rest of it (明牌 at ×5 and ×4 is declared
    before the hand is known)."""
    table = seated(Table.objects.create(room=doudizhu_room()), trio)
    played = services.game_start(table=table, players=trio, seed=33)
    state = selectors.game_state(game=played)
    assert state.dealt == 0
    for seat in (0, 1, 2, None):
        assert sum(counter(table, seat).values()) == 54
    play_doudizhu(played, redeal=False, show=False, until=lambda state: state.dealt >= 8)
    state = selectors.game_state(game=played)
    assert state.dealt == 8
    record = selectors.game_record(game=played)
    for seat in range(3):
        shown = " ".join(str(card) for card in state.current_deal.hands[seat][:8])
        assert counter(table, seat) == expected(record, shown)
        assert sum(counter(table, seat).values()) == 54 - 8
    assert sum(counter(table, None).values()) == 54
