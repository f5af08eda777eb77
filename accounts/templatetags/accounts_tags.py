"""Template filters and tags for coin amounts."""

from __future__ import annotations

from django import template
from django.conf import settings

register = template.Library()


@register.filter
def coins(value: int | None) -> str:
    """``12345`` → ``"12,345"``; ``None`` → ``"—"``."""
    if value is None:
        return "—"
    return f"{int(value):,}"


@register.filter
def signed_coins(value: int | None) -> str:
    """``500`` → ``"+500"``, ``-1200`` → ``"−1,200"`` (a real minus sign); ``None`` → ``"—"``."""
    if value is None:
        return "—"
    number = int(value)
    if number < 0:
        return f"\u2212{-number:,}"
    if number > 0:
        return f"+{number:,}"
    return "0"


@register.simple_tag
def starting_coins() -> str:
    """The welcome grant of a new player, e.g. ``"10,000"``."""
    return coins(settings.STARTING_COINS)
