"""The columns of a game that tell its hidden cards, kept out of every admin's reach.

A game's seed decides the whole deal, and the starting hands, the stock and the rest of the deal
are written from it. The admin answers any lookup of the query string (``?seed__lt=…``), so a
lookup on one of these columns, even one that only answers yes or no, would let staff read a live
game's cards a bit at a time. Every admin of the site refuses such lookups, as Django's refuses
lookups on a user's ``password`` (``HiddenFieldsRefused.lookup_allowed``), and a system check
keeps them out of every admin's filters, searches, orderings and columns. The game's own pages
show the seed and the deal only once it is over (``GameAdmin.seed_shown``, ``deal_shown``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.core import checks
from django.core.exceptions import FieldDoesNotExist
from django.db.models import Model
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest

from .models import Game

if TYPE_CHECKING:
    AdminOptions = admin.options.BaseModelAdmin[Any]
else:
    AdminOptions = admin.options.BaseModelAdmin

#: The game's columns that tell its cards while it is played.
HIDDEN_GAME_FIELDS = frozenset({"seed", "hands", "stock", "deal"})


def lookup_reaches_hidden_field(model: type[Model], lookup: str) -> bool:
    """Whether the lookup path ``lookup`` from ``model`` (``seed__lt``, ``game__seed``,
    ``games__hands__0``) names a hidden column of a game, through any relation."""
    for part in lookup.split(LOOKUP_SEP):
        if part == "pk":
            return False
        try:
            field = model._meta.get_field(part)
        except FieldDoesNotExist:
            return False  # a transform or a lookup type, past the last field
        if issubclass(model, Game) and part in HIDDEN_GAME_FIELDS:
            return True
        related = field.related_model if field.is_relation else None
        if related is None or isinstance(related, str):
            return False
        model = related
    return False


class HiddenFieldsRefused(AdminOptions):
    """An admin (or inline) that refuses lookups on a game's hidden columns: Django answers
    such a query string as any lookup it does not allow, with a 400."""

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        if lookup_reaches_hidden_field(self.model, lookup):
            return False
        return bool(super().lookup_allowed(lookup, value, request))


def _named_paths(model_admin: AdminOptions) -> Iterable[tuple[str, str]]:
    """Every field path an admin or inline names, with the option naming it."""
    for item in getattr(model_admin, "list_filter", None) or ():
        name = item[0] if isinstance(item, (list, tuple)) else item
        if isinstance(name, str):
            yield "list_filter", name
    for item in getattr(model_admin, "search_fields", None) or ():
        yield "search_fields", item.lstrip("^=@")
    for item in model_admin.ordering or ():
        if isinstance(item, str):
            yield "ordering", item.lstrip("-")
    if getattr(model_admin, "date_hierarchy", None):
        yield "date_hierarchy", model_admin.date_hierarchy  # type: ignore[attr-defined]
    for option in ("list_display", "fields", "readonly_fields", "raw_id_fields"):
        for item in _flat(getattr(model_admin, option, None) or ()):
            if isinstance(item, str):
                yield option, item
                item = getattr(model_admin, item, None)
            order = getattr(item, "admin_order_field", None)
            if isinstance(order, str):
                yield f"{option} ordering", order.lstrip("-")


def _flat(items: Iterable[Any]) -> Iterable[Any]:
    """The items of a fields option, those grouped on one line included."""
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from item
        else:
            yield item


def hidden_field_errors(model_admin: Any) -> list[checks.CheckMessage]:
    """The errors of one admin (or inline) that names a hidden column of a game, or whose
    changelist would answer a lookup on one along the shortest way from its model to a game."""
    errors: list[checks.CheckMessage] = []
    name = type(model_admin).__name__
    for option, path in _named_paths(model_admin):
        if lookup_reaches_hidden_field(model_admin.model, path):
            errors.append(
                checks.Error(
                    f"{name}.{option} names {path!r}, a column that tells a game's hidden cards.",
                    hint="Show the game's seed and deal only once it is over.",
                    obj=type(model_admin),
                    id="games.E010",
                )
            )
    relations = _relations_to_a_game(model_admin.model)
    if isinstance(model_admin, admin.ModelAdmin) and relations is not None:
        request = HttpRequest()
        for column in sorted(HIDDEN_GAME_FIELDS):
            lookup = LOOKUP_SEP.join([*relations, column, "lt"])
            if model_admin.lookup_allowed(lookup, "0", request):
                errors.append(
                    checks.Error(
                        f"{name} answers the lookup {lookup!r}, which tells a game's hidden cards.",
                        hint="Make it a games.hidden_fields.HiddenFieldsRefused.",
                        obj=type(model_admin),
                        id="games.E011",
                    )
                )
    return errors


@checks.register(checks.Tags.admin, checks.Tags.security)
def check_admins_hide_the_cards(**kwargs: object) -> list[checks.CheckMessage]:
    """No admin or inline names a game's hidden columns, and no admin answers a lookup on
    them."""
    errors: list[checks.CheckMessage] = []
    for model, model_admin in admin.site._registry.items():
        for each in [model_admin, *(inline(model, admin.site) for inline in model_admin.inlines)]:
            errors += hidden_field_errors(each)
    return errors


def _relations_to_a_game(model: type[Model]) -> list[str] | None:
    """The names of the fewest relations a lookup from ``model`` follows to reach a game
    (none for a game itself), or None when no relation leads to one."""
    ways: dict[type[Model], list[str]] = {model: []}
    todo = [model]
    while todo:
        current = todo.pop(0)
        if issubclass(current, Game):
            return ways[current]
        for field in current._meta.get_fields():
            related = field.related_model if field.is_relation else None
            if related is not None and not isinstance(related, str) and related not in ways:
                # A reverse relation's name is its query name, as lookups use it.
                ways[related] = [*ways[current], field.name]
                todo.append(related)
    return None
