"""How django-allauth creates players and counts failed logins here (``ACCOUNT_ADAPTER``)."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core.internal import ratelimit
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest
from django.utils.translation import gettext as _

from .models import User
from .services import wallet_create

#: The ``ACCOUNT_RATE_LIMITS`` entry that counts a username's failed logins from every address.
LOGIN_FAILED_PER_USERNAME = "login_failed_per_username"


class AccountAdapter(DefaultAccountAdapter):
    def save_user(
        self,
        request: HttpRequest,
        user: AbstractBaseUser,
        form: Any,
        commit: bool = True,
    ) -> AbstractBaseUser:
        """Save the new user and open their wallet with the welcome grant, in one transaction.

        With ``commit=False`` nothing is saved, so the wallet waits for whoever saves the user.
        """
        with transaction.atomic():
            saved: AbstractBaseUser = super().save_user(request, user, form, commit=commit)
            if commit:
                assert isinstance(saved, User)
                wallet_create(user=saved)
        return saved

    def clean_username(self, username: str, shallow: bool = False) -> str:
        """allauth's checks, and no username another player shows as their nickname: a name
        on the leaderboards stands for one player only."""
        cleaned: str = super().clean_username(username, shallow=shallow)
        if not shallow and User.objects.filter(nickname__iexact=cleaned).exists():
            raise ValidationError(_("Another player already goes by this name."))
        return cleaned

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        """Count the attempt before the password is checked; allauth takes the count back when
        the password is right. ``login_failed`` counts failures per address and per username
        *from that address*, so that a stranger's wrong passwords do not lock the owner out;
        ``login_failed_per_username`` caps a username's failures from all addresses together,
        against guessing spread over many of them. Raises allauth's "too many attempts" error
        once either limit is reached."""
        username = str(credentials.get("username") or credentials.get("email") or "").lower()
        address = ratelimit.get_ip(request)
        from_address = ratelimit.consume(
            request, app="allauth.account", action="login_failed", key=f"{username}@{address}"
        )
        from_anywhere = from_address and ratelimit.consume(
            request, app="allauth.account", action=LOGIN_FAILED_PER_USERNAME, key=username
        )
        if not from_address or not from_anywhere:
            raise self.validation_error("too_many_login_attempts")
        # What allauth rolls back after a right password (``_rollback_login_failed_rl_usage``).
        self._login_failed_rl_usage = ratelimit.RateLimitUsage(
            usage=[*from_address.usage, *from_anywhere.usage]
        )
