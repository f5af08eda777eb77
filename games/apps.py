from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from gandengyan import database  # noqa: F401  (a forked child forgets the parent's pools)

        from . import (
            hidden_fields,  # noqa: F401  (registers the admins' check of the cards)
            seeds,  # noqa: F401  (registers the seed source's deploy check)
        )
