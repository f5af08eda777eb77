"""accounts.selectors: wallets, ledger pages, balance history, games and disputes of a player."""

from __future__ import annotations

from datetime import timedelta

import pytest

from accounts.models import LedgerReason, User, Wallet
from accounts.selectors import (
    LEDGER_PAGE_SIZE,
    balance_history,
    disputes_of_user,
    games_of_user,
    ledger_page,
    relief_status,
    wallet_get_for_user,
)
from accounts.services import coins_move, relief_claim
from games.models import Dispute, Game

pytestmark = pytest.mark.django_db


def _moves(user: User, amounts: list[int]) -> None:
    wallet = Wallet.objects.get(user=user)
    for amount in amounts:
        coins_move(wallet=wallet, amount=amount, reason=LedgerReason.GAME)


def test_wallet_of_a_user(player: User) -> None:
    assert wallet_get_for_user(user=player) == Wallet.objects.get(user=player)
    assert wallet_get_for_user(user=User.objects.create_user(username="nowallet")) is None


def test_the_ledger_is_paged_newest_first(player: User, make_player) -> None:
    other = make_player()
    _moves(other, [5, 6])
    _moves(player, list(range(1, LEDGER_PAGE_SIZE + 5)))  # 24 moves + the welcome grant
    first = ledger_page(user=player, page=1)
    assert first.paginator.count == LEDGER_PAGE_SIZE + 5
    assert first.paginator.num_pages == 2
    assert [entry.amount for entry in first][:3] == [24, 23, 22]
    second = ledger_page(user=player, page="2")
    assert [entry.amount for entry in second] == [4, 3, 2, 1, 10_000]
    assert {entry.wallet.user_id for entry in [*first, *second]} == {player.pk}


@pytest.mark.parametrize("page", [None, "", "abc", "0"])
def test_a_bad_page_number_gives_a_valid_page(player: User, page: object) -> None:
    assert ledger_page(user=player, page=page).number == 1  # type: ignore[arg-type]


def test_a_page_past_the_end_gives_the_last(player: User) -> None:
    assert ledger_page(user=player, page=99).number == 1


def test_balance_history_is_oldest_first_and_the_users_own(player: User, make_player) -> None:
    _moves(make_player(), [-1])
    _moves(player, [-500, 200])
    history = balance_history(user=player)
    assert [balance for _, balance in history] == [10_000, 9_500, 9_700]
    times = [moment for moment, _ in history]
    assert times == sorted(times)


def test_balance_history_keeps_the_latest_rows(player: User) -> None:
    _moves(player, [-1, -1, -1])
    assert [balance for _, balance in balance_history(user=player, limit=2)] == [9_998, 9_997]


def test_games_of_a_user_with_outcomes_newest_first(player: User, make_player, make_game) -> None:
    other = make_player()
    won = make_game(players=[player, other], winner=0, coins=[800, -800], cards_left=[0, 2])
    lost = make_game(players=[other, player, None], winner=0, coins=[1600, -800, -800])
    playing = make_game(players=[player, other], winner=None, status=Game.Status.PLAYING)
    aborted = make_game(players=[other, player], winner=None, status=Game.Status.ABORTED)
    make_game(players=[other, None], winner=1)  # not the player's
    Game.objects.filter(pk=won.pk).update(started_at=won.started_at - timedelta(hours=3))
    rows = list(games_of_user(user=player))
    assert [(row.game_id, row.outcome) for row in rows] == [
        (aborted.pk, "aborted"),
        (playing.pk, "playing"),
        (lost.pk, "lost"),
        (won.pk, "won"),
    ]
    assert rows[-1].coins == 800
    assert rows[-1].cards_left == 0
    assert rows[-2].seat == 1
    assert rows[-2].game.table.room.code == "novice"


def test_disputes_of_a_user(player: User, make_player, make_game, make_dispute) -> None:
    other = make_player()
    game = make_game(players=[player, other])
    mine = make_dispute(
        game=game,
        user=player,
        status=Dispute.Status.RESOLVED,
        note="The replay shows a bug; we returned your coins.",
    )
    make_dispute(game=game, user=other)
    assert list(disputes_of_user(user=player)) == [mine]
    assert disputes_of_user(user=player)[0].note.startswith("The replay")


def test_relief_status_eligible_and_then_limited(make_player, clock, settings) -> None:
    settings.RELIEF_CLAIMS_PER_DAY = 1
    clock.shanghai(2026, 3, 1, 10, 0)
    user = make_player(balance=100)
    wallet = Wallet.objects.get(user=user)
    status = relief_status(wallet=wallet)
    assert status.eligible
    assert status.refusal == ""
    assert status.lowest_minimum == 1_000
    assert status.claims_today == 0
    relief_claim(user=user)
    coins_move(wallet=wallet, amount=-2_000, reason=LedgerReason.GAME)
    wallet.refresh_from_db()
    status = relief_status(wallet=wallet)
    assert not status.eligible
    assert status.claims_today == 1
    assert status.resets_at.isoformat() == "2026-03-02T00:00:00+08:00"


def test_relief_status_without_a_wallet(db: None) -> None:
    status = relief_status(wallet=None)
    assert not status.eligible
    assert status.refusal
