"""The admin's login is the site's login (django-allauth's), with its rate limits: Django's own
admin login counted no failures, so 40 wrong passwords and then the right one got in."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db

PASSWORD = "hongtao-7-dui"  # make_player's


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_the_admins_login_leads_to_the_sites_login_and_back() -> None:
    response = Client().get("/admin/login/?next=/admin/games/game/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=%2Fadmin%2Fgames%2Fgame%2F"
    # A page of another site is never where the login leads.
    response = Client().get("/admin/login/?next=https://evil.example/")
    assert response["Location"] == "/accounts/login/?next=%2Fadmin%2F"


def test_staff_sign_in_there_and_land_in_the_admin(make_player: Callable[..., User]) -> None:
    make_player(username="boss", is_staff=True)
    client = Client()
    login = client.get("/admin/", follow=True)
    assert login.redirect_chain[-1][0] == "/accounts/login/?next=%2Fadmin%2F"
    response = client.post(
        login.redirect_chain[-1][0], {"login": "boss", "password": PASSWORD}, follow=True
    )
    assert signed_in(client)
    assert response.redirect_chain[-1][0] == "/admin/"
    assert response.status_code == 200
    # Signed in, the admin's login sends staff on to where they were going.
    assert Client().get("/admin/login/").status_code == 302
    assert client.get("/admin/login/?next=/admin/games/")["Location"] == "/admin/games/"


def test_the_admins_own_form_takes_no_password(make_player: Callable[..., User]) -> None:
    make_player(username="boss", is_staff=True)
    client = Client()
    response = client.post("/admin/login/", {"username": "boss", "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert not signed_in(client)


def test_many_wrong_passwords_then_the_right_one_is_refused(
    make_player: Callable[..., User],
) -> None:
    """The attack: 40 wrong passwords for a staff user at the admin's login, then the right one."""
    make_player(username="admin", is_staff=True, is_superuser=True)
    client = Client()
    login = client.get("/admin/login/")["Location"]
    pages = [client.post(login, {"login": "admin", "password": f"guess{n}"}) for n in range(40)]
    assert not signed_in(client)
    assert "登录失败次数过多，请稍后重试。" in pages[5].content.decode()
    assert pages[-1].status_code == 429  # by then, too many forms from one address
    response = client.post(login, {"login": "admin", "password": PASSWORD})
    assert not signed_in(client)
    assert response.status_code == 429
    assert "尝试次数过多" in response.content.decode()
    assert client.get("/admin/").status_code == 302


def test_a_few_wrong_passwords_then_the_right_one_is_refused_with_a_message(
    make_player: Callable[..., User],
) -> None:
    make_player(username="admin", is_staff=True, is_superuser=True)
    client = Client()
    login = client.get("/admin/login/")["Location"]
    for n in range(5):
        client.post(login, {"login": "admin", "password": f"guess{n}"})
    page = client.post(login, {"login": "admin", "password": PASSWORD}).content.decode()
    assert "登录失败次数过多，请稍后重试。" in page
    assert not signed_in(client)


def test_a_signed_in_player_is_told_the_admin_is_not_theirs(
    make_player: Callable[..., User],
) -> None:
    client = Client(headers={"accept-language": "en"})
    client.force_login(make_player(username="xiaoming"))
    response = client.get("/admin/", follow=True)
    assert response.redirect_chain[-1][0] == "/"
    assert "You are signed in as xiaoming, who may not use the admin." in (
        response.content.decode()
    )
