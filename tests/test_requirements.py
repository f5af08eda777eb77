"""requirements.txt holds what the site runs and nothing else, requirements-dev.txt adds the
tools that test it, and every line of both is pinned."""

import ast
import importlib.util
import re
import sys
from importlib import metadata
from pathlib import Path

from django.conf import settings
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

RUNTIME = settings.BASE_DIR / "requirements.txt"
DEV = settings.BASE_DIR / "requirements-dev.txt"
APPS = ("accounts", "games", "gandengyan")
FIRST_PARTY = set(APPS)
DEV_ONLY = {
    "pytest",
    "pytest-django",
    "pytest-asyncio",
    "playwright",
    "ruff",
    "mypy",
    "hypothesis",
    "django-stubs",
    "django-stubs-ext",
    "aiosmtpd",
}
PINNED = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(\[[a-z0-9,_-]+\])?==[0-9][0-9A-Za-z.+!-]*")


def requirement_lines(path: Path) -> list[str]:
    lines = (line.strip() for line in path.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def pinned(path: Path) -> list[Requirement]:
    return [Requirement(line) for line in requirement_lines(path) if not line.startswith("-r ")]


def test_every_line_of_both_files_is_pinned() -> None:
    for path in (RUNTIME, DEV):
        for line in requirement_lines(path):
            if path == DEV and line == "-r requirements.txt":
                continue
            assert PINNED.fullmatch(line), f"{path.name}: {line!r} is not pinned with =="


def test_the_dev_file_includes_the_runtime_one_and_repeats_none_of_it() -> None:
    assert "-r requirements.txt" in requirement_lines(DEV)
    runtime = {canonicalize_name(each.name) for each in pinned(RUNTIME)}
    dev = {canonicalize_name(each.name) for each in pinned(DEV)}
    assert not runtime & dev
    assert dev >= DEV_ONLY


def test_no_tool_of_the_tests_is_a_runtime_requirement() -> None:
    runtime = {canonicalize_name(each.name) for each in pinned(RUNTIME)}
    assert not runtime & DEV_ONLY
    assert not {name for name in runtime if name.startswith("types-")}


def runtime_closure() -> set[str]:
    """The distributions requirements.txt installs: its own and everything they require (with
    the extras asked for), by the metadata of the installed packages."""
    found: set[str] = set()
    waiting = [(each.name, set(each.extras)) for each in pinned(RUNTIME)]
    while waiting:
        name, extras = waiting.pop()
        key = canonicalize_name(name)
        if key in found:
            continue
        found.add(key)
        for line in metadata.requires(name) or []:
            requirement = Requirement(line)
            marker = requirement.marker
            environments = [{"extra": extra} for extra in extras] or [{"extra": ""}]
            if marker is None or any(marker.evaluate(env) for env in environments):
                waiting.append((requirement.name, set(requirement.extras)))
    return found


def imported_roots(tree: ast.AST) -> set[str]:
    """Top-level names of the modules a module imports when it runs: not those imported only
    for the type checker (under ``if TYPE_CHECKING:``)."""
    roots: set[str] = set()
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for child in node.body for inner in ast.walk(child))
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def named_in_settings() -> set[str]:
    """Top-level names of the modules the settings name in strings (apps, middleware, backends)."""
    tree = ast.parse((settings.BASE_DIR / "gandengyan" / "settings.py").read_text())
    dotted = re.compile(r"[a-z_][a-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
    return {
        node.value.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and dotted.fullmatch(node.value)
        and "." in node.value
        and importlib.util.find_spec(node.value.split(".")[0]) is not None
    }


def test_every_runtime_import_of_the_apps_is_installed_by_requirements_txt() -> None:
    roots: set[str] = set()
    for app in APPS:
        for source in (settings.BASE_DIR / app).rglob("*.py"):
            roots |= imported_roots(ast.parse(source.read_text(), filename=str(source)))
    roots |= named_in_settings() | {app.split(".")[0] for app in settings.INSTALLED_APPS}
    third_party = roots - set(sys.stdlib_module_names) - FIRST_PARTY
    distributions = metadata.packages_distributions()
    closure = runtime_closure()
    missing = {
        root: distributions.get(root)
        for root in sorted(third_party)
        if not any(canonicalize_name(name) in closure for name in distributions.get(root, []))
    }
    assert not missing, f"imported by the apps but not installed by requirements.txt: {missing}"
    # The check sees the imports that matter, with what settings name.
    assert third_party >= {"django", "channels", "allauth", "psycopg", "daphne", "whitenoise"}
    assert third_party >= {"channels_redis", "csp", "environ", "jinja2", "limits"}
