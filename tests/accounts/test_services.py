"""accounts.services: coin movements, the ledger, relief coins and staff adjustments."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import translation

from accounts.models import LedgerEntry, LedgerReason, User, Wallet
from accounts.services import (
    InsufficientCoins,
    ReliefRefused,
    coins_adjust_by_staff,
    coins_move,
    coins_move_many,
    relief_claim,
    wallet_create,
)
from games.models import Room

pytestmark = pytest.mark.django_db


def entries(user: User) -> list[LedgerEntry]:
    return list(LedgerEntry.objects.filter(wallet__user=user).order_by("id"))


# Wallets and coins_move ---------------------------------------------------------------------------


def test_wallet_create_grants_the_welcome_coins_once(settings) -> None:
    user = User.objects.create_user(username="a")
    wallet = wallet_create(user=user)
    assert wallet.balance == settings.STARTING_COINS == 10_000
    assert wallet_create(user=user).pk == wallet.pk
    [entry] = entries(user)
    assert (entry.amount, entry.balance_after, entry.reason) == (
        10_000,
        10_000,
        LedgerReason.SIGNUP_GRANT,
    )


def test_coins_move_writes_one_ledger_row_with_the_new_balance(player: User) -> None:
    wallet = Wallet.objects.get(user=player)
    entry = coins_move(wallet=wallet, amount=-2_500, reason=LedgerReason.GAME)
    assert wallet.balance == 7_500
    assert Wallet.objects.get(pk=wallet.pk).balance == 7_500
    assert (entry.amount, entry.balance_after) == (-2_500, 7_500)
    assert len(entries(player)) == 2


def test_coins_move_refuses_a_negative_balance_and_writes_nothing(player: User) -> None:
    wallet = Wallet.objects.get(user=player)
    with pytest.raises(InsufficientCoins):
        coins_move(wallet=wallet, amount=-10_001, reason=LedgerReason.GAME)
    assert Wallet.objects.get(pk=wallet.pk).balance == 10_000
    assert len(entries(player)) == 1


@pytest.mark.parametrize("amount", [0, 1.5, True])
def test_coins_move_refuses_zero_and_non_integers(player: User, amount: object) -> None:
    with pytest.raises(ValueError):
        coins_move(wallet=Wallet.objects.get(user=player), amount=amount, reason="game")  # type: ignore[arg-type]
    assert len(entries(player)) == 1


def test_coins_move_many_locks_every_wallet_at_once_and_writes_their_rows_in_one_statement(
    make_player: Callable[..., User], django_assert_num_queries
) -> None:
    players = [make_player(balance=1_000) for _ in range(4)]
    wallets = [Wallet.objects.get(user=user) for user in players]
    amounts = [-300, -200, 100, 400]
    # A savepoint, the wallets' lock, a balance each, their rows and the savepoint's release.
    with django_assert_num_queries(8):
        made = coins_move_many(
            moves=list(zip(wallets, amounts, strict=True)), reason=LedgerReason.GAME
        )
    assert [wallet.balance for wallet in wallets] == [700, 800, 1_100, 1_400]
    assert [Wallet.objects.get(pk=wallet.pk).balance for wallet in wallets] == [
        700,
        800,
        1_100,
        1_400,
    ]
    assert [(entry.wallet_id, entry.amount, entry.balance_after) for entry in made] == [
        (wallet.pk, amount, 1_000 + amount) for wallet, amount in zip(wallets, amounts, strict=True)
    ]
    # In the order given, each row kept as the ledger shows it.
    stored = list(LedgerEntry.objects.filter(pk__in=[entry.pk for entry in made]).order_by("pk"))
    assert [(entry.wallet_id, entry.amount) for entry in stored] == [
        (wallet.pk, amount) for wallet, amount in zip(wallets, amounts, strict=True)
    ]


def test_coins_move_many_moves_all_or_nothing(make_player: Callable[..., User]) -> None:
    rich, poor = make_player(balance=5_000), make_player(balance=100)
    wallets = [Wallet.objects.get(user=rich), Wallet.objects.get(user=poor)]
    rows_before = LedgerEntry.objects.count()
    with pytest.raises(InsufficientCoins, match="100 coins; 101 cannot be taken"):
        coins_move_many(moves=[(wallets[0], 1_000), (wallets[1], -101)], reason=LedgerReason.GAME)
    with pytest.raises(ValueError, match="at most once"):
        coins_move_many(moves=[(wallets[0], 10), (wallets[0], -10)], reason=LedgerReason.GAME)
    with pytest.raises(ValueError, match="non-zero whole number"):
        coins_move_many(moves=[(wallets[0], 10), (wallets[1], 0)], reason=LedgerReason.GAME)
    assert [Wallet.objects.get(pk=wallet.pk).balance for wallet in wallets] == [5_000, 100]
    assert [wallet.balance for wallet in wallets] == [5_000, 100]
    assert LedgerEntry.objects.count() == rows_before


def test_the_database_refuses_a_negative_balance(player: User) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Wallet.objects.filter(user=player).update(balance=-1)
    assert Wallet.objects.get(user=player).balance == 10_000


# The ledger is append-only ------------------------------------------------------------------------


def test_a_ledger_row_cannot_be_saved_again(player: User) -> None:
    entry = LedgerEntry.objects.get(wallet__user=player)
    entry.amount = 1_000_000
    with pytest.raises(TypeError):
        entry.save()
    assert LedgerEntry.objects.get(pk=entry.pk).amount == 10_000


def test_a_ledger_row_cannot_be_deleted(player: User) -> None:
    entry = LedgerEntry.objects.get(wallet__user=player)
    with pytest.raises(TypeError):
        entry.delete()
    assert LedgerEntry.objects.filter(pk=entry.pk).exists()


def test_ledger_querysets_cannot_update_or_delete(player: User) -> None:
    rows = LedgerEntry.objects.filter(wallet__user=player)
    with pytest.raises(TypeError):
        rows.update(amount=1)
    with pytest.raises(TypeError):
        rows.delete()
    with pytest.raises(TypeError):
        LedgerEntry.objects.all().delete()
    assert rows.get().amount == 10_000


# Relief coins -------------------------------------------------------------------------------------


def test_relief_is_refused_at_or_above_the_lowest_room_minimum(make_player, clock) -> None:
    clock.shanghai(2026, 3, 1, 12, 0)
    lowest = Room.objects.filter(is_open=True).order_by("min_coins").first().min_coins
    user = make_player(balance=lowest)
    with translation.override("en"), pytest.raises(ReliefRefused) as refused:
        relief_claim(user=user)
    assert "cannot afford any room" in str(refused.value)
    assert f"{lowest:,}" in str(refused.value)
    assert not LedgerEntry.objects.filter(wallet__user=user, reason=LedgerReason.RELIEF).exists()


def test_relief_below_the_minimum_grants_the_relief_coins(make_player, clock, settings) -> None:
    clock.shanghai(2026, 3, 1, 12, 0)
    user = make_player(balance=999)
    entry = relief_claim(user=user)
    assert entry.reason == LedgerReason.RELIEF
    assert entry.amount == settings.RELIEF_COINS
    assert Wallet.objects.get(user=user).balance == 999 + settings.RELIEF_COINS


def test_the_threshold_is_the_lowest_open_room(make_player, clock) -> None:
    clock.shanghai(2026, 3, 1, 12, 0)
    Room.objects.filter(code__in=["novice", "ddz-novice", "sh-novice"]).update(is_open=False)
    junior = Room.objects.get(code="junior").min_coins
    user = make_player(balance=junior - 1)
    relief_claim(user=user)  # below the junior room's minimum: allowed
    richer = make_player(balance=junior)
    with pytest.raises(ReliefRefused):
        relief_claim(user=richer)


def test_no_open_room_means_no_relief(make_player, clock) -> None:
    clock.shanghai(2026, 3, 1, 12, 0)
    Room.objects.update(is_open=False)
    with pytest.raises(ReliefRefused):
        relief_claim(user=make_player(balance=0))


def test_a_player_without_a_wallet_is_refused(db: None) -> None:
    user = User.objects.create_user(username="nowallet")
    with pytest.raises(ReliefRefused):
        relief_claim(user=user)


def _drain(user: User) -> None:
    wallet = Wallet.objects.get(user=user)
    coins_move(wallet=wallet, amount=-wallet.balance, reason=LedgerReason.GAME)


def test_the_daily_limit_counts_relief_rows_of_the_day(
    make_player: Callable[..., User], clock, settings
) -> None:
    settings.RELIEF_CLAIMS_PER_DAY = 3
    clock.shanghai(2026, 3, 1, 9, 0)
    user = make_player(balance=0)
    for _ in range(3):
        relief_claim(user=user)
        _drain(user)
    with translation.override("en"), pytest.raises(ReliefRefused) as refused:
        relief_claim(user=user)
    message = str(refused.value)
    assert "3 times today" in message
    assert "March 2, 2026" in message  # when the limit resets
    assert LedgerEntry.objects.filter(wallet__user=user, reason=LedgerReason.RELIEF).count() == 3


def test_the_refusal_says_when_the_limit_resets_in_chinese(make_player, clock, settings) -> None:
    settings.RELIEF_CLAIMS_PER_DAY = 1
    clock.shanghai(2026, 3, 1, 9, 0)
    user = make_player(balance=0)
    relief_claim(user=user)
    _drain(user)
    with translation.override("zh-hans"), pytest.raises(ReliefRefused) as refused:
        relief_claim(user=user)
    assert "2026年3月2日" in str(refused.value)


def test_the_day_ends_at_midnight_in_shanghai(make_player, clock, settings) -> None:
    settings.RELIEF_CLAIMS_PER_DAY = 2
    clock.shanghai(2026, 3, 1, 23, 30)
    user = make_player(balance=0)
    relief_claim(user=user)
    _drain(user)
    clock.shanghai(2026, 3, 1, 23, 59, 59)
    relief_claim(user=user)
    _drain(user)
    with pytest.raises(ReliefRefused):
        relief_claim(user=user)
    midnight = clock.shanghai(2026, 3, 2, 0, 0)
    assert midnight.astimezone(UTC).day == 1  # still 1 March in UTC
    relief_claim(user=user)  # but a new day in Shanghai
    _drain(user)
    relief_claim(user=user)
    _drain(user)
    with pytest.raises(ReliefRefused):
        relief_claim(user=user)
    # Other wallets' claims do not count.
    other = make_player(balance=0)
    relief_claim(user=other)


def test_claims_from_the_previous_utc_day_but_same_shanghai_day_count(
    make_player, clock, settings
) -> None:
    settings.RELIEF_CLAIMS_PER_DAY = 1
    # 00:30 Shanghai on 2 March is 16:30 UTC on 1 March.
    early = clock.shanghai(2026, 3, 2, 0, 30)
    user = make_player(balance=0)
    relief_claim(user=user)
    _drain(user)
    clock.set(early + timedelta(hours=10))  # 10:30 Shanghai, 2 March in UTC too
    with pytest.raises(ReliefRefused):
        relief_claim(user=user)


# Staff adjustments --------------------------------------------------------------------------------


def test_staff_adjustment_writes_a_row_naming_the_staff(player: User, staff: User) -> None:
    wallet = Wallet.objects.get(user=player)
    entry = coins_adjust_by_staff(
        wallet=wallet, amount=-400, staff=staff, reason_text="  refund of a double charge "
    )
    assert (entry.reason, entry.staff, entry.note) == (
        LedgerReason.STAFF_ADJUSTMENT,
        staff,
        "refund of a double charge",
    )
    assert Wallet.objects.get(pk=wallet.pk).balance == 9_600


def test_non_staff_cannot_adjust(player: User, make_player) -> None:
    someone = make_player()
    with pytest.raises(PermissionDenied):
        coins_adjust_by_staff(
            wallet=Wallet.objects.get(user=player), amount=100, staff=someone, reason_text="gift"
        )
    assert len(entries(player)) == 1


def test_inactive_staff_cannot_adjust(player: User, make_player) -> None:
    former = make_player(is_staff=True, is_active=False)
    with pytest.raises(PermissionDenied):
        coins_adjust_by_staff(
            wallet=Wallet.objects.get(user=player), amount=100, staff=former, reason_text="gift"
        )


@pytest.mark.parametrize("reason", ["", "   ", "x" * 501])
def test_a_reason_is_required(player: User, staff: User, reason: str) -> None:
    with pytest.raises(ValidationError):
        coins_adjust_by_staff(
            wallet=Wallet.objects.get(user=player), amount=100, staff=staff, reason_text=reason
        )
    assert len(entries(player)) == 1


def test_a_zero_adjustment_is_refused(player: User, staff: User) -> None:
    with pytest.raises(ValidationError):
        coins_adjust_by_staff(
            wallet=Wallet.objects.get(user=player), amount=0, staff=staff, reason_text="nothing"
        )


def test_staff_cannot_take_a_balance_below_zero(player: User, staff: User) -> None:
    wallet = Wallet.objects.get(user=player)
    with pytest.raises(InsufficientCoins):
        coins_adjust_by_staff(wallet=wallet, amount=-10_001, staff=staff, reason_text="too much")
    assert Wallet.objects.get(pk=wallet.pk).balance == 10_000
    # Down to exactly zero is allowed.
    coins_adjust_by_staff(wallet=wallet, amount=-10_000, staff=staff, reason_text="all of it")
    assert Wallet.objects.get(pk=wallet.pk).balance == 0
