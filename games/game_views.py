"""Pages of one game for the players who played it: its record, its seed, disputes."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse


def game_detail(request: HttpRequest, game_id: int) -> HttpResponse:
    raise Http404


def dispute_open(request: HttpRequest, game_id: int) -> HttpResponse:
    raise Http404
