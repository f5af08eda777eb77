"""Names that look like another player's: a username or nickname is normalised (NFKC) and refused
when it looks like another player's username or nickname (``accounts.names``)."""

from __future__ import annotations

import importlib
from collections.abc import Callable

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from accounts.models import User
from accounts.services import user_set_identity

pytestmark = pytest.mark.django_db

SIGNUP = "/accounts/signup/"
PASSWORD = "hongtao-7-dui"
LOOK_ALIKE = "这个名字和另一位玩家的名字太像了。"

# Each look-alike, and the existing name it imitates.
LOOK_ALIKES = [
    pytest.param("р1", "p1", id="cyrillic-er"),
    pytest.param("ｐ1", "p1", id="full-width"),
    pytest.param("ѕtaff1", "staff1", id="cyrillic-dze"),
]


def sign_up(username: str) -> str:
    """Post the signup form; returns the page shown, or "" for the redirect of a success."""
    response = Client().post(
        SIGNUP, {"username": username, "password1": PASSWORD, "password2": PASSWORD}
    )
    if response.status_code == 302:
        return ""
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize(("look_alike", "existing"), LOOK_ALIKES)
def test_a_username_like_another_players_username_is_refused(
    look_alike: str, existing: str, make_player: Callable[..., User]
) -> None:
    make_player(username=existing)
    page = sign_up(look_alike)
    assert LOOK_ALIKE in page or "已存在一位使用该名字的用户。" in page
    assert User.objects.count() == 2  # the house and the existing player


@pytest.mark.parametrize(("look_alike", "existing"), LOOK_ALIKES)
def test_a_username_like_another_players_nickname_is_refused(
    look_alike: str, existing: str, make_player: Callable[..., User]
) -> None:
    make_player(username="laoli", nickname=existing)
    page = sign_up(look_alike)
    assert LOOK_ALIKE in page or "这个名字已经有其他玩家在用了。" in page
    assert not User.objects.exclude(username__in=["laoli", "house"]).exists()


def test_a_full_width_username_is_stored_normalised(db: None) -> None:
    assert sign_up("ｘｉａｏｍｉｎｇ") == ""
    assert User.objects.filter(username="xiaoming").exists()


@pytest.mark.parametrize(("look_alike", "existing"), LOOK_ALIKES)
def test_a_nickname_like_another_players_username_is_refused(
    look_alike: str, existing: str, make_player: Callable[..., User]
) -> None:
    make_player(username=existing)
    me = make_player(username="xiaoming")
    with pytest.raises(ValidationError) as refused:
        user_set_identity(user=me, nickname=look_alike, avatar="")
    assert "nickname" in refused.value.message_dict
    assert User.objects.get(pk=me.pk).nickname == ""


@pytest.mark.parametrize(("look_alike", "existing"), LOOK_ALIKES)
def test_a_nickname_like_another_players_nickname_is_refused(
    look_alike: str, existing: str, make_player: Callable[..., User]
) -> None:
    make_player(username="laoli", nickname=existing)
    me = make_player(username="xiaoming")
    with pytest.raises(ValidationError):
        user_set_identity(user=me, nickname=look_alike, avatar="")
    assert User.objects.get(pk=me.pk).nickname == ""


def test_the_profile_form_says_why_in_chinese_and_english(
    make_player: Callable[..., User],
) -> None:
    make_player(username="staff1")
    me = make_player(username="xiaoming")
    for language, message in [
        ("zh-hans", LOOK_ALIKE),
        ("en", "This name looks too much like another player&#x27;s name."),
    ]:
        client = Client(headers={"accept-language": language})
        client.force_login(me)
        response = client.post(reverse("accounts:identity"), {"nickname": "ѕtaff1", "avatar": ""})
        assert message in response.content.decode()
    assert User.objects.get(pk=me.pk).nickname == ""


def test_ordinary_distinct_names_pass(make_player: Callable[..., User]) -> None:
    make_player(username="p1", nickname="小明")
    make_player(username="staff1")
    for username in ["p2", "q1", "staff2", "stuff1", "小红", "xiaoming"]:
        assert sign_up(username) == "", username
    me = User.objects.get(username="xiaoming")
    for nickname in ["p11", "牌神", "小明明", "staff_1", "Lucky"]:
        user_set_identity(user=me, nickname=nickname, avatar="")
    # A player's own username is no look-alike of another's.
    user_set_identity(user=me, nickname="ｘiaoming", avatar="")
    assert User.objects.get(pk=me.pk).nickname == "xiaoming"


def test_staff_cannot_rename_a_player_to_a_look_alike(
    make_player: Callable[..., User],
) -> None:
    make_player(username="p1")
    make_player(username="staff1")
    staff = make_player(username="boss", is_staff=True, is_superuser=True)
    player = make_player(username="xiaoming")
    client = Client(headers={"accept-language": "en"})
    client.force_login(staff)
    change = reverse("admin:accounts_user_change", args=[player.pk])
    form = client.get(change).context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None}
    data.update(
        username="р1",
        date_joined_0=player.date_joined.strftime("%Y-%m-%d"),
        date_joined_1=player.date_joined.strftime("%H:%M:%S"),
        groups=[],
        user_permissions=[],
    )
    data.pop("last_login", None)
    data.pop("date_joined", None)
    response = client.post(change, data)
    assert response.status_code == 200
    assert "This name looks too much like another player" in response.content.decode()
    assert User.objects.get(pk=player.pk).username == "xiaoming"
    # The same form saves a distinct name.
    data["username"] = "xiaoming2"
    assert client.post(change, data).status_code == 302
    assert User.objects.get(pk=player.pk).username == "xiaoming2"
    # And adding a user with a look-alike name is refused too.
    add = reverse("admin:accounts_user_add")
    response = client.post(
        add,
        {
            "username": "ѕtaff1",
            "usable_password": "true",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 200
    assert not User.objects.filter(username="ѕtaff1").exists()


def test_the_skeletons_are_kept_and_backfilled(make_player: Callable[..., User]) -> None:
    from django.apps import apps

    from accounts.names import name_skeleton

    player = make_player(username="Staff1", nickname="ｐ1")
    assert (player.username_skeleton, player.nickname_skeleton) == (
        name_skeleton("staff1"),
        name_skeleton("p1"),
    )
    assert name_skeleton("ѕtaff1") == name_skeleton("staff1") != name_skeleton("stuff1")
    User.objects.update(username_skeleton="", nickname_skeleton="")
    migration = importlib.import_module("accounts.migrations.0010_user_name_skeletons")
    migration.fill_skeletons(apps, None)
    player.refresh_from_db()
    assert (player.username_skeleton, player.nickname_skeleton) == (
        name_skeleton("Staff1"),
        name_skeleton("ｐ1"),
    )
