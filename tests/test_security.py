"""Access: the Content-Security-Policy, CSRF on every URL and form, the admin for staff only, the
websocket's origin check and the security headers of production (docs/security.md)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib import admin
from django.db import connections
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse

from accounts.models import User, Wallet
from games import services
from games.models import Dispute, Game, Room, Table
from tests.games.helpers import make_player, make_room, play_out
from tests.games.live import session_cookie

# --- Content-Security-Policy -------------------------------------------------------------------

POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "connect-src": "'self'",
    "img-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}


def parse_policy(header: str) -> dict[str, str]:
    directives = (part.strip().split(None, 1) for part in header.split(";") if part.strip())
    return {name: (value[0] if value else "") for name, *value in directives}


@pytest.mark.django_db
def test_pages_carry_the_content_security_policy(client: Client) -> None:
    for path in ("/", "/rules/", "/accounts/login/", "/admin/login/"):
        response = client.get(path, follow=True)  # the admin's login is the site's
        assert response.status_code == 200, path
        assert parse_policy(response["Content-Security-Policy"]) == POLICY, path


TEMPLATE_DIRS = [
    settings.BASE_DIR / "templates",
    settings.BASE_DIR / "games" / "templates",
    settings.BASE_DIR / "accounts" / "templates",
]
INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)[^>]*>", re.I)
INLINE_STYLE = re.compile(r"<style\b|\sstyle=", re.I)
INLINE_HANDLER = re.compile(r"\son[a-z]+=|\bhx-on[:-]|javascript:", re.I)


def project_templates() -> Iterator[Path]:
    for directory in TEMPLATE_DIRS:
        yield from sorted(directory.rglob("*.html"))


@pytest.mark.parametrize(
    "template", list(project_templates()), ids=lambda p: str(p.relative_to(settings.BASE_DIR))
)
def test_templates_hold_no_inline_script_or_style(template: Path) -> None:
    """The policy allows no inline script, handler or style: every one lives in a static file."""
    text = template.read_text()
    for what, pattern in [
        ("inline script", INLINE_SCRIPT),
        ("inline style", INLINE_STYLE),
        ("inline event handler", INLINE_HANDLER),
    ]:
        found = pattern.search(text)
        assert found is None, f"{what} in {template.name}: {found.group(0) if found else ''}"


# --- CSRF --------------------------------------------------------------------------------------

CONVERTER_SAMPLES = {"int": "1", "slug": "novice", "str": "x1", "path": "1"}


def _route_sample(route: str) -> str:
    return re.sub(r"<(?:(\w+):)?\w+>", lambda m: CONVERTER_SAMPLES[m.group(1) or "str"], route)


def _regex_sample(regex: str) -> str:
    def group(match: re.Match[str]) -> str:
        body = match.group(1)
        sample = body.split("|")[0] if re.fullmatch(r"[\w|]+", body) else "1"
        assert re.fullmatch(body, sample), f"no sample for ({body}) in {regex}"
        return sample

    return re.sub(r"\(\?P<\w+>([^()]*)\)", group, regex.removeprefix("^").removesuffix("$"))


def every_url(
    patterns: list[URLPattern | URLResolver] | None = None, prefix: str = "/"
) -> Iterator[tuple[str, URLPattern]]:
    """A concrete path for every URL pattern of the site (the admin's and allauth's too)."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        text = str(pattern.pattern)
        sample = _route_sample(text) if "<" in text and "(?P" not in text else _regex_sample(text)
        if isinstance(pattern, URLResolver):
            yield from every_url(pattern.url_patterns, prefix + sample)
        else:
            yield prefix + sample, pattern


CSRF_REFUSED = b"CSRF verification failed"


def assert_refused_for_csrf(response: Any, what: str) -> None:
    assert response.status_code == 403, f"{what}: {response.status_code}"
    assert CSRF_REFUSED in response.content, f"{what}: refused, but not for CSRF"


@pytest.mark.django_db
def test_every_url_refuses_a_post_without_the_csrf_token() -> None:
    """No view is exempt: a POST without the token gets 403 from Django's CSRF check, whatever
    the URL, for a signed-in staff member (who may reach every view)."""
    urls = list(every_url())
    assert len(urls) > 50
    staff = User.objects.create_superuser(username="boss", password="pw-123456")
    client = Client(enforce_csrf_checks=True, headers={"accept-language": "en"})
    client.force_login(staff)
    for path, pattern in urls:
        assert resolve(urlsplit(path).path).func is pattern.callback, (path, pattern)
        assert_refused_for_csrf(client.post(path, {"anything": "1"}), path)


class FormParser(HTMLParser):
    """The POST forms of a page: their action and the fields they would send."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []
        self._form: dict[str, Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        fields = dict(attrs)
        if tag == "form":
            self._form = None
            if (fields.get("method") or "get").lower() == "post":
                self._form = {"action": fields.get("action") or "", "fields": {}}
                self.forms.append(self._form)
        elif tag in ("input", "textarea", "select", "button") and self._form is not None:
            name = fields.get("name")
            if name:
                self._form["fields"][name] = fields.get("value") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None


def post_forms(html: str) -> list[dict[str, Any]]:
    parser = FormParser()
    parser.feed(html)
    return parser.forms


def _finished_game() -> Game:
    room = make_room()
    table = Table.objects.create(room=room)
    players = [make_player(name) for name in ("xiaoming", "zhao", "qian")]
    game = services.game_start(table=table, players=players, seed=20261201)
    play_out(game)
    game.refresh_from_db()
    return game


@pytest.mark.django_db
def test_every_post_form_carries_the_token_and_is_refused_without_it() -> None:
    """Every <form method="post"> of the player's pages, the visitor's and the admin's carries the
    CSRF token, and sending it without the token is refused with 403."""
    game = _finished_game()
    player = User.objects.get(username="xiaoming")
    staff = User.objects.create_superuser(username="boss", password="pw-123456")
    dispute = Dispute.objects.create(game=game, user=player, reason="?")
    table, _seat = services.table_play(user=player, room=game.table.room)
    pages: list[tuple[User | None, str]] = [
        (None, "/accounts/login/"),
        (None, "/accounts/signup/"),
        (None, "/accounts/password/reset/"),
        (None, "/admin/login/"),
        (player, "/"),
        (player, "/rules/"),
        (player, "/rooms/novice/"),
        (player, f"/tables/{table.pk}/"),
        (player, f"/games/{game.pk}/"),
        (player, "/accounts/profile/"),
        (player, "/accounts/logout/"),
        (player, "/accounts/password/change/"),
        (player, "/accounts/email/"),
        (staff, "/admin/"),
        (staff, "/admin/password_change/"),
        (staff, reverse("admin:games_dispute_resolve", args=[dispute.pk])),
        (staff, reverse("admin:games_game_replay", args=[game.pk])),
        (staff, reverse("admin:accounts_user_change", args=[player.pk])),
        (staff, reverse("admin:accounts_wallet_change", args=[Wallet.objects.get(user=player).pk])),
    ]
    for model in admin.site._registry:
        info = (model._meta.app_label, model._meta.model_name)
        pages.append((staff, reverse("admin:{}_{}_changelist".format(*info))))
        pages.append((staff, reverse("admin:{}_{}_add".format(*info))))

    posted: set[str] = set()
    for user, path in pages:
        client = Client(enforce_csrf_checks=True, headers={"accept-language": "en"})
        if user is not None:
            client.force_login(user)
        response = client.get(path, follow=True)
        if response.status_code == 403 and path.endswith("/add/"):
            continue  # a model that staff may not add by hand
        assert response.status_code == 200, (path, response.status_code)
        forms = post_forms(response.content.decode())
        for form in forms:
            action = urljoin(response.request["PATH_INFO"], form["action"])
            what = f"the form to {action} on {path}"
            token = form["fields"].pop("csrfmiddlewaretoken", "")
            assert len(token) >= 32, f"{what} carries no CSRF token"
            assert_refused_for_csrf(client.post(action, form["fields"]), what)
            posted.add(urlsplit(action).path)
    # The forms people use most were among them.
    for path in (
        "/accounts/login/",
        "/accounts/logout/",
        "/i18n/setlang/",
        f"/games/{game.pk}/dispute/",
    ):
        assert path in posted, path


# --- The admin is for staff only ---------------------------------------------------------------


def admin_pages() -> list[str]:
    pages = [reverse("admin:index")]
    for model in admin.site._registry:
        pages.append(reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist"))
    return pages


@pytest.mark.django_db
def test_a_signed_in_player_gets_no_admin_page() -> None:
    client = Client()
    client.force_login(make_player("xiaoming", coins=20_000))
    pages = admin_pages()
    assert len(pages) == 1 + len(admin.site._registry) > 5
    for page in pages:
        response = client.get(page)
        assert response.status_code == 302, page
        assert response["Location"].startswith(reverse("admin:login") + "?next="), page


@pytest.mark.django_db
def test_staff_get_every_admin_page() -> None:
    client = Client()
    client.force_login(User.objects.create_superuser(username="boss", password="pw-123456"))
    for page in admin_pages():
        assert client.get(page).status_code == 200, page


# --- The websocket's origin check --------------------------------------------------------------


@pytest.fixture
def _no_runner() -> Iterator[None]:
    """A channel layer made in the test's event loop, and no table runner in this process."""
    channel_layers.backends.clear()
    with override_settings(TABLE_RUNNER_IN_PROCESS=False):
        yield
    channel_layers.backends.clear()


async def _open(table_id: int, cookie: str, origin: bytes | None) -> tuple[bool, Any]:
    from gandengyan.asgi import application

    headers = [(b"host", b"127.0.0.1"), (b"cookie", f"sessionid={cookie}".encode())]
    if origin is not None:
        headers.append((b"origin", origin))
    communicator = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=headers)
    connected, _code = await communicator.connect(timeout=10)
    frame = await communicator.receive_from(timeout=10) if connected else None
    await communicator.disconnect()
    return connected, frame


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
@pytest.mark.usefixtures("_no_runner")
async def test_the_table_socket_accepts_only_the_sites_own_origin() -> None:
    """A page of another site cannot open a player's table socket with the player's cookie
    (cross-site websocket hijacking); the site's own page can, and gets the table."""

    def seated() -> tuple[int, str]:
        player = make_player("xiaoming", coins=20_000)
        table, _seat = services.table_play(user=player, room=Room.objects.get(code="novice"))
        return table.pk, session_cookie(player)

    table_id, cookie = await database_sync_to_async(seated)()
    try:
        for foreign in (
            b"http://evil.example",
            b"http://127.0.0.1.evil.example",
            b"null",
            None,
        ):
            connected, _frame = await _open(table_id, cookie, foreign)
            assert not connected, foreign
        for own in (b"http://127.0.0.1", b"http://127.0.0.1:8000", b"https://localhost"):
            connected, frame = await _open(table_id, cookie, own)
            assert connected, own
            assert 'id="table"' in frame, own
    finally:
        await database_sync_to_async(connections.close_all)()


# --- Production headers ------------------------------------------------------------------------

PRODUCTION_SETTINGS = [
    "DEBUG",
    "SECURE_SSL_REDIRECT",
    "SECURE_PROXY_SSL_HEADER",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_CONTENT_TYPE_NOSNIFF",
    "SECURE_REFERRER_POLICY",
    "SECURE_CROSS_ORIGIN_OPENER_POLICY",
    "X_FRAME_OPTIONS",
    "SESSION_COOKIE_SECURE",
    "SESSION_COOKIE_HTTPONLY",
    "CSRF_COOKIE_SECURE",
    "MIDDLEWARE",
    "CONTENT_SECURITY_POLICY",
]


def production_settings() -> dict[str, Any]:
    """The security settings as gandengyan.settings makes them with DEBUG off, read in a process
    of their own (settings are read once, at start-up)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "gandengyan.settings",
        "DEBUG": "false",
        "SECRET_KEY": "a-long-random-production-key-" + "x7Qp" * 12,
        "ALLOWED_HOSTS": "gandengyan.example",
    }
    for name in ("SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE"):
        env.pop(name, None)
    env.pop("SECURE_HSTS_SECONDS", None)
    script = (
        "import json, sys; from django.conf import settings; "
        f"print(json.dumps({{n: getattr(settings, n) for n in {PRODUCTION_SETTINGS!r}}}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    values: dict[str, Any] = json.loads(result.stdout)
    values["SECURE_PROXY_SSL_HEADER"] = tuple(values["SECURE_PROXY_SSL_HEADER"])
    return values


@pytest.mark.django_db
def test_production_responses_carry_the_security_headers() -> None:
    """With the production settings, behind the TLS proxy: HSTS, nosniff, the referrer policy,
    no framing, the CSP, and session and CSRF cookies that go over HTTPS only."""
    production = production_settings()
    assert production["DEBUG"] is False
    make_player("xiaoming", coins=20_000)
    https = {"host": "gandengyan.example", "x-forwarded-proto": "https"}
    with override_settings(**production, ALLOWED_HOSTS=["gandengyan.example"]):
        client = Client(headers=https)

        plain = Client(headers={"host": "gandengyan.example"}).get("/accounts/login/")
        assert plain.status_code == 301
        assert plain["Location"] == "https://gandengyan.example/accounts/login/"

        page = client.get("/accounts/login/")
        assert page.status_code == 200
        logged_in = client.post("/accounts/login/", {"login": "xiaoming", "password": "pw-123456"})
        assert logged_in.status_code == 302
        for response in (page, logged_in):
            assert response["Strict-Transport-Security"] == (
                "max-age=31536000; includeSubDomains; preload"
            )
            assert response["X-Content-Type-Options"] == "nosniff"
            assert response["Referrer-Policy"] == "same-origin"
            assert response["X-Frame-Options"] == "DENY"
            assert parse_policy(response["Content-Security-Policy"]) == POLICY
        csrf_cookie = page.cookies[settings.CSRF_COOKIE_NAME]
        assert csrf_cookie["secure"] is True
        session = logged_in.cookies[settings.SESSION_COOKIE_NAME]
        assert session["secure"] is True
        assert session["httponly"] is True
        assert session["samesite"] == "Lax"
