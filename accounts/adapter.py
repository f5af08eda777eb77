"""How django-allauth creates players here (``ACCOUNT_ADAPTER``)."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.http import HttpRequest

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
