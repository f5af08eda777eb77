"""Form fields the games' forms share."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

#: A whole number as people write one: digits, perhaps a sign, and not too many of them.
WHOLE_NUMBER = re.compile(r"[+-]?\d{1,15}")


class WholeNumberField(forms.IntegerField):
    """A whole number between ``min_value`` and ``max_value``, both required, written in digits
    only. Django's ``IntegerField`` also takes "6.0" as 6 and a number of thousands of digits;
    a rule of the game is neither."""

    default_error_messages = {"invalid": _("Enter a whole number, in digits.")}

    def __init__(self, *, min_value: int, max_value: int, **kwargs: Any) -> None:
        kwargs.setdefault(
            "widget", forms.NumberInput(attrs={"min": min_value, "max": max_value, "step": 1})
        )
        super().__init__(min_value=min_value, max_value=max_value, **kwargs)

    def to_python(self, value: Any) -> int | None:
        if value in self.empty_values:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            text = str(value)
        elif isinstance(value, str):
            text = value.strip()
        else:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        if not WHOLE_NUMBER.fullmatch(text):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return int(text)
