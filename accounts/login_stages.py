"""The login stage of a login past the failed-login ceiling (``accounts.adapter``), named by the
adapter's ``get_login_stages``. A module of its own: allauth's stages import its adapter
module's users, so the adapter cannot import them while it loads."""

from __future__ import annotations

from allauth.account.stages import LoginByCodeStage
from django.http import HttpResponse

from .adapter import CODE_REQUIRED_FOR, verified_email


class CeilingLoginByCodeStage(LoginByCodeStage):
    """allauth's login-by-code stage, sending the code to a verified address only (allauth's
    own falls back to the primary address, verified or not)."""

    def handle(self) -> tuple[HttpResponse | None, bool]:
        if not self.state and getattr(self.request, CODE_REQUIRED_FOR, None) == self.login.user.pk:
            self.login.email = verified_email(self.login.user)
        response: tuple[HttpResponse | None, bool] = super().handle()
        return response
