"""The Jinja2 environment of the table's live fragments (``templates/jinja2/``).

A table sends every player a new frame after every move, so the frame's template is on the
hottest path of the site: Jinja2 compiles a template to Python code and renders it several
times faster than Django's engine. The pages themselves stay Django templates. Translations
are Django's (``{% trans %}`` and ``_()`` look up the same catalogues), and the few filters the
fragments need are the site's own.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from django.urls import reverse
from django.utils.html import json_script
from django.utils.translation import gettext, ngettext, npgettext, pgettext, trans_real
from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    TemplateNotFound,
    Undefined,
)
from jinja2.ext import Extension
from jinja2.lexer import (
    TOKEN_COMMA,
    TOKEN_DOT,
    TOKEN_LPAREN,
    TOKEN_NAME,
    TOKEN_RPAREN,
    TOKEN_STRING,
    Token,
    TokenStream,
)

from accounts.templatetags.accounts_tags import coins, signed_coins


def url(name: str, *args: Any) -> str:
    return reverse(name, args=args)


class FragmentsEnvironment(Environment):
    """Jinja2's environment, for templates that read dicts: ``seat.name`` looks the key up
    first. Jinja2 tries the attribute first, and a dict has none of that name, so each such
    lookup raised and caught an ``AttributeError`` (about fifty a frame)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._loaded: dict[str, Any] = {}

    def _load_template(self, name: str, globals: Any) -> Any:
        # A game's frame extends the shared one at every render. Unless templates reload, a
        # dict finds it again without the cache's lock and bookkeeping (6 % of a frame).
        if self.auto_reload or globals:
            return super()._load_template(name, globals)
        template = self._loaded.get(name)
        if template is None:
            template = self._loaded[name] = super()._load_template(name, globals)
        return template

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


class EngineTemplates(BaseLoader):
    """The templates an installed game's engine package brings along, in its ``templates``
    folder (``games/<key>/table_frame.html`` ...), for a game that lives outside the site's
    ``templates/jinja2``."""

    def get_source(
        self, environment: Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        from games.engines import engines  # the engines import the rules, not the templates

        for engine in engines().values():
            module = sys.modules[type(engine).__module__]
            if module.__file__ is None:
                continue
            folder = Path(module.__file__).parent / "templates"
            try:
                return FileSystemLoader(folder).get_source(environment, template)
            except TemplateNotFound:
                continue
        raise TemplateNotFound(template)


def environment(**options: Any) -> Environment:
    """The environment of the ``fragments`` engine: strings in the active language."""
    loader = options.pop("loader", None)
    options["loader"] = ChoiceLoader([*([loader] if loader else []), EngineTemplates()])
    # The fragments read an absent key as empty whatever DEBUG says: Django's debug default
    # (DebugUndefined) would print "{{ no such element }}" into live frames.
    options["undefined"] = Undefined
    env = FragmentsEnvironment(extensions=["jinja2.ext.i18n"], **options)
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=gettext, ngettext=ngettext, pgettext=pgettext, npgettext=npgettext, newstyle=True
    )
    _add_site_helpers(env)
    return env


def _add_site_helpers(env: Environment) -> None:
    """The site's filters and functions that every fragment may use."""
    env.filters.update(coins=coins, signed_coins=signed_coins, json_script=json_script)
    env.globals.update(url=url)


class TranslatedAtCompile(Extension):
    """Turns ``_("text")`` and ``pgettext("context", "text")`` with literal arguments into the
    translated text while a template compiles, so that the compiled template holds it as a
    constant, escaped once. Only for an environment bound to one language; ``{% trans %}``
    blocks, whose text takes values, are still translated as they render."""

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        catalog = self.environment.globals["compile_catalog"]
        tokens = list(stream)
        index = 0
        while index < len(tokens):
            translated = _translated_call(tokens, index, catalog)
            if translated is None:
                yield tokens[index]
                index += 1
                continue
            text, length = translated
            yield Token(tokens[index].lineno, TOKEN_STRING, text)
            index += length


def _translated_call(tokens: list[Token], index: int, catalog: Any) -> tuple[str, int] | None:
    """The translation of a call to ``_`` or ``gettext`` with one literal string, or to
    ``pgettext`` with two, that starts at ``tokens[index]``, and the call's length in tokens."""
    token = tokens[index]
    if token.type != TOKEN_NAME or index and tokens[index - 1].type == TOKEN_DOT:
        return None
    kinds = [t.type for t in tokens[index + 1 : index + 6]]
    if token.value in ("_", "gettext") and kinds[:3] == [TOKEN_LPAREN, TOKEN_STRING, TOKEN_RPAREN]:
        return str(catalog.gettext(tokens[index + 2].value)), 4
    if token.value == "pgettext" and kinds == [
        TOKEN_LPAREN,
        TOKEN_STRING,
        TOKEN_COMMA,
        TOKEN_STRING,
        TOKEN_RPAREN,
    ]:
        return str(catalog.pgettext(tokens[index + 2].value, tokens[index + 4].value)), 6
    return None


def environment_for_language(env: Environment, language: str) -> Environment:
    """A copy of ``env`` whose strings come from the catalogue of ``language``: the literal ones
    when a template compiles (``TranslatedAtCompile``), the others from the catalogue directly,
    not through Django's active language. Looking up the active language for each string cost
    a frame more than any other part of it. The templates compile once per language."""
    catalog = trans_real.translation(language)
    fixed = FragmentsEnvironment(
        extensions=["jinja2.ext.i18n", TranslatedAtCompile],
        loader=env.loader,
        autoescape=env.autoescape,
        undefined=env.undefined,
        auto_reload=env.auto_reload,
    )
    fixed.globals["compile_catalog"] = catalog
    # A ``{% trans %}`` block's text is looked up at every render: once per text is enough.
    fixed.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=functools.cache(catalog.gettext),
        ngettext=catalog.ngettext,
        pgettext=functools.cache(catalog.pgettext),
        npgettext=catalog.npgettext,
        newstyle=True,
    )
    _add_site_helpers(fixed)
    return fixed
