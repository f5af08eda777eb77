"""Login attempts are rate limited (django-allauth's limits, ``ACCOUNT_RATE_LIMITS``), counted in
the cache that every worker shares."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings
from django.core import mail
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
CODE = "/accounts/login/code/confirm/"
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


def guess_from_six_addresses(username: str) -> None:
    """The attack: 5 wrong passwords from each of 6 addresses, the most each address may try,
    fill the username's ceiling of 30 failures an hour from all addresses together."""
    for n in range(6):
        stranger = Client(REMOTE_ADDR=f"203.0.113.{n + 1}")
        for _ in range(5):
            assert "您提供的用户名或密码不正确。" in log_in(stranger, username, "guess"), n


def code_from_mail(address: str) -> str:
    [message] = mail.outbox
    assert message.to == [address]
    found = re.search(r"^([A-Z0-9]{4}-[A-Z0-9]{4})$", str(message.body), re.MULTILINE)
    assert found, message.body
    return found.group(1)


def with_verified_email(user: User, address: str) -> User:
    EmailAddress.objects.create(user=user, email=address, verified=True, primary=True)
    return user


def test_past_the_ceiling_the_owner_gets_in_with_a_code_by_mail(
    make_player: Callable[..., User],
) -> None:
    """Before, the attack locked the owner out for an hour, from every address. Now, past the
    ceiling, the right password leads to a code mailed to the account's verified address."""
    with_verified_email(make_player(username="xiaoming"), "xm@example.com")
    guess_from_six_addresses("xiaoming")
    owner = Client(REMOTE_ADDR="198.51.100.20")
    response = owner.post(LOGIN, {"login": "xiaoming", "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == CODE
    assert "_auth_user_id" not in owner.session  # the password alone is not enough
    page = owner.get(CODE).content.decode()
    assert "输入邮件中的验证码" in page and "xm@example.com" in page
    code = code_from_mail("xm@example.com")
    response = owner.post(CODE, {"code": code})
    assert response.status_code == 302
    assert owner.session["_auth_user_id"] == str(User.objects.get(username="xiaoming").pk)


def test_past_the_ceiling_the_right_password_alone_gets_no_session(
    make_player: Callable[..., User],
) -> None:
    """A stranger who guesses the right password past the ceiling is asked for the code, which
    goes to the owner's mailbox; three wrong codes end the attempt without a session."""
    with_verified_email(make_player(username="xiaoming"), "xm@example.com")
    guess_from_six_addresses("xiaoming")
    stranger = Client(REMOTE_ADDR="203.0.113.50")
    response = stranger.post(LOGIN, {"login": "xiaoming", "password": PASSWORD})
    assert response["Location"] == CODE
    assert mail.outbox[0].to == ["xm@example.com"]
    for _ in range(3):
        stranger.post(CODE, {"code": "AAAAAA"})
        assert "_auth_user_id" not in stranger.session
    # The attempt is over: the code page sends the stranger back to the login form.
    assert stranger.get(CODE)["Location"].startswith(LOGIN)
    assert "_auth_user_id" not in stranger.session


def test_without_a_verified_email_a_browser_used_before_still_gets_in(
    make_player: Callable[..., User],
) -> None:
    """An account without a verified address has no code to ask for: past the ceiling the
    password is taken only from a browser that has signed in to the account before, so the
    owner there is not locked out and strangers' guesses stay bounded by the ceiling."""
    make_player(username="xiaoming")
    make_player(username="xiaohong")
    usual = Client(REMOTE_ADDR="198.51.100.20")
    assert log_in(usual, "xiaoming", PASSWORD) == ""
    usual.post("/accounts/logout/")
    guess_from_six_addresses("xiaoming")
    # A fresh browser, even with the right password, gets no session...
    page = log_in(Client(REMOTE_ADDR="198.51.100.21"), "xiaoming", PASSWORD)
    assert "这个账号的登录失败次数过多" in page
    # The ceiling is the username's: another player from those addresses still gets in...
    assert log_in(Client(REMOTE_ADDR="203.0.113.1"), "xiaohong", PASSWORD) == ""
    # ...but a browser that signed in to another account gets no pass for this one.
    neighbour = Client(REMOTE_ADDR="198.51.100.22")
    assert log_in(neighbour, "xiaohong", PASSWORD) == ""
    neighbour.post("/accounts/logout/")
    assert "这个账号的登录失败次数过多" in log_in(neighbour, "xiaoming", PASSWORD)
    # The owner's usual browser, from a new address, gets in with the password.
    usual.defaults["REMOTE_ADDR"] = "192.0.2.9"
    assert log_in(usual, "xiaoming", PASSWORD) == ""
    assert mail.outbox == []
    # A new password makes the cookies of earlier sign-ins worthless.
    usual.post("/accounts/logout/")
    owner = User.objects.get(username="xiaoming")
    owner.set_password("new-" + PASSWORD)
    owner.save(update_fields=["password"])
    page = log_in(usual, "xiaoming", "new-" + PASSWORD)
    assert "这个账号的登录失败次数过多" in page


def test_below_the_ceiling_no_code_is_asked(make_player: Callable[..., User]) -> None:
    with_verified_email(make_player(username="xiaoming"), "xm@example.com")
    for n in range(29):
        log_in(Client(REMOTE_ADDR=f"203.0.113.{n + 1}"), "xiaoming", "guess")
    assert log_in(Client(REMOTE_ADDR="198.51.100.20"), "xiaoming", PASSWORD) == ""
    assert mail.outbox == []


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
