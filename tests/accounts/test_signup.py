"""Signing up and logging in with a username (django-allauth)."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db


def test_sign_up_with_a_username_and_no_email(client: Client) -> None:
    response = client.post(
        "/accounts/signup/",
        {"username": "xiaoming", "password1": "hongtao-7-dui", "password2": "hongtao-7-dui"},
    )
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert get_user_model().objects.filter(username="xiaoming").exists()
    assert "xiaoming" in client.get("/").content.decode()


def test_log_in_with_a_username(client: Client, django_user_model: type) -> None:
    django_user_model.objects.create_user(username="laoli", password="meihua-8-dui")
    response = client.post("/accounts/login/", {"login": "laoli", "password": "meihua-8-dui"})
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_account_pages_use_the_site_layout(client: Client) -> None:
    html = client.get("/accounts/login/").content.decode()
    assert "干瞪眼 Online" in html
    assert 'action="/i18n/setlang/"' in html


def test_a_username_may_not_be_another_players_nickname(client: Client) -> None:
    get_user_model().objects.create_user(username="laoli", nickname="XiaoMing")
    response = client.post(
        "/accounts/signup/",
        {"username": "xiaoming", "password1": "hongtao-7-dui", "password2": "hongtao-7-dui"},
        headers={"accept-language": "en"},
    )
    assert response.status_code == 200
    assert "Another player already goes by this name." in response.content.decode()
    assert not get_user_model().objects.filter(username="xiaoming").exists()
