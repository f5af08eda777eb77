"""Watching: a signed-in user who looks at a game being played from outside its seats, kept
so that they may replay it once it is over."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction

from ..models import Game, GameWatch

if TYPE_CHECKING:
    from accounts.models import User


@transaction.atomic
def game_watch_record(*, user: User, game: Game) -> bool:
    """Remember that ``user`` watched ``game``, once; whether a row was written.

    Nothing is written for a game that is over (a replay is not watching it) or for one of
    its players, who may replay it anyway. Called when a spectator's page or socket opens, never
    per frame.
    """
    if game.is_over or not user.is_authenticated:
        return False
    if game.players.filter(user_id=user.pk).exists():
        return False
    _watch, created = GameWatch.objects.get_or_create(game=game, user=user)
    return created
