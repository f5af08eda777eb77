"""A fresh PostgreSQL database for a load run, with every table seated through the services.

The orchestrating process sets Django up on the load database (``configure``), drops and
recreates it, migrates it, then seats three players per table with ``services.table_play`` in a
room of the game (干瞪眼's or 斗地主's) with no minimum and a small base, so each table's first
game starts at once. Each player gets a session (``Client.force_login``), whose key is the
cookie its websocket sends.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit

#: The load test's room of each game: no minimum, a base of 1, and a turn of 300 s, so that no
#: player's time runs out during a step (斗地主's bidding and 加倍 have clocks of their own, which
#: the load test lengthens as much through the settings). At the tables of a game's ``-bots``
#: room one player sits with two bots of the hard level, which search for every move.
ROOMS = {
    "gandengyan": "load",
    "doudizhu": "load-ddz",
    "gandengyan-bots": "load-bots",
    "doudizhu-bots": "load-ddz-bots",
}
GAMES = tuple(ROOMS)
#: How many of a table's three seats the scripted players take, by the load test's game key.
PLAYERS = {game: 1 if game.endswith("-bots") else 3 for game in GAMES}


def game_of(key: str) -> str:
    """The game played at the tables of the load test's ``key`` (``gandengyan-bots``: 干瞪眼)."""
    return key.removesuffix("-bots")


@dataclass(frozen=True)
class SeatedTable:
    table_id: int
    #: Session cookie of the player at each seat, by seat position.
    cookies: tuple[str, ...]


def configure(*, database_url: str, secret_key: str) -> None:
    """Point Django at the load database, with the same settings the workers get."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "gandengyan.settings"
    os.environ["DATABASE_URL"] = database_url
    os.environ["SECRET_KEY"] = secret_key
    os.environ["DEBUG"] = "false"
    # The orchestrator needs no Redis: the seating's notices go to the in-memory layer.
    os.environ["REDIS_URL"] = ""
    import django

    django.setup()


def recreate(database_url: str) -> None:
    """Drop the database named in ``database_url`` (closing its connections) and create it."""
    import psycopg

    parts = urlsplit(database_url)
    name = parts.path.lstrip("/")
    if not name.replace("_", "").isalnum():
        raise ValueError(f"unexpected database name {name!r}")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def migrate() -> None:
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def seat_tables(
    count: int, *, game: str = "gandengyan", prefix: str | None = None, bot_budget_ms: int = 120
) -> list[SeatedTable]:
    """``count`` tables in the load test's room of ``game`` (a key of ``ROOMS``), every table
    playing its first game: three players each, or one and two hard bots thinking up to
    ``bot_budget_ms`` a move at a ``-bots`` room's tables (a bot's seat has no cookie). The
    players' names begin with ``prefix`` (the room's code unless given)."""
    from datetime import timedelta

    from django.conf import settings
    from django.test import Client

    from accounts.models import User
    from accounts.services import wallet_create
    from games import services
    from games.models import BotLevel, Room, Table

    prefix = prefix or ROOMS[game]
    room, _created = Room.objects.get_or_create(
        code=ROOMS[game],
        defaults={
            "game": game_of(game),
            "name_zh": "压测场",
            "name_en": "Load test",
            "base": 1,
            "min_coins": 0,
            "max_coins": None,
            "position": 99,
            "turn_seconds": 300,
            "bot_level": BotLevel.HARD,
            "bot_budget_ms": bot_budget_ms,
        },
    )
    tables = []
    for number in range(count):
        users = []
        for seat in range(PLAYERS[game]):
            user = User.objects.create_user(username=f"{prefix}-{number}-{seat}", password=None)
            wallet_create(user=user)
            users.append(user)
        table = None
        for user in users:
            table, _position = services.table_play(user=user, room=room)
        assert table is not None
        if len(users) < 3:
            assert table.waiting_since is not None
            later = table.waiting_since + timedelta(seconds=settings.BOT_FILL_SECONDS)
            services.table_fill_with_bots(table=table, now=later)
        table.refresh_from_db()
        if table.status != Table.Status.PLAYING:
            raise RuntimeError(f"table {table.pk} did not start a game")
        positions = dict(table.seats.filter(user__isnull=False).values_list("user_id", "position"))
        cookies = [""] * 3
        for user in users:
            client = Client()
            client.force_login(user)
            cookies[positions[user.pk]] = client.cookies["sessionid"].value
        tables.append(SeatedTable(table.pk, tuple(cookies)))
    close_connections()
    return tables


def close_connections() -> None:
    """Hold no connection to the database while the workers use it."""
    from django.db import connections

    connections.close_all()


def clocks_wound_back(tables: list[SeatedTable], *, seconds: float) -> int:
    """Give the player to move in each game being played at ``tables`` ``seconds`` from now,
    unless the table's clock is showing the deal (its stages stay due) or a bot is to move (the
    runner moves it when its pause is over). A table the previous
    steps left idle may be past a player's deadline, which a runner would act on as the step
    begins, beside the player's own move; a step must see only the players' moves and the
    deal's stages. Returns how many games were changed."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Game
    from games.rules import Phase
    from games.selectors import game_state

    later = timezone.now() + timedelta(seconds=seconds)
    playing = Game.objects.select_related("table__room").filter(
        table_id__in=[table.table_id for table in tables], status=Game.Status.PLAYING
    )
    wound = [
        game.pk
        for game in playing
        if game_state(game=game).phase is not Phase.DEAL and not _bot_to_move(game)
    ]
    return Game.objects.filter(pk__in=wound).update(turn_deadline=later)


def _bot_to_move(game: object) -> bool:
    from games.models import Game, GamePlayer

    assert isinstance(game, Game)
    return GamePlayer.objects.filter(game=game, seat=game.to_move, is_bot=True).exists()
