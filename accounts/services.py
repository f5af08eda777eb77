"""Writes to wallets and the coin ledger. Every coin movement goes through ``coins_move``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction

from .models import LedgerEntry, LedgerReason, User, Wallet

if TYPE_CHECKING:
    from games.models import Game


class InsufficientCoins(Exception):
    """The movement would take a wallet below zero; nothing was written."""


def wallet_create(*, user: User) -> Wallet:
    """A new player's wallet, with the welcome grant (``STARTING_COINS``) as its first entry."""
    with transaction.atomic():
        wallet, created = Wallet.objects.get_or_create(user=user)
        if created and settings.STARTING_COINS > 0:
            coins_move(
                wallet=wallet,
                amount=settings.STARTING_COINS,
                reason=LedgerReason.SIGNUP_GRANT,
            )
            wallet.refresh_from_db()
    return wallet


@transaction.atomic
def coins_move(
    *,
    wallet: Wallet,
    amount: int,
    reason: LedgerReason | str,
    game: Game | None = None,
    staff: User | None = None,
    note: str = "",
) -> LedgerEntry:
    """Add ``amount`` (negative: take) to a wallet and write its ledger row, atomically.

    The wallet row is locked for the transaction, so concurrent movements on one wallet queue up
    and each sees the balance the previous one left. Raises ``InsufficientCoins`` if the balance
    would go below zero, and ``ValueError`` for a zero or non-integer amount.
    """
    if type(amount) is not int or amount == 0:
        raise ValueError("a coin movement is a non-zero whole number of coins")
    locked = Wallet.objects.select_for_update().get(pk=wallet.pk)
    balance = locked.balance + amount
    if balance < 0:
        raise InsufficientCoins(
            f"{locked.user} has {locked.balance:,} coins; {-amount:,} cannot be taken"
        )
    locked.balance = balance
    locked.save(update_fields=["balance", "updated_at"])
    wallet.balance = balance
    return LedgerEntry.objects.create(
        wallet=locked,
        amount=amount,
        balance_after=balance,
        reason=reason,
        game=game,
        staff=staff,
        note=note[:500],
    )
