"""The allauth pages in the site's look, Chinese first: log in, sign up, log out, passwords."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("url", "chinese"),
    [
        ("/accounts/login/", "登录"),
        ("/accounts/signup/", "10,000"),
        ("/accounts/password/reset/", "重置密码"),
    ],
)
def test_entrance_pages_are_ours_and_chinese_first(client: Client, url: str, chinese: str):
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="zh-hans">' in html
    assert "accounts/account.css" in html
    assert 'class="account-form"' in html
    assert chinese in html


def test_log_out_asks_first_then_logs_out(client: Client, player: User) -> None:
    client.force_login(player)
    page = client.get("/accounts/logout/")
    assert page.status_code == 200
    assert 'action="/accounts/logout/"' in page.content.decode()
    assert client.post("/accounts/logout/").status_code == 302
    assert "_auth_user_id" not in client.session


def test_password_change(client: Client, player: User) -> None:
    client.force_login(player)
    assert 'class="account-form"' in client.get("/accounts/password/change/").content.decode()
    response = client.post(
        "/accounts/password/change/",
        {
            "oldpassword": "hongtao-7-dui",
            "password1": "meihua-8-dui-new",
            "password2": "meihua-8-dui-new",
        },
    )
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.check_password("meihua-8-dui-new")


def test_password_reset_by_email(client: Client, make_player) -> None:
    make_player(username="laoli", email="laoli@example.com")
    response = client.post("/accounts/password/reset/", {"email": "laoli@example.com"}, follow=True)
    assert response.status_code == 200
    assert "account-panel" in response.content.decode()
    [message] = mail.outbox
    link = re.search(r"http://testserver(/accounts/password/reset/key/\S+)", message.body)
    assert link is not None
    page = client.get(link.group(1), follow=True)
    assert page.status_code == 200
    assert 'class="account-form"' in page.content.decode()
    action = re.search(
        r'<form class="account-form" method="post" action="([^"]+)"', page.content.decode()
    )
    assert action is not None
    done = client.post(
        action.group(1),
        {"password1": "meihua-8-dui-new", "password2": "meihua-8-dui-new"},
        follow=True,
    )
    assert done.status_code == 200
    assert User.objects.get(username="laoli").check_password("meihua-8-dui-new")


def test_a_bad_reset_link_says_so(client: Client) -> None:
    response = client.get("/accounts/password/reset/key/1-bad-key/", follow=True)
    assert response.status_code == 200
    assert "重置密码的链接无效" in response.content.decode()
