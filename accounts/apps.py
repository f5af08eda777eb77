from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Players and coins")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import demo  # noqa: F401  (registers the deploy check of the demo passwords)
