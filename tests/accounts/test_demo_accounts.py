"""A demo account made in a DEBUG run (``manage.py seed_demo``: ``admin``/``admin``) fails the
deployment checks with DEBUG off while its demo password still opens it; ``scripts/serve.sh``
then refuses to serve (``tests/test_serve_production.py``)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core import checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from pytest_django.fixtures import Settings

from accounts.models import User

pytestmark = pytest.mark.django_db


def demo_errors() -> list[checks.CheckMessage]:
    found = checks.run_checks(include_deployment_checks=True, tags=[checks.Tags.security])
    return [message for message in found if message.id == "accounts.E001"]


def seed_demo(settings: Settings) -> None:
    settings.DEBUG = True
    call_command("seed_demo", stdout=StringIO())
    settings.DEBUG = False


def test_the_demo_admin_fails_the_deploy_check_until_its_password_changes(
    settings: Settings,
) -> None:
    seed_demo(settings)
    assert User.objects.get(username="admin").check_password("admin")
    [error] = demo_errors()
    assert error.level == checks.ERROR
    assert "admin, lisi, zhangsan" in error.msg
    with pytest.raises(SystemCheckError, match="accounts.E001"):
        call_command("check", deploy=True, fail_level="ERROR", stdout=StringIO())

    for username in ("admin", "lisi"):
        user = User.objects.get(username=username)
        user.set_password("a-real-password-9f2c")
        user.save(update_fields=["password"])
    [error] = demo_errors()
    assert "zhangsan" in error.msg and "admin" not in error.msg
    zhangsan = User.objects.get(username="zhangsan")
    zhangsan.set_unusable_password()
    zhangsan.save(update_fields=["password"])
    assert demo_errors() == []


def test_a_demo_password_from_the_environment_is_caught_too(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEMO_ADMIN_PASSWORD", "s3cret-admin")
    seed_demo(settings)
    [error] = demo_errors()
    assert error.msg.startswith("The demo accounts admin, lisi, zhangsan ")


def test_a_development_site_keeps_its_demo_accounts(settings: Settings) -> None:
    seed_demo(settings)
    settings.DEBUG = True
    assert demo_errors() == []


def test_other_accounts_named_like_the_demo_pass(settings: Settings) -> None:
    settings.DEBUG = False
    User.objects.create_user(username="admin", password="a-real-password-9f2c")
    assert demo_errors() == []
