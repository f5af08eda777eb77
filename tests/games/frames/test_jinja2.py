"""The table fragments' Jinja2 environments: translated when they compile, escaped, per language."""

from __future__ import annotations

from typing import Any

from django.template import engines
from jinja2 import DebugUndefined, DictLoader

from games.frames.jinja2 import FragmentsEnvironment, environment, environment_for_language

SOURCE = (
    '<b title="{{ _("Coins") }}">{{ pgettext("table action", "Pass") }}</b>'
    "{% trans name=who %}Waiting for {{ name }}…{% endtrans %}"
    "{{ who }}|{{ gettext(text) }}|{{ thing._('x') }}"
)


def _render(language: str, **context: object) -> str:
    env = environment_for_language(engines["fragments"].env, language)  # type: ignore[attr-defined]
    return env.from_string(SOURCE).render(context)


def test_literal_strings_are_translated_when_the_template_compiles() -> None:
    env = environment_for_language(engines["fragments"].env, "zh-hans")  # type: ignore[attr-defined]
    code = env.compile(SOURCE, raw=True)
    # The literal calls are gone from the compiled code, their Chinese text is in it.
    assert "金币" in code and "不要" in code
    assert "'Coins'" not in code and "'Pass'" not in code


def test_each_language_renders_its_own_text_with_values_escaped() -> None:
    thing = {"_": lambda text: f"[{text}]"}
    zh = _render("zh-hans", who="<小明>", text="Bot", thing=thing)
    assert zh == ('<b title="金币">不要</b>等待 &lt;小明&gt; 出牌…&lt;小明&gt;|机器人|[x]')
    en = _render("en", who="Ann", text="Bot", thing=thing)
    assert en == '<b title="Coins">Pass</b>Waiting for Ann…Ann|Bot|[x]'


class _Seat:
    name = "attribute"


def test_a_dict_key_is_read_before_a_method_of_the_same_name_and_objects_keep_attributes() -> None:
    env = environment_for_language(engines["fragments"].env, "en")  # type: ignore[attr-defined]
    template = env.from_string("{{ row.items }}|{{ row.name }}|{{ seat.name }}|{{ row.missing }}.")
    text = template.render(row={"items": 3, "name": "Ann"}, seat=_Seat())
    assert text == "3|Ann|attribute|."
    # A dict without such a key still offers its methods, as Jinja2 does.
    assert env.from_string("{{ row.keys()|join(',') }}").render(row={"a": 1, "b": 2}) == "a,b"


def test_an_absent_key_renders_empty_even_when_debug_asks_for_it_to_show() -> None:
    # Django's Jinja2 backend asks for DebugUndefined when DEBUG is on, as the served site is.
    env = environment(autoescape=True, undefined=DebugUndefined)
    assert env.from_string("[{{ row.missing }}]").render(row={}) == "[]"
    assert environment_for_language(env, "en").from_string("[{{ x }}]").render() == "[]"


class _CountingLoader(DictLoader):
    """Templates from a dict, counting how often each is loaded."""

    def __init__(self, mapping: dict[str, str]) -> None:
        super().__init__(mapping)
        self.loads: dict[str, int] = {}

    def get_source(self, environment: Any, template: str) -> Any:
        self.loads[template] = self.loads.get(template, 0) + 1
        return super().get_source(environment, template)


def test_a_parent_template_is_loaded_once_unless_templates_reload() -> None:
    loader = _CountingLoader(
        {"base.html": "[{% block x %}{% endblock %}]", "child.html": CHILD, "other.html": "o"}
    )
    kept = FragmentsEnvironment(loader=loader, auto_reload=False)
    for _ in range(3):
        assert kept.get_template("child.html").render(n=2) == "[2]"
    assert loader.loads == {"child.html": 1, "base.html": 1}
    # Globals for one template still reach it, kept or not, as Jinja2 gives them.
    assert "g" not in kept.get_template("other.html").globals
    assert kept.get_template("other.html", globals={"g": 1}).globals["g"] == 1

    loader.mapping["base.html"] = "({% block x %}{% endblock %})"
    reloading = FragmentsEnvironment(loader=loader, auto_reload=True)
    assert reloading.get_template("child.html").render(n=2) == "(2)"
    loader.mapping["base.html"] = "<{% block x %}{% endblock %}>"
    assert reloading.get_template("child.html").render(n=2) == "<2>"


CHILD = '{% extends "base.html" %}{% block x %}{{ n }}{% endblock %}'
