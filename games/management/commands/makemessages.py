"""``makemessages`` that also reads the Jinja2 templates (``templates/jinja2/``).

Django's own command reads templates with the Django template language's lexer, which does not
know Jinja2's ``{% trans %}`` blocks or ``pgettext()`` calls: their strings would be left out of
the catalogues and their translations marked obsolete. Here Jinja2 finds a template's strings
itself, and each becomes a ``gettext`` call on its own line for xgettext, as Django does with its
own templates.
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.commands import makemessages
from jinja2 import Environment

_JINJA_DIR = "jinja2"


def jinja_as_python(source: str) -> str:
    """The translatable strings of a Jinja2 template as Python calls, each on its template line."""
    env = Environment(extensions=["jinja2.ext.i18n"])
    lines = [""] * (source.count("\n") + 1)
    # The i18n extension adds extract_translations to the environment when it is loaded.
    for lineno, function, message in env.extract_translations(source):  # type: ignore[attr-defined]
        arguments = message if isinstance(message, tuple) else (message,)
        name = "gettext" if function == "_" else function
        call = f"{name}({', '.join(repr(argument) for argument in arguments)})"
        lines[lineno - 1] += call + "; "
    return "\n".join(lines) + "\n"


class JinjaAwareBuildFile(makemessages.BuildFile):
    def preprocess(self) -> None:
        if not self.is_templatized or _JINJA_DIR not in Path(self.path).parts:
            super().preprocess()
            return
        source = Path(self.path).read_text(encoding="utf-8")
        Path(self.work_path).write_text(jinja_as_python(source), encoding="utf-8")


class Command(makemessages.Command):
    build_file_class = JinjaAwareBuildFile
