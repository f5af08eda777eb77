"""The demo accounts that ``manage.py seed_demo`` makes on a development site, and the deploy
check that refuses to serve while one of them still opens with its demo password.

``seed_demo`` does nothing with DEBUG off, but a database seeded during a DEBUG run keeps its
``admin``/``admin`` when DEBUG is then turned off: the check (``accounts.E001``) fails
``manage.py check --deploy``, which ``scripts/serve.sh`` runs before it serves with DEBUG off.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.db import DatabaseError, connection

from .models import User

DEMO_ADMIN_USERNAME = "admin"
DEMO_PLAYER_USERNAMES = ("zhangsan", "lisi")


def demo_admin_password() -> str:
    return os.environ.get("DEMO_ADMIN_PASSWORD", "admin")


def demo_player_password() -> str:
    return os.environ.get("DEMO_PLAYER_PASSWORD", "player")


def demo_accounts_with_demo_password() -> list[str]:
    """The usernames of the demo accounts that a demo password (the default one, or the one
    ``seed_demo`` read from the environment) still opens."""
    passwords = {
        DEMO_ADMIN_USERNAME: {"admin", demo_admin_password()},
        **{name: {"player", demo_player_password()} for name in DEMO_PLAYER_USERNAMES},
    }
    found = []
    for user in User.objects.filter(username__in=passwords).order_by("username"):
        if any(user.check_password(password) for password in passwords[user.username]):
            found.append(user.username)
    return found


@checks.register(checks.Tags.security, deploy=True)
def check_no_demo_password(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: object
) -> list[checks.CheckMessage]:
    if settings.DEBUG:
        return []
    if app_configs is not None and not any(config.label == "accounts" for config in app_configs):
        return []  # the checks of other apps were asked for
    try:
        usernames = demo_accounts_with_demo_password()
    except DatabaseError as error:
        if not _user_table_exists():
            return []  # a database not migrated yet holds no account at all
        # Fail closed: an account that opens with a demo password may be there all the same.
        return [
            checks.Error(
                "The check for demo accounts that still open with their demo passwords "
                f"could not read the database ({type(error).__name__}: {error}).",
                hint="Make sure the database answers and is migrated, then run the check again.",
                id="accounts.E002",
            )
        ]
    if not usernames:
        return []
    return [
        checks.Error(
            f"The demo accounts {', '.join(usernames)} still open with their demo passwords "
            "(manage.py seed_demo, run with DEBUG on): anyone could sign in as them.",
            hint="Give each a strong password (manage.py changepassword USERNAME) or delete it.",
            id="accounts.E001",
        )
    ]


def _user_table_exists() -> bool:
    """Whether the users' table is there; True when even that cannot be read, since then
    nothing says the database holds no account."""
    try:
        return User._meta.db_table in connection.introspection.table_names()
    except DatabaseError:
        return True
