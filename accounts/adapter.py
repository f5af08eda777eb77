"""How django-allauth creates players and counts failed logins here (``ACCOUNT_ADAPTER``)."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.models import EmailAddress, Login
from allauth.core.internal import ratelimit
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from .models import User
from .names import look_alike_message, name_looks_taken, normalise_name
from .services import wallet_create

#: The ``ACCOUNT_RATE_LIMITS`` entry that counts a username's failed logins from every address.
LOGIN_FAILED_PER_USERNAME = "login_failed_per_username"

#: The cookie that marks a browser where the account signed in before (its value: the user's
#: id and session hash, signed, so that a new password makes the old cookies worthless), and
#: how long it lasts.
DEVICE_COOKIE = "gdy_device"
DEVICE_COOKIE_SALT = "accounts.device"
DEVICE_COOKIE_MAX_AGE = 365 * 24 * 3600

# Set on the request by ``pre_authenticate`` when the username's failures from all addresses
# reached the ceiling, and by ``authenticate`` when that login must then be finished by a code.
_PAST_CEILING = "_gdy_login_past_ceiling"
CODE_REQUIRED_FOR = "_gdy_login_code_required_for"


def verified_email(user: AbstractBaseUser) -> str | None:
    """The address a sign-in code may be sent to: the primary one if verified, else any
    verified one; an unverified address was never shown to be the owner's."""
    found = EmailAddress.objects.filter(user=user, verified=True).order_by("-primary", "id").first()
    return found.email if found else None


def browser_signed_in_before(request: HttpRequest, user: AbstractBaseUser) -> bool:
    """Whether this browser holds the cookie of an earlier sign-in to ``user``'s account."""
    try:
        value = request.get_signed_cookie(
            DEVICE_COOKIE, salt=DEVICE_COOKIE_SALT, max_age=DEVICE_COOKIE_MAX_AGE
        )
    except (KeyError, signing.BadSignature):
        return False
    return value == _device_value(user)


def _device_value(user: AbstractBaseUser) -> str:
    return f"{user.pk}:{user.get_session_auth_hash()}"


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
        """The username in NFKC form (full-width ｐ1 is p1), allauth's checks, and no username
        another player shows as their nickname, or that looks like another player's username
        or nickname: a name on the leaderboards stands for one player only."""
        cleaned: str = super().clean_username(normalise_name(username), shallow=shallow)
        if shallow:
            return cleaned
        if User.objects.filter(nickname__iexact=cleaned).exists():
            raise ValidationError(_("Another player already goes by this name."))
        if name_looks_taken(cleaned):
            raise ValidationError(look_alike_message())
        return cleaned

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        """Count the attempt before the password is checked; allauth takes the count back when
        the password is right. ``login_failed`` counts failures per address and per username
        *from that address*, and refuses past either limit: a stranger's wrong passwords do not
        lock the owner out of their own address. ``login_failed_per_username`` counts a
        username's failures from all addresses together, against guessing spread over many of
        them; past that ceiling the attempt goes on, but a right password is no longer enough
        (``authenticate``), so the ceiling cannot be used to lock the owner out."""
        username = str(credentials.get("username") or credentials.get("email") or "").lower()
        address = ratelimit.get_ip(request)
        from_address = ratelimit.consume(
            request, app="allauth.account", action="login_failed", key=f"{username}@{address}"
        )
        if not from_address:
            raise self.validation_error("too_many_login_attempts")
        from_anywhere = ratelimit.consume(
            request, app="allauth.account", action=LOGIN_FAILED_PER_USERNAME, key=username
        )
        usage = list(from_address.usage)
        if from_anywhere:
            usage.extend(from_anywhere.usage)
        else:
            setattr(request, _PAST_CEILING, True)
        # What allauth rolls back after a right password (``_rollback_login_failed_rl_usage``).
        self._login_failed_rl_usage = ratelimit.RateLimitUsage(usage=usage)

    def authenticate(self, request: HttpRequest, **credentials: Any) -> AbstractBaseUser | None:
        """allauth's check of the password, and past the ceiling a second factor: a browser
        that signed in to the account before passes; otherwise a code mailed to the account's
        verified address must follow (``is_login_by_code_required``); an account without one
        is refused in this browser until its failures fall below the ceiling."""
        user: AbstractBaseUser | None = super().authenticate(request, **credentials)
        if user is None or not getattr(request, _PAST_CEILING, False):
            return user
        if browser_signed_in_before(request, user):
            return user
        if verified_email(user):
            setattr(request, CODE_REQUIRED_FOR, user.pk)
            return user
        raise ValidationError(
            _(
                "This account has had too many failed logins. Log in from a device you have "
                "logged in with before, or try again in an hour."
            ),
            code="too_many_login_attempts",
        )

    def get_login_stages(self) -> list[str]:
        stages: list[str] = super().get_login_stages()
        allauths = "allauth.account.stages.LoginByCodeStage"
        return [
            "accounts.login_stages.CeilingLoginByCodeStage" if stage == allauths else stage
            for stage in stages
        ]

    def is_login_by_code_required(self, login: Login) -> bool:
        """allauth's setting, and a login past the ceiling with a right password."""
        if getattr(self.request, CODE_REQUIRED_FOR, None) == login.user.pk:
            return True
        required: bool = super().is_login_by_code_required(login)
        return required

    def post_login(
        self, request: HttpRequest, user: AbstractBaseUser, **kwargs: Any
    ) -> HttpResponse:
        """Mark the browser as one where this account signed in, so that past the ceiling its
        owner there needs no code (``authenticate``)."""
        response: HttpResponse = super().post_login(request, user, **kwargs)
        response.set_signed_cookie(
            DEVICE_COOKIE,
            _device_value(user),
            salt=DEVICE_COOKIE_SALT,
            max_age=DEVICE_COOKIE_MAX_AGE,
            secure=settings.SESSION_COOKIE_SECURE,
            httponly=True,
            samesite="Lax",
        )
        return response
