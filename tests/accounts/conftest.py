"""Fixtures for the accounts tests: players with wallets, staff, games, and a settable clock."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.services import coins_move, wallet_create
from games.models import Dispute, Game, GamePlayer, Room, Table

SHANGHAI = ZoneInfo("Asia/Shanghai")

_names = itertools.count(1)


@pytest.fixture
def make_player(db: None) -> Callable[..., User]:
    """``make_player(balance=..., **fields)``: a user with a wallet at ``balance`` coins.

    The wallet is opened with the welcome grant, then moved to ``balance`` through the ledger.
    """

    def make(*, balance: int | None = None, username: str | None = None, **fields: Any) -> User:
        user = User.objects.create_user(
            username=username or f"player{next(_names)}", password="hongtao-7-dui", **fields
        )
        wallet = wallet_create(user=user)
        if balance is not None and balance != wallet.balance:
            coins_move(
                wallet=wallet,
                amount=balance - wallet.balance,
                reason="staff_adjustment",
                note="test set-up",
            )
        return user

    return make


@pytest.fixture
def player(make_player: Callable[..., User]) -> User:
    return make_player(username="xiaoming")


@pytest.fixture
def staff(make_player: Callable[..., User]) -> User:
    """A staff member with every permission (a superuser)."""
    return make_player(username="boss", is_staff=True, is_superuser=True)


@pytest.fixture
def make_game(db: None) -> Callable[..., Game]:
    """``make_game(players=[user, ...], winner=0, coins=[...])``: a finished game in a room."""
    numbers = itertools.count(1)

    def make(
        *,
        players: list[User | None],
        winner: int | None = 0,
        coins: list[int | None] | None = None,
        cards_left: list[int | None] | None = None,
        status: str = Game.Status.FINISHED,
        room_code: str = "novice",
    ) -> Game:
        room = Room.objects.get(code=room_code)
        table = Table.objects.create(room=room)
        game = Game.objects.create(
            table=table,
            number=next(numbers),
            status=status,
            seed="0" * 64,
            seed_commitment="1" * 64,
            dealer=0,
            base=room.base,
            hands=["3" * 5 for _ in players],
            stock="",
            winner=winner,
        )
        for seat, user in enumerate(players):
            GamePlayer.objects.create(
                game=game,
                seat=seat,
                user=user,
                is_bot=user is None,
                cards_left=cards_left[seat] if cards_left else None,
                coins=coins[seat] if coins else None,
                # The engine's payment, which these tests' coins always are (no wallet ran dry).
                nominal=coins[seat] if coins else None,
            )
        return game

    return make


@pytest.fixture
def make_dispute(db: None) -> Callable[..., Dispute]:
    def make(*, game: Game, user: User, **fields: Any) -> Dispute:
        return Dispute.objects.create(
            game=game, user=user, reason=fields.pop("reason", "?"), **fields
        )

    return make


class Clock:
    """Sets what ``django.utils.timezone.now`` returns, for services and ``auto_now_add`` alike."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._monkeypatch = monkeypatch

    def set(self, moment: datetime) -> None:
        assert moment.tzinfo is not None
        self._monkeypatch.setattr(timezone, "now", lambda: moment)

    def shanghai(self, *args: int) -> datetime:
        """Set the clock to a wall time in Asia/Shanghai, e.g. ``shanghai(2026, 3, 1, 23, 59)``."""
        moment = datetime(*args, tzinfo=SHANGHAI)  # type: ignore[misc]
        self.set(moment)
        return moment


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    yield Clock(monkeypatch)
