"""The request of a view that only a signed-in player or member of staff reaches."""

from __future__ import annotations

from django.http import HttpRequest

from .models import User


class AuthenticatedHttpRequest(HttpRequest):
    """A request behind ``login_required`` or the admin site, whose user is signed in.

    Only for annotations: Django makes plain ``HttpRequest`` objects, this class says what their
    ``user`` is by then.
    """

    user: User
