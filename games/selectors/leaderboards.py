"""The leaderboards (排行榜) and a player's public record, read from settled games.

Only people count: a bot's seat has no user, and the house's system user and any inactive
account are left out. A game counts once it is settled (its coins moved), for the game it is
(``Game.game``); a player won it when the engine's payment to their seat was positive, which
for 斗地主 makes both farmers winners when they beat the landlord. Each board is one aggregate
query over the players of settled games (through the index ``game_settled_by_game_idx``); a
viewer's own rank, when they are not in the top rows, takes two more: their row, and the count
of the players ahead of it, ordered exactly as the board is.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING, Any, cast
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db.models import (
    BigIntegerField,
    Count,
    ExpressionWrapper,
    F,
    FloatField,
    Q,
    QuerySet,
    Sum,
    Value,
)
from django.db.models.functions import Cast, Coalesce, NullIf
from django.utils import timezone

from accounts.models import DEFAULT_AVATAR

from ..engines import engines
from ..models import GAME_WON, GamePlayer
from .games import games_visible_to

if TYPE_CHECKING:
    from accounts.models import User


class Board(enum.StrEnum):
    """The two boards of each game: net coins won this week, and win rate over all games."""

    COINS = "coins"
    WIN_RATE = "winrate"


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    user_id: int
    username: str
    display_name: str
    avatar: str
    games: int
    wins: int
    net: int  # net coins of the games counted (this week's, on the coins board)

    @property
    def avatar_path(self) -> str:
        return f"avatars/{self.avatar or DEFAULT_AVATAR}.svg"

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def win_percent(self) -> str:
        """The win rate as people read it: ``"62.5%"``."""
        return f"{self.win_rate * 100:.1f}%"


@dataclass(frozen=True)
class Leaderboard:
    game: str
    board: Board
    rows: list[LeaderboardRow]
    # The viewer's own row wherever they rank; None for a visitor or a player not on the board.
    own: LeaderboardRow | None
    # The coins board counts the games settled since this moment (Monday 00:00 this week).
    since: datetime | None
    min_games: int

    @property
    def own_in_rows(self) -> bool:
        return self.own is not None and self.own.rank <= len(self.rows)


def week_start(now: datetime) -> datetime:
    """Monday 00:00 of ``now``'s week in ``TIME_ZONE``: when the coins board starts again."""
    zone = ZoneInfo(settings.TIME_ZONE)
    day = now.astimezone(zone).date()
    return datetime.combine(day - timedelta(days=day.weekday()), time.min, tzinfo=zone)


def _places_of_people(game: str) -> QuerySet[GamePlayer]:
    """The seats of people (no bots, no house, no inactive account) in settled games of
    ``game``."""
    return GamePlayer.objects.filter(
        game__game=game,
        game__settled_at__isnull=False,
        user__isnull=False,
        user__is_active=True,
    ).exclude(user__wallet__is_house=True)


# The rows of a board: its annotations are not fields of the model, which the type checker's
# plugin would look for in each filter and ordering.
PlayerRows = QuerySet[Any, dict[str, Any]]


def _by_player(places: QuerySet[GamePlayer]) -> PlayerRows:
    """One row per player of ``places``: their name, avatar, games, wins and net coins."""
    rows = places.values(
        "user_id",
        username=F("user__username"),
        display_name=Coalesce(NullIf(F("user__nickname"), Value("")), F("user__username")),
        avatar=F("user__avatar"),
    ).annotate(
        games=Count("id"),
        wins=Count("id", filter=GAME_WON),
        net=Coalesce(Sum("coins"), Value(0), output_field=BigIntegerField()),
    )
    return cast("PlayerRows", rows)


def _row(values: dict[str, Any], rank: int) -> LeaderboardRow:
    return LeaderboardRow(
        rank=rank,
        user_id=values["user_id"],
        username=values["username"],
        display_name=values["display_name"],
        avatar=values["avatar"],
        games=values["games"],
        wins=values["wins"],
        net=values["net"],
    )


def _ahead_by_name(own: dict[str, Any]) -> Q:
    """Players level with ``own`` on the board's measure and games, ahead by name, then id."""
    return (
        Q(games__gt=own["games"])
        | Q(games=own["games"], display_name__lt=own["display_name"])
        | Q(games=own["games"], display_name=own["display_name"], user_id__lt=own["user_id"])
    )


def leaderboard(
    *,
    game: str,
    board: Board,
    viewer: User | AnonymousUser,
    now: datetime | None = None,
    size: int | None = None,
) -> Leaderboard:
    """The top ``size`` (``LEADERBOARD_SIZE``) players of ``game``'s ``board``, and the
    viewer's own row wherever they rank.

    The coins board: net coins of the games settled since Monday 00:00 (``week_start``), the
    most first. The win-rate board: wins over settled games, for players with at least
    ``LEADERBOARD_MIN_GAMES`` of them, the highest first. Ties go to the player with more games,
    then by name (the nickname, else the username), then to the older account. Raises
    ``LookupError`` for a game that is not installed.
    """
    if game not in engines():
        raise LookupError(f"no game {game!r} is installed")
    size = settings.LEADERBOARD_SIZE if size is None else size
    min_games: int = settings.LEADERBOARD_MIN_GAMES
    places = _places_of_people(game)
    since = None
    if board is Board.COINS:
        since = week_start(now or timezone.now())
        places = places.filter(game__settled_at__gte=since)
        players = _by_player(places)
        ordered = players.order_by("-net", "-games", "display_name", "user_id")
    else:
        players = _by_player(places).filter(games__gte=min_games)
        rate = ExpressionWrapper(
            Cast("wins", FloatField()) / Cast("games", FloatField()), output_field=FloatField()
        )
        ordered = players.annotate(rate=rate).order_by("-rate", "-games", "display_name", "user_id")
    rows = [_row(values, rank) for rank, values in enumerate(ordered[:size], start=1)]

    own = None
    viewer_id = viewer.pk if viewer.is_authenticated else None
    for row in rows:
        if row.user_id == viewer_id:
            own = row
    if own is None and viewer_id is not None:
        own = _own_row(players, board=board, viewer_id=viewer_id)
    return Leaderboard(game=game, board=board, rows=rows, own=own, since=since, min_games=min_games)


def _own_row(players: PlayerRows, *, board: Board, viewer_id: int) -> LeaderboardRow | None:
    """The viewer's row of a board they are not in the top rows of, ranked by counting the
    players ahead of them in the board's order."""
    found = list(players.filter(user_id=viewer_id))
    if not found:
        return None
    own = found[0]
    if board is Board.COINS:
        ahead = Q(net__gt=own["net"]) | (Q(net=own["net"]) & _ahead_by_name(own))
        counted = players
    else:
        # Rates compared without division: wins/games > w/g exactly when wins·g > w·games.
        counted = players.annotate(
            above=ExpressionWrapper(
                F("wins") * own["games"] - F("games") * own["wins"],
                output_field=BigIntegerField(),
            )
        )
        ahead = Q(above__gt=0) | (Q(above=0) & _ahead_by_name(own))
    return _row(own, rank=counted.filter(ahead).count() + 1)


# A player's public page -----------------------------------------------------------------------


@dataclass(frozen=True)
class GameStats:
    """A player's settled games of one game, and how many they won."""

    game: str
    title: str
    games: int
    wins: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def win_percent(self) -> str:
        """The win rate as people read it: ``"62.5%"``."""
        return f"{self.win_rate * 100:.1f}%"


def player_game_stats(*, user: User) -> list[GameStats]:
    """The player's games and wins for each installed game, in the site's order of games."""
    counts: dict[str, Mapping[str, Any]] = {
        row["game__game"]: row
        for row in GamePlayer.objects.filter(user=user, game__settled_at__isnull=False)
        .values("game__game")
        .annotate(games=Count("id"), wins=Count("id", filter=GAME_WON))
    }
    return [
        GameStats(
            game=key,
            title=str(engine.title),
            games=counts.get(key, {}).get("games", 0),
            wins=counts.get(key, {}).get("wins", 0),
        )
        for key, engine in engines().items()
    ]


@dataclass(frozen=True)
class FinishedGame:
    """One of a player's last games, as their public page lists it."""

    place: GamePlayer
    won: bool
    title: str
    # Whether the viewer may open the game's page (``games_visible_to``).
    visible: bool


def player_recent_games(
    *, user: User, viewer: User | AnonymousUser, limit: int = 10
) -> list[FinishedGame]:
    """The player's last ``limit`` settled games, newest first, each saying whether ``viewer``
    may see its page."""
    places = list(
        GamePlayer.objects.filter(user=user, game__settled_at__isnull=False)
        .select_related("game__table__room")
        .order_by("-game__settled_at", "-game_id")[:limit]
    )
    visible = set(
        games_visible_to(user=viewer)
        .filter(pk__in=[place.game_id for place in places])
        .values_list("pk", flat=True)
    )
    titles = {key: str(engine.title) for key, engine in engines().items()}
    return [
        FinishedGame(
            place=place,
            won=place.won,
            title=titles.get(place.game.game, place.game.game),
            visible=place.game_id in visible,
        )
        for place in places
    ]
