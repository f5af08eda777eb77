"""``./scripts/serve.sh`` with DEBUG off, as a deployment runs it: it gathers the static files
before it serves (without them every page answered 500), and it refuses to start while a demo
account made in a DEBUG run still opens with its demo password.

The script runs in a copy of the repository (a temporary folder, with this environment's Python
packages and the front-end packages already in place, so that it installs nothing), on a SQLite
file of its own and a free port: a developer's ``db.sqlite3``, ``staticfiles/`` and port 8000
are neither read nor touched.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from django.conf import settings

from tests.accounts.test_email_delivery import Inbox
from tests.e2e.test_serve import free_port

pytestmark = pytest.mark.e2e

#: What the proxy in front of the site says of a request that came over HTTPS.
HTTPS = {"X-Forwarded-Proto": "https"}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
        pytest.skip("the script's site runs on the embedded default; the SQLite run starts it")
    base = Path(settings.BASE_DIR)
    venv = Path(sys.prefix)
    stamp = venv / ".requirements.sha256"
    # serve.sh's setup.sh would install into the test's venv unless it holds what it wants.
    wanted = subprocess.run(
        [sys.executable, "scripts/requirements_stamp.py", "requirements-dev.txt"],
        cwd=base,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not stamp.is_file() or stamp.read_text().strip() != wanted:
        pytest.skip(
            "this environment's packages are not requirements.txt's: setup.sh would install"
        )
    if not (base / "node_modules" / "idiomorph").is_dir():
        pytest.skip("the front-end packages are not installed (npm ci)")
    copy = tmp_path_factory.mktemp("production") / "site"
    shutil.copytree(
        base,
        copy,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            "node_modules",
            ".test-artifacts",
            "staticfiles",
            "db.sqlite3*",
            "__pycache__",
            ".mypy_cache",
            ".ruff_cache",
            ".pytest_cache",
            ".hypothesis",
            ".env",
        ),
    )
    shutil.copytree(base / "node_modules", copy / "node_modules", symlinks=True)
    (copy / "node_modules" / ".package-lock.sha256").write_text(sha256(copy / "package-lock.json"))
    (copy / ".venv").symlink_to(venv)
    return copy


def production_env(folder: Path) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DJANGO_", "TEST_", "PYTEST_", "DEMO_"))
        and name not in ("DATABASE_URL", "REDIS_URL", "DEBUG")
    }
    env.update(
        {
            "DEBUG": "false",
            "SECRET_KEY": "a-long-random-production-key-" + "x7Qp" * 12,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "HOST": "127.0.0.1",
            "PORT": str(free_port()),
            "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
            "REDIS_URL": "",
        }
    )
    return env


def manage(repository: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(
        [str(repository / ".venv" / "bin" / "python"), "manage.py", *args],
        cwd=repository,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )


def get(url: str) -> tuple[int, bytes, str]:
    request = urllib.request.Request(url, headers=HTTPS)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.read(), response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers.get("Content-Type", "")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


class Serving:
    """``scripts/serve.sh`` started in the background; its output goes to ``log``."""

    def __init__(self, repository: Path, env: dict[str, str], log: Path) -> None:
        self.url = f"http://127.0.0.1:{env['PORT']}"
        self.log = log
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                ["bash", "scripts/serve.sh"],
                cwd=repository,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_until_it_listens(self) -> None:
        deadline = time.monotonic() + 240
        while f"{self.url}/" not in self.output():
            if self.process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"./scripts/serve.sh did not start:\n{self.output()[-3000:]}")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


@pytest.fixture
def serving() -> Iterator[list[Serving]]:
    """The scripts a test starts, stopped after it."""
    started: list[Serving] = []
    yield started
    for each in started:
        each.stop()


def test_serve_with_debug_off_answers_pages_and_static_files(
    repository: Path, tmp_path: Path, serving: list[Serving]
) -> None:
    site = Serving(repository, production_env(tmp_path), tmp_path / "serve.log")
    serving.append(site)
    site.wait_until_it_listens()
    for path in ("/", "/rules/"):
        status, body, _type = get(f"{site.url}{path}")
        assert status == 200, (path, body[:500])
    home = get(f"{site.url}/")[1].decode()
    # The pages name the static files by their hashed names, from collectstatic's manifest.
    styles = re.findall(r'href="(/static/[^"]+\.css)"', home)
    scripts = re.findall(r'src="(/static/[^"]+\.js)"', home)
    assert styles and scripts
    for path in styles[:1] + scripts[:1]:
        assert re.search(r"\.[0-9a-f]{12}\.(css|js)$", path), path
        status, body, content_type = get(f"{site.url}{path}")
        assert status == 200, path
        assert body
        assert content_type.split(";")[0] in ("text/css", "text/javascript"), content_type
    # Plain HTTP, without the proxy's word, is sent to HTTPS.
    with pytest.raises(urllib.error.HTTPError) as redirect:
        opener = urllib.request.build_opener(NoRedirect)
        opener.open(f"{site.url}/rules/", timeout=20)
    assert redirect.value.code == 301


def test_serve_refuses_to_start_while_a_demo_password_opens_an_account(
    repository: Path, tmp_path: Path, serving: list[Serving]
) -> None:
    env = production_env(tmp_path)
    # A database seeded in a DEBUG run: admin/admin, zhangsan/player, lisi/player.
    manage(repository, {**env, "DEBUG": "true"}, "migrate", "--noinput")
    manage(repository, {**env, "DEBUG": "true"}, "seed_demo")

    refused = Serving(repository, env, tmp_path / "refused.log")
    serving.append(refused)
    assert refused.process.wait(timeout=240) != 0
    output = refused.output()
    assert "accounts.E001" in output, output[-3000:]
    assert "admin, lisi, zhangsan" in output
    assert f"{refused.url}/" not in output
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"{refused.url}/", timeout=5)

    # Once every demo account has a password of its own, the site starts.
    manage(
        repository,
        env,
        "shell",
        "-c",
        "from accounts.models import User\n"
        "for user in User.objects.filter(username__in=['admin', 'zhangsan', 'lisi']):\n"
        "    user.set_password('a-real-password-9f2c')\n"
        "    user.save(update_fields=['password'])\n",
    )
    site = Serving(repository, env, tmp_path / "serve.log")
    serving.append(site)
    site.wait_until_it_listens()
    assert get(f"{site.url}/")[0] == 200


def test_serve_sends_the_mail_queued_while_it_was_down_and_stops_its_mail_worker(
    repository: Path, tmp_path: Path, serving: list[Serving]
) -> None:
    """The script's mail worker sends what a request queued before the site started, over SMTP,
    and is stopped with the script: nothing of the script is left running after SIGTERM."""
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        env = {
            **production_env(tmp_path),
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(port),
            "EMAIL_USE_TLS": "false",
        }
        manage(repository, env, "migrate", "--noinput")
        manage(
            repository,
            env,
            "shell",
            "-c",
            "from django.core.mail import send_mail\n"
            "send_mail('欢迎', 'queued before the site started', None, ['xm@example.com'])\n",
        )
        assert inbox.messages == []
        site = Serving(repository, env, tmp_path / "serve.log")
        serving.append(site)
        site.wait_until_it_listens()
        deadline = time.monotonic() + 30
        while not inbox.messages:
            assert time.monotonic() < deadline, site.output()[-3000:]
            time.sleep(0.2)
        [(recipients, _message)] = inbox.messages
        assert recipients == ["xm@example.com"]

        # The script alone is told to stop, as a process manager or `kill` would.
        site.process.send_signal(signal.SIGTERM)
        site.process.wait(timeout=30)
        time.sleep(0.5)
        left = subprocess.run(
            ["ps", "-o", "pid=,stat=,args=", "-g", str(site.process.pid)],
            capture_output=True,
            text=True,
        ).stdout
        running = [line for line in left.splitlines() if line.split()[1][0] != "Z"]
        assert running == [], left
        assert "Traceback" not in site.output()
    finally:
        controller.stop()
