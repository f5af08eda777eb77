"""Pages of a player's own account: profile, coins, relief."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse


def profile(request: HttpRequest) -> HttpResponse:
    raise Http404


def relief_claim(request: HttpRequest) -> HttpResponse:
    raise Http404
