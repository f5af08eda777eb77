"""The site's mail reaches a real SMTP server (aiosmtpd, started here on a free port) and its
links work: a password reset, and the confirmation of an address given at sign-up. The SMTP
settings come from the environment."""

from __future__ import annotations

import email
import email.policy
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from allauth.account.models import EmailAddress
from django.conf import settings
from django.test import Client, override_settings

from accounts.models import User

pytestmark = pytest.mark.django_db


class Inbox:
    """An aiosmtpd handler that keeps every message it is sent."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], EmailMessage]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        self.messages.append((list(envelope.rcpt_tos), message))
        return "250 Message accepted for delivery"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
def smtp_inbox() -> Iterator[Inbox]:
    """A real SMTP server on 127.0.0.1, and the site's mail sent to it over SMTP."""
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        with override_settings(
            EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
            EMAIL_HOST="127.0.0.1",
            EMAIL_PORT=port,
            EMAIL_HOST_USER="",
            EMAIL_HOST_PASSWORD="",
            EMAIL_USE_TLS=False,
            EMAIL_USE_SSL=False,
            DEFAULT_FROM_EMAIL="干瞪眼 Online <noreply@gandengyan.example>",
        ):
            yield inbox
    finally:
        controller.stop()


def body_of(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    content: str = part.get_content()
    return content


def test_a_password_reset_is_delivered_and_its_link_sets_a_new_password(
    smtp_inbox: Inbox, make_player: Any
) -> None:
    make_player(username="laoli", email="laoli@example.com")
    client = Client()
    response = client.post("/accounts/password/reset/", {"email": "laoli@example.com"})
    assert response.status_code == 302
    [(recipients, message)] = smtp_inbox.messages
    assert recipients == ["laoli@example.com"]
    assert message["To"] == "laoli@example.com"
    assert "noreply@gandengyan.example" in message["From"]
    link = re.search(r"http://testserver(/accounts/password/reset/key/\S+)", body_of(message))
    assert link is not None, body_of(message)
    # The key in the link leads to the form (allauth moves it from the URL to the session).
    form = client.get(link.group(1), follow=True)
    action = re.search(
        r'<form class="account-form" method="post" action="([^"]+)"', form.content.decode()
    )
    assert action is not None
    done = client.post(
        action.group(1), {"password1": "meihua-8-dui-new", "password2": "meihua-8-dui-new"}
    )
    assert done.status_code == 302
    assert User.objects.get(username="laoli").check_password("meihua-8-dui-new")


def test_an_address_given_at_sign_up_is_confirmed_by_the_link_delivered(
    smtp_inbox: Inbox,
) -> None:
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {
            "username": "xiaoming",
            "email": "xm@example.com",
            "password1": "hongtao-7-dui",
            "password2": "hongtao-7-dui",
        },
    )
    assert response.status_code == 302
    address = EmailAddress.objects.get(email="xm@example.com")
    assert not address.verified
    [(recipients, message)] = smtp_inbox.messages
    assert recipients == ["xm@example.com"]
    link = re.search(r"http://testserver(/accounts/confirm-email/[^/\s]+/)", body_of(message))
    assert link is not None, body_of(message)
    # Opening the link shows a button; the address is confirmed when it is pressed.
    assert client.get(link.group(1)).status_code == 200
    confirmed = client.post(link.group(1))
    assert confirmed.status_code == 302
    address.refresh_from_db()
    assert address.verified


def test_an_smtp_server_that_does_not_answer_fails_the_send_loudly(make_player: Any) -> None:
    """No silent loss: the reset raises, so the error is logged and the visitor sees the 500."""
    make_player(username="laoli", email="laoli@example.com")
    with override_settings(
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=free_port(),
        EMAIL_USE_TLS=False,
        EMAIL_TIMEOUT=5,
    ):
        response = Client(raise_request_exception=False).post(
            "/accounts/password/reset/", {"email": "laoli@example.com"}
        )
    assert response.status_code == 500


MAIL_SETTINGS = [
    "EMAIL_BACKEND",
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS",
    "EMAIL_USE_SSL",
    "DEFAULT_FROM_EMAIL",
]


def settings_from(environment: dict[str, str]) -> dict[str, Any]:
    """The mail settings that gandengyan.settings reads from ``environment``."""
    clean = {key: value for key, value in os.environ.items() if not key.startswith("EMAIL_")}
    clean.pop("DEFAULT_FROM_EMAIL", None)
    code = (
        "import json; from gandengyan import settings; "
        f"print(json.dumps({{name: getattr(settings, name) for name in {MAIL_SETTINGS!r}}}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        env={**clean, "SECRET_KEY": "x" * 50, **environment},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    values: dict[str, Any] = json.loads(result.stdout)
    return values


def test_smtp_settings_come_from_the_environment() -> None:
    values = settings_from(
        {
            "DEBUG": "false",
            "EMAIL_HOST": "smtp.example.net",
            "EMAIL_PORT": "465",
            "EMAIL_HOST_USER": "mailer",
            "EMAIL_HOST_PASSWORD": "s3cret",
            "EMAIL_USE_SSL": "true",
            "DEFAULT_FROM_EMAIL": "干瞪眼 Online <noreply@gandengyan.example>",
        }
    )
    assert values == {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "smtp.example.net",
        "EMAIL_PORT": 465,
        "EMAIL_HOST_USER": "mailer",
        "EMAIL_HOST_PASSWORD": "s3cret",
        # TLS from the start, so no STARTTLS as well (Django refuses both).
        "EMAIL_USE_TLS": False,
        "EMAIL_USE_SSL": True,
        "DEFAULT_FROM_EMAIL": "干瞪眼 Online <noreply@gandengyan.example>",
    }


def test_without_a_host_mail_goes_to_the_console_in_development_only() -> None:
    development = settings_from({"DEBUG": "true"})
    assert development["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    production = settings_from({"DEBUG": "false"})
    assert production["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    # The machine's own mail server, as Django has it by default.
    assert (production["EMAIL_HOST"], production["EMAIL_PORT"]) == ("localhost", 25)
    assert production["EMAIL_USE_TLS"] is False
    # A provider's host alone: the submission port with STARTTLS.
    provider = settings_from({"DEBUG": "false", "EMAIL_HOST": "smtp.example.net"})
    assert (provider["EMAIL_PORT"], provider["EMAIL_USE_TLS"]) == (587, True)
