"""How django-allauth creates players here (``ACCOUNT_ADAPTER``)."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest
from django.utils.translation import gettext as _

from .models import User
from .services import wallet_create


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
