"""The Jinja2 environment of the table's live fragments (``templates/jinja2/``).

A table sends every player a new frame after every move, so the frame's template is on the
hottest path of the site: Jinja2 compiles a template to Python code and renders it several
times faster than Django's engine. The pages themselves stay Django templates. Translations
are Django's (``{% trans %}`` and ``_()`` look up the same catalogues), and the few filters the
fragments need are the site's own.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.html import json_script
from django.utils.translation import gettext, ngettext, npgettext, pgettext, trans_real
from jinja2 import Environment

from accounts.templatetags.accounts_tags import coins, signed_coins


def url(name: str, *args: Any) -> str:
    return reverse(name, args=args)


def environment(**options: Any) -> Environment:
    """The environment of the ``fragments`` engine: strings in the active language."""
    env = Environment(extensions=["jinja2.ext.i18n"], **options)
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=gettext, ngettext=ngettext, pgettext=pgettext, npgettext=npgettext, newstyle=True
    )
    env.filters.update(coins=coins, signed_coins=signed_coins, json_script=json_script)
    env.globals.update(url=url)
    return env


def environment_for_language(env: Environment, language: str) -> Environment:
    """A copy of ``env`` whose strings come from the catalogue of ``language`` directly, not
    through Django's active language: that lookup, made for every string, cost a frame more
    than any other part of it. The templates compile once per language."""
    fixed = Environment(
        extensions=["jinja2.ext.i18n"],
        loader=env.loader,
        autoescape=env.autoescape,
        undefined=env.undefined,
        auto_reload=env.auto_reload,
    )
    catalog = trans_real.translation(language)
    fixed.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=catalog.gettext,
        ngettext=catalog.ngettext,
        pgettext=catalog.pgettext,
        npgettext=catalog.npgettext,
        newstyle=True,
    )
    fixed.filters.update(env.filters)
    fixed.globals.update(url=url)
    return fixed
