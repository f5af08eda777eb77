"""Forms of the games app's pages: the house rules a player chooses for a private table."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from .errors import TableRefused
from .models import BotLevel, Room
from .presentation import presentation_for


def rules_with_fields(
    rules: dict[str, Any], cleaned: dict[str, Any], names: tuple[str, ...]
) -> dict[str, Any]:
    """``rules`` with the options ``names`` as a form's fields give them (``cleaned``): an
    empty field (None) leaves its option at the standard game's."""
    rules = dict(rules)
    for name in names:
        if cleaned.get(name) is None:
            rules.pop(name, None)
        else:
            rules[name] = cleaned[name]
    return rules


class TableRulesForm(forms.Form):
    """The house rules of a private table of ``room``: the fields its game's presentation gives
    a table's host (``table_rules_fields``), starting from the room's rules; the options without
    a field stay the room's. Valid when the game's engine can play them: ``cleaned_data["rules"]``
    holds them as the engine writes them. The host also chooses the level of the bots they may
    call (``bot_level``, the room's to begin with)."""

    #: Sent with the fields by the room page's form: the rules were chosen there.
    CHOSEN = "house_rules"

    def __init__(self, *args: Any, room: Room, **kwargs: Any) -> None:
        presentation = presentation_for(room.game)
        kwargs.setdefault("initial", presentation.rules_initial(room.rules))
        super().__init__(*args, **kwargs)
        self.room = room
        self.option_fields = tuple(presentation.table_rules_fields().items())
        self.fields["bot_level"] = forms.ChoiceField(
            label=_("Bots"),
            choices=BotLevel.choices,
            initial=room.bot_level,
            required=False,  # left out: the room's
            widget=forms.RadioSelect,
            help_text=_("How well the bots you call to your table play."),
        )
        self.fields.update(self.option_fields)

    def clean(self) -> dict[str, Any]:
        from .services import table_rules_checked  # the services import the models, as this does

        cleaned: dict[str, Any] = super().clean() or {}
        if self.errors:
            return cleaned
        rules = rules_with_fields(
            self.room.rules, cleaned, tuple(name for name, _field in self.option_fields)
        )
        try:
            cleaned["rules"] = table_rules_checked(room=self.room, rules=rules)
        except TableRefused as refused:
            raise ValidationError(refused.message, code=refused.code) from refused
        return cleaned
