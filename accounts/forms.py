"""Forms of a player's own account pages."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import NICKNAME_MAX_LENGTH, Avatar


class IdentityForm(forms.Form):
    """The name and avatar others see; ``accounts.services.user_set_identity`` checks the rest
    (the nickname is stripped there, so its length is counted there too)."""

    nickname = forms.CharField(
        label=_("Nickname"),
        required=False,
        strip=False,
        max_length=4 * NICKNAME_MAX_LENGTH,
        help_text=_("At most 16 characters. Leave it empty to be shown by your username."),
        widget=forms.TextInput(attrs={"maxlength": NICKNAME_MAX_LENGTH, "autocomplete": "off"}),
    )
    avatar = forms.ChoiceField(
        label=_("Avatar"),
        required=False,
        choices=[("", _("Default")), *Avatar.choices],
        widget=forms.RadioSelect,
    )
