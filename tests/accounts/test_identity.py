"""A player's nickname and avatar: the service's checks, and the form on the profile page."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from accounts.models import Avatar, LedgerReason, User
from accounts.services import coins_move, user_set_identity

pytestmark = pytest.mark.django_db

PROFILE = reverse("accounts:profile")
IDENTITY = reverse("accounts:identity")


def logged_in(user: User, language: str = "en") -> Client:
    client = Client(headers={"accept-language": language})
    client.force_login(user)
    return client


def stored(user: User) -> tuple[str, str]:
    fresh = User.objects.get(pk=user.pk)
    return fresh.nickname, fresh.avatar


def test_a_nickname_is_stripped_and_an_avatar_chosen(player: User) -> None:
    user_set_identity(user=player, nickname="  小明同学 ", avatar=Avatar.TIGER)
    assert stored(player) == ("小明同学", "tiger")
    assert player.display_name == "小明同学"
    assert player.avatar_static_path == "avatars/tiger.svg"


def test_empty_values_go_back_to_the_username_and_the_default_avatar(player: User) -> None:
    user_set_identity(user=player, nickname="小明", avatar="dog")
    user_set_identity(user=player, nickname="", avatar="")
    assert stored(player) == ("", "")
    assert player.display_name == "xiaoming"
    assert player.avatar_static_path == "avatars/default.svg"


@pytest.mark.parametrize(
    ("nickname", "avatar", "field"),
    [
        ("   ", "", "nickname"),  # only spaces
        ("\t\n", "", "nickname"),
        ("a" * 17, "", "nickname"),  # too long once stripped
        ("bad\x07name", "", "nickname"),  # a control character
        ("zero\u200bwidth", "", "nickname"),  # an invisible one
        ("line\u2028break", "", "nickname"),
        ("好名字", "unicorn", "avatar"),  # not one of the avatars
        ("好名字", "../default", "avatar"),
    ],
)
def test_bad_values_are_refused_and_change_nothing(
    player: User, nickname: str, avatar: str, field: str
) -> None:
    user_set_identity(user=player, nickname="原来的", avatar="ox")
    with pytest.raises(ValidationError) as refused:
        user_set_identity(user=player, nickname=nickname, avatar=avatar)
    assert set(refused.value.message_dict) == {field}
    assert stored(player) == ("原来的", "ox")
    assert (player.nickname, player.avatar) == ("原来的", "ox")


def test_sixteen_characters_after_stripping_are_fine(player: User) -> None:
    user_set_identity(user=player, nickname=" " + "龙" * 16 + " ", avatar="")
    assert stored(player)[0] == "龙" * 16


def test_nicknames_are_unique_ignoring_case(make_player: Callable[..., User]) -> None:
    first, second = make_player(username="first"), make_player(username="second")
    user_set_identity(user=first, nickname="Lucky", avatar="")
    with pytest.raises(ValidationError) as refused:
        user_set_identity(user=second, nickname="lucky", avatar="")
    assert "nickname" in refused.value.message_dict
    assert stored(second) == ("", "")
    # The owner may keep it, or change its case.
    user_set_identity(user=first, nickname="LUCKY", avatar="")
    assert stored(first)[0] == "LUCKY"


def test_a_nickname_may_not_be_another_players_username(
    make_player: Callable[..., User],
) -> None:
    other, me = make_player(username="Zhang3"), make_player(username="me")
    with pytest.raises(ValidationError):
        user_set_identity(user=me, nickname="zhang3", avatar="")
    with pytest.raises(ValidationError):
        user_set_identity(user=me, nickname="house", avatar="")  # the house's system user
    # One's own username is one's own name.
    user_set_identity(user=other, nickname="zhang3", avatar="")
    assert stored(other)[0] == "zhang3"


def test_the_profile_shows_the_form_with_every_avatar(player: User) -> None:
    html = logged_in(player).get(PROFILE).content.decode()
    assert f'action="{IDENTITY}"' in html
    assert html.count('type="radio" name="avatar"') == len(Avatar.values) + 1
    assert 'value="" checked' in html  # the default avatar, until one is chosen
    assert "/static/avatars/default.svg" in html


def test_the_form_saves_and_goes_back_to_the_profile(player: User) -> None:
    client = logged_in(player)
    response = client.post(IDENTITY, {"nickname": " 牌神 ", "avatar": "dragon"})
    assert response.status_code == 302
    assert response["Location"] == PROFILE + "#identity"
    assert stored(player) == ("牌神", "dragon")
    html = client.get(PROFILE).content.decode()
    assert "牌神" in html
    assert 'value="dragon" checked' in html
    assert "/static/avatars/dragon.svg" in html  # in the page's head and the site's nav


def test_the_form_shows_the_errors_and_changes_nothing(
    player: User, make_player: Callable[..., User]
) -> None:
    make_player(username="taken")
    client = logged_in(player)
    response = client.post(IDENTITY, {"nickname": "TAKEN", "avatar": "pig"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Another player already goes by this name." in html
    assert 'value="TAKEN"' in html and 'value="pig" checked' in html  # what was typed, kept
    assert stored(player) == ("", "")

    response = client.post(IDENTITY, {"nickname": "ok", "avatar": "unicorn"})
    assert response.status_code == 400
    assert stored(player) == ("", "")


def test_the_form_needs_a_login_and_a_post(player: User, client: Client) -> None:
    response = client.post(IDENTITY, {"nickname": "x", "avatar": ""})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))
    assert logged_in(player).get(IDENTITY).status_code == 405
    assert stored(player) == ("", "")


def test_the_pages_of_the_profile_shown_after_an_error_lead_back_to_the_profile(
    player: User,
) -> None:
    for amount in range(1, 25):
        player.wallet.refresh_from_db()
        coins_move(wallet=player.wallet, amount=-amount, reason=LedgerReason.GAME)
    html = logged_in(player).post(IDENTITY, {"nickname": " ", "avatar": ""}).content.decode()
    assert f'href="{PROFILE}?page=2#ledger"' in html
