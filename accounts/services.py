"""Writes to wallets and the coin ledger. Every coin movement goes through ``coins_move_many``
(``coins_move`` for one)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .models import (
    HOUSE_OPENING_COINS,
    HOUSE_USERNAME,
    NICKNAME_MAX_LENGTH,
    Avatar,
    LedgerEntry,
    LedgerReason,
    User,
    Wallet,
)
from .names import look_alike_message, name_looks_taken, normalise_name
from .selectors import house_wallet_get, relief_refusal

if TYPE_CHECKING:
    from games.models import Game


class InsufficientCoins(Exception):
    """The movement would take a wallet below zero; nothing was written."""


class BalanceTooLarge(Exception):
    """The movement would take a wallet above ``MAX_BALANCE``; nothing was written."""


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


def house_wallet() -> Wallet:
    """The house's wallet (系统庄家): it pays what bots lose and receives what bots win.

    Migration ``accounts.0004_house_wallet`` opens it; when it is missing (a database emptied
    since, as some tests do), it is opened again here as there: a system user ``HOUSE_USERNAME``,
    inactive and with no usable password, and a wallet funded with ``HOUSE_OPENING_COINS`` by a
    ``house_funding`` ledger row. Safe to call concurrently: the database allows one house
    wallet, so a caller who loses the race to open it gets the winner's.
    """
    wallet = house_wallet_get()
    if wallet is not None:
        return wallet
    try:
        with transaction.atomic():
            user = User(username=HOUSE_USERNAME, is_active=False)
            user.set_unusable_password()
            # Uniqueness is left to the database: a check here would race the other opener.
            user.full_clean(validate_unique=False, validate_constraints=False)
            user.save()
            wallet = Wallet(user=user, is_house=True)
            wallet.full_clean(validate_unique=False, validate_constraints=False)
            wallet.save()
            coins_move(
                wallet=wallet,
                amount=HOUSE_OPENING_COINS,
                reason=LedgerReason.HOUSE_FUNDING,
                note="Opening coins of the house",
            )
    except IntegrityError:
        wallet = house_wallet_get()
        if wallet is None:
            raise
    return wallet


def coins_move(
    *,
    wallet: Wallet,
    amount: int,
    reason: LedgerReason | str,
    game: Game | None = None,
    staff: User | None = None,
    note: str = "",
) -> LedgerEntry:
    """Add ``amount`` (negative: take) to a wallet and write its ledger row, atomically
    (``coins_move_many`` with one movement, which says what is checked and raised)."""
    (entry,) = coins_move_many(
        moves=[(wallet, amount)], reason=reason, game=game, staff=staff, note=note
    )
    return entry


@transaction.atomic
def coins_move_many(
    *,
    moves: Sequence[tuple[Wallet, int]],
    reason: LedgerReason | str,
    game: Game | None = None,
    staff: User | None = None,
    note: str = "",
) -> list[LedgerEntry]:
    """Add each ``(wallet, amount)`` of ``moves`` (negative: take) to its wallet and write one
    ledger row for each, in that order, atomically: all of them or none.

    The wallet rows are locked for the transaction (in the order of their keys), so concurrent
    movements on one wallet queue up and each sees the balance the previous one left. Raises
    ``InsufficientCoins`` if a balance would go below zero, ``BalanceTooLarge`` if it would go
    above ``MAX_BALANCE`` (well within the ledger's 64-bit columns), and ``ValueError`` for a
    zero or non-integer amount or a wallet named twice; nothing is written then. The ledger
    rows are written in one statement, however many wallets move.
    """
    if len({wallet.pk for wallet, _amount in moves}) != len(moves):
        raise ValueError("each wallet moves at most once in one call")
    for _wallet, amount in moves:
        if type(amount) is not int or amount == 0:
            raise ValueError("a coin movement is a non-zero whole number of coins")
    locked = {
        row.pk: row
        for row in Wallet.objects.select_for_update()
        .filter(pk__in=[wallet.pk for wallet, _amount in moves])
        .order_by("pk")
    }
    now = timezone.now()
    entries = []
    for wallet, amount in moves:
        row = locked[wallet.pk]
        balance = row.balance + amount
        if balance < 0:
            raise InsufficientCoins(
                f"{row.user} has {row.balance:,} coins; {-amount:,} cannot be taken"
            )
        if balance > settings.MAX_BALANCE:
            raise BalanceTooLarge(
                f"{row.user} has {row.balance:,} coins; {amount:,} more would pass "
                f"{settings.MAX_BALANCE:,}"
            )
        row.balance, row.updated_at = balance, now
        entries.append(
            LedgerEntry(
                wallet=row,
                amount=amount,
                balance_after=balance,
                reason=reason,
                game=game,
                staff=staff,
                note=note[:500],
            )
        )
    for row in locked.values():
        # One short UPDATE each: cheaper to build than bulk_update's CASE for a few wallets.
        Wallet.objects.filter(pk=row.pk).update(balance=row.balance, updated_at=now)
    for wallet, _amount in moves:
        wallet.balance = locked[wallet.pk].balance
    return LedgerEntry.objects.bulk_create(entries)


class ReliefRefused(Exception):
    """Relief coins were not granted; the message (translated) says why."""


@transaction.atomic
def relief_claim(*, user: User) -> LedgerEntry:
    """Grant ``RELIEF_COINS`` (救济金) to a player who cannot afford any open room.

    Allowed while the balance is below the lowest open room's minimum, at most
    ``RELIEF_CLAIMS_PER_DAY`` times per calendar day in ``TIME_ZONE``. The wallet row is locked
    before the checks, so two claims at once cannot both pass them. Raises ``ReliefRefused``.
    """
    wallet = Wallet.objects.select_for_update().filter(user=user).first()
    if wallet is None:
        raise ReliefRefused(_("You have no wallet yet."))
    refusal = relief_refusal(wallet=wallet, now=timezone.now())
    if refusal is not None:
        raise ReliefRefused(refusal)
    return coins_move(wallet=wallet, amount=settings.RELIEF_COINS, reason=LedgerReason.RELIEF)


@transaction.atomic
def coins_adjust_by_staff(
    *, wallet: Wallet, amount: int, staff: User, reason_text: str
) -> LedgerEntry:
    """Add ``amount`` (negative: take) to a wallet on a staff member's decision.

    The ledger row names the staff member and keeps the reason as its note. Raises
    ``PermissionDenied`` unless ``staff`` is active staff, ``ValidationError`` for a zero amount,
    one beyond ``MAX_STAFF_ADJUSTMENT`` either way or an empty reason, ``InsufficientCoins`` if
    the balance would go below zero and ``BalanceTooLarge`` if above ``MAX_BALANCE``.
    """
    if not (staff.is_active and staff.is_staff):
        raise PermissionDenied(_("Only staff can adjust coins."))
    if type(amount) is not int or amount == 0:
        raise ValidationError(_("The amount must be a whole number other than zero."))
    if abs(amount) > settings.MAX_STAFF_ADJUSTMENT:
        raise ValidationError(staff_adjustment_too_large())
    note = (reason_text or "").strip()
    if not note:
        raise ValidationError(_("A reason is required."))
    max_length = LedgerEntry._meta.get_field("note").max_length or 500
    if len(note) > max_length:
        raise ValidationError(
            _("The reason is too long (at most %(limit)d characters).") % {"limit": max_length}
        )
    return coins_move(
        wallet=wallet,
        amount=amount,
        reason=LedgerReason.STAFF_ADJUSTMENT,
        staff=staff,
        note=note,
    )


def staff_adjustment_too_large() -> str:
    """Why an adjustment beyond ``MAX_STAFF_ADJUSTMENT`` is refused, in the staff's language."""
    return _("An adjustment adds or takes at most %(limit)s coins.") % {
        "limit": f"{settings.MAX_STAFF_ADJUSTMENT:,}"
    }


def user_lock(*, user_id: int) -> User:
    """The user's row, locked until the transaction ends: one player's concurrent actions (a
    double click, two tabs) queue here.

    The lock is PostgreSQL's FOR NO KEY UPDATE, which rows referring to the user do not wait
    for: a game starting at the player's table while they wait for it cannot deadlock.
    """
    return User.objects.select_for_update(no_key=True).get(pk=user_id)


def user_set_sounds(*, user: User, on: bool) -> None:
    """Turn the table's sounds (and its vibration on phones) on or off for ``user``."""
    user.sounds_on = on
    user.save(update_fields=["sounds_on"])


def _nickname_errors(*, user: User, nickname: str, given: str) -> list[str]:
    """What is wrong with ``nickname`` (``given`` stripped) as ``user``'s nickname; none: fine."""
    if given and not nickname:
        return [_("A nickname cannot be only spaces.")]
    if not nickname:
        return []
    errors = []
    if len(nickname) > NICKNAME_MAX_LENGTH:
        errors.append(
            _("A nickname has at most %(max)d characters.") % {"max": NICKNAME_MAX_LENGTH}
        )
    # Control and invisible characters (line breaks, zero-width spaces, direction marks) would
    # let two names look alike or break the pages' lines.
    if any(unicodedata.category(char)[0] == "C" or char in "\u2028\u2029" for char in nickname):
        errors.append(_("A nickname cannot hold control or invisible characters."))
    others = User.objects.exclude(pk=user.pk)
    if (
        others.filter(nickname__iexact=nickname).exists()
        or others.filter(username__iexact=nickname).exists()
    ):
        errors.append(_("Another player already goes by this name."))
    # A player who keeps the nickname they have is not asked again: it was checked when taken.
    elif nickname != user.nickname and name_looks_taken(nickname, user_id=user.pk):
        errors.append(look_alike_message())
    return errors


def user_set_identity(*, user: User, nickname: str, avatar: str) -> None:
    """Set the name (``nickname``; empty: the username) and avatar others see of ``user``.

    The nickname is normalised (NFKC) and stripped; it may not be only spaces, hold control or
    invisible characters, or match (ignoring case) or look like another player's nickname or
    username (``accounts.names``). ``avatar`` is one of
    ``Avatar`` or empty (the default one). Raises ``ValidationError`` (by field) and changes
    nothing when either is wrong.
    """
    stripped = normalise_name(nickname).strip()
    errors: dict[str, list[str]] = {}
    nickname_errors = _nickname_errors(user=user, nickname=stripped, given=nickname)
    if nickname_errors:
        errors["nickname"] = nickname_errors
    if avatar and avatar not in Avatar.values:
        errors["avatar"] = [_("Choose one of the avatars shown.")]
    if errors:
        raise ValidationError(errors)
    try:
        with transaction.atomic():
            # The row is written only if the database also finds the nickname free: another
            # player may have taken it since the check above.
            User.objects.filter(pk=user.pk).update(nickname=stripped, avatar=avatar)
    except IntegrityError:
        raise ValidationError(
            {"nickname": [_("Another player already goes by this name.")]}
        ) from None
    user.nickname, user.avatar = stripped, avatar


def user_set_phrases(*, user: User, on: bool) -> None:
    """Show or hide the other players' quick phrases and emotes at the table for ``user``."""
    user.phrases_on = on
    user.save(update_fields=["phrases_on"])
