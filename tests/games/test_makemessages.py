"""The Jinja2 templates' strings reach the catalogues, and every one of them is translated."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation
from jinja2 import Environment

from games.management.commands.makemessages import jinja_as_python

JINJA_TEMPLATES = sorted((settings.BASE_DIR / "templates" / "jinja2").rglob("*.html"))


def test_each_string_becomes_a_gettext_call_on_its_line() -> None:
    source = (
        '<p>{{ _("Bot") }}</p>\n'
        '<b>{{ pgettext("table action", "Pass") }}</b>\n'
        "{% trans name=who %}Waiting for {{ name }}…{% endtrans %}\n"
    )
    assert jinja_as_python(source).splitlines() == [
        "gettext('Bot'); ",
        "pgettext('table action', 'Pass'); ",
        "gettext('Waiting for %(name)s…'); ",
        "",
    ]


@pytest.mark.parametrize("template", JINJA_TEMPLATES, ids=lambda path: path.name)
def test_every_string_of_the_jinja_templates_is_translated_into_chinese(template: Path) -> None:
    messages = list(
        Environment(extensions=["jinja2.ext.i18n"]).extract_translations(
            template.read_text(encoding="utf-8")
        )
    )
    assert messages
    untranslated = []
    with translation.override("zh-hans"):
        for _line, function, message in messages:
            if function == "pgettext":
                context, text = message
                shown = translation.pgettext(context, text)
            else:
                text = message
                shown = translation.gettext(text)
            if shown == text:
                untranslated.append(text)
    assert untranslated == []
