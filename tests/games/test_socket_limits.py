"""The table sockets' message limits (games.socket_limits), counted in moving windows, and the
places that cap how many sockets are open."""

from __future__ import annotations

from django.core.cache import cache
from limits import parse_many

from games.socket_limits import (
    FORGET_EVERY,
    MovingWindows,
    place_take,
    places_free,
    places_renew,
)


def test_a_window_lets_its_amount_through_then_refuses_until_the_first_leaves_it() -> None:
    windows, rates = MovingWindows(), parse_many("3/second")
    assert [windows.hit(7, rates, now) for now in (10.0, 10.1, 10.2)] == [True, True, True]
    assert not windows.hit(7, rates, 10.5)
    assert not windows.hit(7, rates, 10.99)
    # The first message left the window at 11.0; the refused ones never counted.
    assert windows.hit(7, rates, 11.01)
    assert not windows.hit(7, rates, 11.05)


def test_each_user_has_windows_of_their_own() -> None:
    windows, rates = MovingWindows(), parse_many("1/second")
    assert windows.hit(1, rates, 5.0)
    assert windows.hit(2, rates, 5.0)
    assert not windows.hit(1, rates, 5.5)


def test_the_longer_window_limits_a_steady_sender() -> None:
    windows, rates = MovingWindows(), parse_many("2/second;5/minute")
    sent = [windows.hit(1, rates, float(second)) for second in range(8)]
    assert sent == [True] * 5 + [False] * 3  # two a second would pass, five a minute do
    assert windows.hit(1, rates, 60.5)  # the first left the minute


def test_windows_of_users_gone_quiet_are_forgotten() -> None:
    windows, rates = MovingWindows(), parse_many("10/second")
    windows.hit(1, rates, 0.0)
    for number in range(FORGET_EVERY - 1):
        windows.hit(2, rates, 5.0 + number / 1000)
    assert {key[0] for key in windows.times} == {2}


def test_sockets_take_numbered_places_until_none_is_left_and_give_back_their_own() -> None:
    taken = [place_take(kind="user:7", capacity=3, owner=f"socket-{n}") for n in range(3)]
    assert None not in taken and len(set(taken)) == 3
    assert place_take(kind="user:7", capacity=3, owner="socket-3") is None
    assert place_take(kind="user:8", capacity=3, owner="socket-3") is not None  # another user
    places_free([str(taken[1])], "socket-0")  # not its place: nothing happens
    assert place_take(kind="user:7", capacity=3, owner="socket-3") is None
    places_free([str(taken[1])], "socket-1")
    assert place_take(kind="user:7", capacity=3, owner="socket-3") == taken[1]


def test_a_place_renewed_after_it_expired_is_taken_again_if_free() -> None:
    key = place_take(kind="spectators:5", capacity=1, owner="socket-0")
    assert key is not None
    cache.delete(key)  # as if it expired
    places_renew([key], "socket-0")
    assert cache.get(key) == "socket-0"
    assert place_take(kind="spectators:5", capacity=1, owner="socket-1") is None
