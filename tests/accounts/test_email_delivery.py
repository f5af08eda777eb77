"""The site's mail reaches a real SMTP server (aiosmtpd, started here on a free port) and its
links work: a password reset, and the confirmation of an address given at sign-up. The mail
settings are those the site reads from the environment in production: a request only queues its
mail, and the mail worker (``manage.py run_mail``) sends it, so a mail server that is down costs
no request and loses no mail."""

from __future__ import annotations

import email
import email.policy
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from allauth.account.models import EmailAddress
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.test import Client, override_settings
from mailer.models import Message, MessageLog

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


class SmtpServer:
    """A real SMTP server on 127.0.0.1 at a port chosen before it starts, so that the site can
    be pointed at the port while nothing listens there yet."""

    def __init__(self) -> None:
        self.inbox = Inbox()
        self.port = free_port()
        self.controller: Controller | None = None

    def start(self) -> None:
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


def mail_environment(port: int) -> dict[str, str]:
    """The environment of a deployment whose SMTP server listens on ``port`` (plain SMTP, and a
    short timeout so that a server that does not answer fails fast)."""
    return {
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(port),
        "EMAIL_USE_TLS": "false",
        "EMAIL_TIMEOUT": "2",
        "DEFAULT_FROM_EMAIL": "干瞪眼 Online <noreply@gandengyan.example>",
    }


@pytest.fixture
def smtp_server() -> Iterator[SmtpServer]:
    """A real SMTP server, not started yet, and the site's mail settings as production reads
    them from the environment (DEBUG off), pointed at it."""
    server = SmtpServer()
    production = settings_from({"DEBUG": "false", **mail_environment(server.port)})
    try:
        with override_settings(**production):
            yield server
    finally:
        server.stop()


@pytest.fixture
def smtp_inbox(smtp_server: SmtpServer) -> Inbox:
    """The SMTP server above, up."""
    smtp_server.start()
    return smtp_server.inbox


def deliver() -> None:
    """One pass of the mail worker, in this process (and this test's transaction)."""
    call_command("run_mail", "--once")


def worker_environment(port: int, **changes: str) -> dict[str, str]:
    """The environment of the mail worker as deployed (DEBUG off), on the test database and with
    the mail server at ``port``."""
    database = connection.settings_dict
    if database["ENGINE"] == "django.db.backends.sqlite3":
        url = f"sqlite:///{database['NAME']}"
    else:
        url = (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/"
            f"{database['NAME']}"
        )
    clean = {key: value for key, value in os.environ.items() if not key.startswith("EMAIL_")}
    return {
        **clean,
        "DJANGO_SETTINGS_MODULE": "tests.server_settings",
        "DATABASE_URL": url,
        "DEBUG": "false",
        "SECRET_KEY": "x" * 50,
        **mail_environment(port),
        **changes,
    }


def run_the_mail_worker(port: int) -> None:
    """One pass of the mail worker, as a process of its own."""
    worker = subprocess.run(
        [sys.executable, "manage.py", "run_mail", "--once"],
        cwd=settings.BASE_DIR,
        env=worker_environment(port),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert worker.returncode == 0, worker.stdout + worker.stderr


def wait_until(condition: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.1)


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
    deliver()
    [(recipients, message)] = smtp_inbox.messages
    # Sent, and not kept: the queue is empty and the log of the try has no copy of the link.
    assert not Message.objects.exists()
    [tried] = MessageLog.objects.all()
    assert tried.message_data is None
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


def sign_up(client: Client) -> int:
    response = client.post(
        "/accounts/signup/",
        {
            "username": "xiaoming",
            "email": "xm@example.com",
            "password1": "hongtao-7-dui",
            "password2": "hongtao-7-dui",
        },
    )
    return response.status_code


def test_an_address_given_at_sign_up_is_confirmed_by_the_link_delivered(
    smtp_inbox: Inbox,
) -> None:
    client = Client()
    assert sign_up(client) == 302
    address = EmailAddress.objects.get(email="xm@example.com")
    assert not address.verified
    deliver()
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


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_sign_up_while_the_mail_server_is_down_gets_its_mail_once_it_is_up(
    smtp_server: SmtpServer,
) -> None:
    """The sign-up succeeds with nothing listening on the mail port; the worker, run as its own
    process, keeps the mail while the server is down and sends it once when it is up."""
    client = Client(raise_request_exception=False)
    assert sign_up(client) == 302
    assert User.objects.filter(username="xiaoming").exists()
    assert EmailAddress.objects.filter(email="xm@example.com", verified=False).exists()

    # Still down: the worker's try fails, and the mail waits in the queue for the next one.
    run_the_mail_worker(smtp_server.port)
    [waiting] = Message.objects.deferred()
    assert waiting.to_addresses == ["xm@example.com"]

    smtp_server.start()
    run_the_mail_worker(smtp_server.port)
    [(recipients, message)] = smtp_server.inbox.messages
    assert recipients == ["xm@example.com"]
    assert re.search(r"/accounts/confirm-email/[^/\s]+/", body_of(message)), body_of(message)
    assert not Message.objects.exists()
    # Sent once: another pass sends nothing again.
    run_the_mail_worker(smtp_server.port)
    assert len(smtp_server.inbox.messages) == 1


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_running_worker_retries_until_the_server_is_up_and_stops_when_told(
    smtp_server: SmtpServer, tmp_path: Any
) -> None:
    """``run_mail`` as serve.sh and the service unit run it: it sends a new mail within its
    interval, tries again the mail that failed, and stops on SIGTERM."""
    log = tmp_path / "run_mail.log"
    with log.open("w") as out:
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "run_mail"],
            cwd=settings.BASE_DIR,
            env=worker_environment(
                smtp_server.port, MAIL_QUEUE_SECONDS="0.2", MAIL_RETRY_SECONDS="1"
            ),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        assert sign_up(Client()) == 302
        wait_until(lambda: MessageLog.objects.exists(), 30)
        smtp_server.start()
        wait_until(lambda: bool(smtp_server.inbox.messages), 30)
        wait_until(lambda: not Message.objects.exists(), 10)
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 0, log.read_text()
    [(recipients, _message)] = smtp_server.inbox.messages
    assert recipients == ["xm@example.com"]
    assert "Stopped." in log.read_text()


def test_a_password_reset_while_the_mail_server_is_down_is_sent_once_it_is_up(
    smtp_server: SmtpServer, make_player: Any
) -> None:
    make_player(username="laoli", email="laoli@example.com")
    response = Client(raise_request_exception=False).post(
        "/accounts/password/reset/", {"email": "laoli@example.com"}
    )
    assert response.status_code == 302
    deliver()
    assert smtp_server.inbox.messages == []
    smtp_server.start()
    deliver()
    deliver()
    [(recipients, message)] = smtp_server.inbox.messages
    assert recipients == ["laoli@example.com"]
    assert "/accounts/password/reset/key/" in body_of(message)


def test_a_mail_is_retried_a_bounded_number_of_times(smtp_server: SmtpServer) -> None:
    """Past MAILER_EMAIL_MAX_RETRIES the mail stays in the queue, where staff see it in the
    admin, and the worker no longer tries it."""
    assert sign_up(Client()) == 302
    with override_settings(MAILER_EMAIL_MAX_RETRIES=2):
        for _ in range(4):
            deliver()
        [waiting] = Message.objects.all()
        assert waiting.retry_count == 2
        smtp_server.start()
        deliver()
    assert smtp_server.inbox.messages == []
    assert Message.objects.deferred().count() == 1


MAIL_SETTINGS = [
    "EMAIL_BACKEND",
    "MAILER_EMAIL_BACKEND",
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS",
    "EMAIL_USE_SSL",
    "EMAIL_TIMEOUT",
    "DEFAULT_FROM_EMAIL",
]


def settings_from(environment: dict[str, str]) -> dict[str, Any]:
    """The mail settings that gandengyan.settings reads from ``environment`` (those it has)."""
    clean = {key: value for key, value in os.environ.items() if not key.startswith("EMAIL_")}
    clean.pop("DEFAULT_FROM_EMAIL", None)
    code = (
        "import json; from gandengyan import settings; "
        "print(json.dumps({name: getattr(settings, name) for name in "
        f"{MAIL_SETTINGS!r} if hasattr(settings, name)}}))"
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
            "EMAIL_TIMEOUT": "30",
            "DEFAULT_FROM_EMAIL": "干瞪眼 Online <noreply@gandengyan.example>",
        }
    )
    assert values == {
        # Requests queue the mail; the worker sends it over SMTP.
        "EMAIL_BACKEND": "mailer.backend.DbBackend",
        "MAILER_EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "smtp.example.net",
        "EMAIL_PORT": 465,
        "EMAIL_HOST_USER": "mailer",
        "EMAIL_HOST_PASSWORD": "s3cret",
        # TLS from the start, so no STARTTLS as well (Django refuses both).
        "EMAIL_USE_TLS": False,
        "EMAIL_USE_SSL": True,
        "EMAIL_TIMEOUT": 30,
        "DEFAULT_FROM_EMAIL": "干瞪眼 Online <noreply@gandengyan.example>",
    }


def test_without_a_host_mail_goes_to_the_console_in_development_only() -> None:
    development = settings_from({"DEBUG": "true"})
    assert development["EMAIL_BACKEND"] == "mailer.backend.DbBackend"
    assert development["MAILER_EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    production = settings_from({"DEBUG": "false"})
    assert production["EMAIL_BACKEND"] == "mailer.backend.DbBackend"
    assert production["MAILER_EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    # The machine's own mail server, as Django has it by default.
    assert (production["EMAIL_HOST"], production["EMAIL_PORT"]) == ("localhost", 25)
    assert production["EMAIL_USE_TLS"] is False
    # A provider's host alone: the submission port with STARTTLS.
    provider = settings_from({"DEBUG": "false", "EMAIL_HOST": "smtp.example.net"})
    assert (provider["EMAIL_PORT"], provider["EMAIL_USE_TLS"]) == (587, True)


def test_staff_see_the_waiting_mail_in_the_admin_and_can_send_it(
    smtp_server: SmtpServer, staff: User
) -> None:
    """A mail that used up its tries stays in the queue; staff send it from the admin."""
    assert sign_up(Client()) == 302
    with override_settings(MAILER_EMAIL_MAX_RETRIES=0):
        deliver()
        deliver()  # the server is down: the mail waits, with no try left
    client = Client()
    client.force_login(staff)
    index = client.get("/admin/").content.decode()
    assert "邮件队列" in index
    assert "待发邮件" in index
    waiting = client.get("/admin/mailer/message/")
    assert waiting.status_code == 200
    assert "xm@example.com" in waiting.content.decode()

    smtp_server.start()
    [message] = Message.objects.all()
    sent = client.post(
        "/admin/mailer/message/",
        {"action": "send_messages", "_selected_action": [str(message.pk)]},
        follow=True,
    )
    assert "邮件已发送。" in sent.content.decode()
    [(recipients, _message)] = smtp_server.inbox.messages
    assert recipients == ["xm@example.com"]
    assert not Message.objects.exists()
