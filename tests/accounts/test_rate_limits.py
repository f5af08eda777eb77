"""Login attempts are rate limited (django-allauth's limits, ``ACCOUNT_RATE_LIMITS``), counted in
the cache that every worker shares."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
from django.conf import settings
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
PASSWORD = "hongtao-7-dui"  # make_player's


def log_in(client: Client, username: str, password: str) -> str:
    """Post the login form; returns the page shown, or "" for the redirect of a success."""
    response = client.post(LOGIN, {"login": username, "password": password})
    if response.status_code == 302:
        assert "_auth_user_id" in client.session
        return ""
    assert response.status_code == 200
    assert "_auth_user_id" not in client.session
    return response.content.decode()


def test_after_five_wrong_passwords_even_the_right_one_is_refused(
    make_player: Callable[..., User],
) -> None:
    make_player(username="xiaoming")
    make_player(username="xiaohong")
    client = Client()
    for _ in range(5):
        assert "您提供的用户名或密码不正确。" in log_in(client, "xiaoming", "guess")
    page = log_in(client, "xiaoming", PASSWORD)
    assert "登录失败次数过多，请稍后重试。" in page
    # The count is kept per username: another player on the same network still gets in.
    assert log_in(Client(), "xiaohong", PASSWORD) == ""


def test_a_strangers_wrong_passwords_do_not_lock_the_owner_out(
    make_player: Callable[..., User],
) -> None:
    """The attack: five wrong passwords from a stranger's address locked the owner out for five
    minutes. Now the count is per username from each address."""
    make_player(username="xiaoming")
    stranger = Client(REMOTE_ADDR="203.0.113.7")
    for _ in range(5):
        assert "您提供的用户名或密码不正确。" in log_in(stranger, "xiaoming", "guess")
    # The stranger is limited, even with the right password...
    assert "登录失败次数过多，请稍后重试。" in log_in(stranger, "xiaoming", PASSWORD)
    # ...while the owner, from their own address, gets in.
    assert log_in(Client(REMOTE_ADDR="198.51.100.20"), "xiaoming", PASSWORD) == ""


def test_one_address_is_limited_across_usernames(make_player: Callable[..., User]) -> None:
    """Ten failures a minute from one address, whichever usernames they tried."""
    for n in range(4):
        make_player(username=f"player{n}")
    stranger = Client(REMOTE_ADDR="203.0.113.7")
    for n in range(10):
        assert "您提供的用户名或密码不正确。" in log_in(stranger, f"player{n % 4}", "guess")
    assert "登录失败次数过多，请稍后重试。" in log_in(stranger, "player3", PASSWORD)
    assert log_in(Client(REMOTE_ADDR="198.51.100.20"), "player3", PASSWORD) == ""


def test_guessing_from_many_addresses_stops_at_the_ceiling(
    make_player: Callable[..., User],
) -> None:
    """30 failures an hour for one username from all addresses together, each address trying
    once, and then even the right password is refused, from any address."""
    make_player(username="xiaoming")
    make_player(username="xiaohong")
    for n in range(30):
        page = log_in(Client(REMOTE_ADDR=f"203.0.113.{n + 1}"), "xiaoming", "guess")
        assert "您提供的用户名或密码不正确。" in page, n
    page = log_in(Client(REMOTE_ADDR="198.51.100.20"), "xiaoming", PASSWORD)
    assert "登录失败次数过多，请稍后重试。" in page
    # The ceiling is the username's: another player from those addresses still gets in.
    assert log_in(Client(REMOTE_ADDR="203.0.113.1"), "xiaohong", PASSWORD) == ""


def test_a_right_password_takes_back_its_count(make_player: Callable[..., User]) -> None:
    """Logging in takes the attempt back from every count, so a player who logs in often is
    never limited by their own successes."""
    make_player(username="xiaoming")
    for _ in range(12):
        assert log_in(Client(), "xiaoming", PASSWORD) == ""


def test_the_refusal_is_in_english_for_an_english_browser(
    make_player: Callable[..., User], english_client: Client
) -> None:
    make_player(username="xiaoming")
    for _ in range(5):
        log_in(english_client, "xiaoming", "guess")
    page = log_in(english_client, "xiaoming", PASSWORD)
    assert "Too many failed login attempts. Try again later." in page


def test_a_right_password_before_the_limit_still_logs_in(make_player: Callable[..., User]) -> None:
    make_player(username="xiaoming")
    for _ in range(4):
        log_in(Client(), "xiaoming", "guess")
    assert log_in(Client(), "xiaoming", PASSWORD) == ""


def test_too_many_requests_from_one_address_get_a_friendly_page(english_client: Client) -> None:
    """More than 30 login forms a minute from one address, whatever they hold: 429, with a page
    in Chinese (and English for an English browser) that says what to do."""
    client = Client()
    for _ in range(30):
        assert client.post(LOGIN, {}).status_code == 200
    assert client.get(LOGIN).status_code == 200  # reading the page is not counted
    response = client.post(LOGIN, {"login": "xiaoming", "password": PASSWORD})
    assert response.status_code == 429
    page = response.content.decode()
    assert "尝试次数过多" in page
    assert "请等几分钟再试" in page
    assert 'href="/"' in page  # the way back
    english = english_client.post(LOGIN, {})
    assert english.status_code == 429
    assert "Please wait a few minutes, then try again." in english.content.decode()


def test_counts_live_in_redis_when_there_is_redis(make_player: Callable[..., User]) -> None:
    """With several workers, a count kept in one process's memory would let each worker allow
    its own five tries: with REDIS_URL the counts live in Redis, beside the channel layer."""
    if not os.environ.get("REDIS_URL"):
        assert settings.CACHES["default"]["BACKEND"].endswith("LocMemCache")
        pytest.skip("needs REDIS_URL: without it the cache is this process's memory")
    import redis

    assert settings.CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    prefix = settings.CACHES["default"]["KEY_PREFIX"]
    make_player(username="xiaoming")
    log_in(Client(), "xiaoming", "guess")
    # Another process (a second worker) sees the count.
    other = redis.Redis.from_url(os.environ["REDIS_URL"])
    try:
        keys = [key.decode() for key in other.scan_iter(match=f"{prefix}:*")]
    finally:
        other.close()
    assert any(":allauth:rl:allauth.account:login_failed:" in key for key in keys), keys
