"""The leaderboards page and a player's public page: what they show, to whom, and their 404s."""

from __future__ import annotations

import pytest
from django.test import Client
from django.test.utils import override_settings
from django.urls import reverse

from accounts.models import User
from accounts.services import house_wallet
from games.models import Game, Room, Table
from tests.games.helpers import EXAMPLES, act_all, make_player, set_balance, start_from_position

pytestmark = pytest.mark.django_db

LEADERBOARD = reverse("games:leaderboard")


def player_url(username: str) -> str:
    return reverse("games:player", args=[username])


def logged_in(user: User) -> Client:
    client = Client(headers={"accept-language": "en"})
    client.force_login(user)
    return client


def won_game(room: Room, players: list[User | None]) -> Game:
    """A game played to the end that ``players[0]`` wins (the rules' first worked example)."""
    example = EXAMPLES["no bomb, no spring"]
    game = start_from_position(
        table=Table.objects.create(room=room),
        players=players,
        hands=example["hands"],
        stock="",
        dealer=example["dealer"],
    )
    act_all(game, example["actions"])
    game.refresh_from_db()
    assert game.settled_at is not None
    return game


# The leaderboards ------------------------------------------------------------------------------


def test_the_coins_board_of_gandengyan_is_the_default(
    client: Client, room: Room, trio: list[User]
) -> None:
    won_game(room, list(trio))
    response = client.get(LEADERBOARD)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-game="gandengyan" data-board="coins"' in html
    # Each name links to the player's page, the winner first.
    assert html.index(f'href="{player_url("zhao")}"') < html.index(f'href="{player_url("sun")}"')
    assert "+3,200" in html and "\u22122,000" in html


def test_the_tabs_are_links_for_every_installed_game_and_board(client: Client) -> None:
    html = client.get(LEADERBOARD, {"game": "doudizhu", "board": "winrate"}).content.decode()
    assert 'data-game="doudizhu" data-board="winrate"' in html
    assert 'href="?game=gandengyan&amp;board=winrate"' in html
    assert 'href="?game=doudizhu&amp;board=coins"' in html
    assert 'data-tab-game="doudizhu" aria-current="page"' in html
    assert 'data-tab-board="winrate" aria-current="page"' in html


@pytest.mark.parametrize(
    "query",
    [
        {"game": "chess"},
        {"board": "richest"},
        {"game": "doudizhu", "board": "COINS"},
        {"game": "gandengyan\x00"},
    ],
)
def test_bad_parameters_are_a_404(client: Client, query: dict[str, str]) -> None:
    assert client.get(LEADERBOARD, query).status_code == 404


@override_settings(GAME_ENGINES=["games.rules.doudizhu.ENGINE"])
def test_the_games_are_the_installed_engines(client: Client) -> None:
    html = client.get(LEADERBOARD).content.decode()
    assert 'data-game="doudizhu" data-board="coins"' in html
    assert "data-tab-game=" in html and 'data-tab-game="gandengyan"' not in html
    assert client.get(LEADERBOARD, {"game": "gandengyan"}).status_code == 404


def test_empty_parameters_give_the_defaults(client: Client) -> None:
    response = client.get(LEADERBOARD, {"game": "", "board": ""})
    assert response.status_code == 200
    assert 'data-game="gandengyan" data-board="coins"' in response.content.decode()


@override_settings(LEADERBOARD_SIZE=1)
def test_the_viewers_own_rank_shows_below_the_top(room: Room, trio: list[User]) -> None:
    zhao, qian, sun = trio
    won_game(room, [zhao, qian, sun])
    html = logged_in(sun).get(LEADERBOARD).content.decode()
    assert html.count('class="board-row') == 2  # the top one, and mine under it
    assert 'data-testid="own-rank"' in html
    assert 'data-rank="3" data-user="sun"' in html

    # In the top rows the row itself is marked instead.
    html = logged_in(zhao).get(LEADERBOARD).content.decode()
    assert 'data-testid="own-rank"' not in html
    assert 'class="board-row is-own" data-rank="1" data-user="zhao"' in html


def test_a_player_not_on_the_board_is_told_so(outsider: User) -> None:
    html = logged_in(outsider).get(LEADERBOARD, {"board": "winrate"}).content.decode()
    assert 'data-testid="own-rank-none"' in html


def test_the_site_nav_links_the_leaderboards(client: Client) -> None:
    html = client.get(reverse("games:home")).content.decode()
    assert f'href="{LEADERBOARD}" data-nav="leaderboard"' in html


# A player's page -------------------------------------------------------------------------------


def test_unknown_inactive_and_house_users_have_no_page(client: Client, trio: list[User]) -> None:
    User.objects.filter(pk=trio[0].pk).update(is_active=False)
    assert client.get(player_url("nobody")).status_code == 404
    assert client.get(player_url(trio[0].username)).status_code == 404
    assert client.get(player_url(house_wallet().user.username)).status_code == 404
    assert client.get(player_url(trio[1].username)).status_code == 200


def test_the_page_shows_name_avatar_and_results_never_coins(
    client: Client, room: Room, trio: list[User]
) -> None:
    zhao, qian, sun = trio
    User.objects.filter(pk=zhao.pk).update(nickname="赵大胆", avatar="tiger")
    won_game(room, [zhao, qian, sun])
    won_game(room, [qian, zhao, sun])
    won_game(room, [zhao, sun, qian])
    set_balance(zhao, 123_457)

    for viewer in (client, logged_in(zhao), logged_in(qian)):
        html = viewer.get(player_url("zhao")).content.decode()
        assert "赵大胆" in html and "@zhao" in html
        assert "/static/avatars/tiger.svg" in html
        assert 'data-testid="games-gandengyan">3<' in html
        assert 'data-testid="rate-gandengyan">66.7%<' in html
        assert 'data-testid="games-doudizhu">0<' in html
        # No balance, no ledger, no coins of any game.
        assert "123,457" not in html and "123457" not in html
        assert "ledger" not in html.lower()
        assert "3,200" not in html and "balance" not in html.lower()


def test_game_links_only_for_viewers_who_may_see_the_game(
    client: Client, room: Room, trio: list[User], outsider: User, staff: User
) -> None:
    zhao, qian, sun = trio
    together = won_game(room, [zhao, qian, sun])
    without_sun = won_game(room, [zhao, qian, make_player("zhou")])
    links = {
        who: {
            game.pk
            for game in (together, without_sun)
            if f'href="{reverse("games:game", args=[game.pk])}"'
            in viewer.get(player_url("zhao")).content.decode()
        }
        for who, viewer in {
            "visitor": client,
            "zhao": logged_in(zhao),
            "sun": logged_in(sun),
            "outsider": logged_in(outsider),
            "staff": logged_in(staff),
        }.items()
    }
    assert links == {
        "visitor": set(),
        "zhao": {together.pk, without_sun.pk},
        "sun": {together.pk},
        "outsider": set(),
        "staff": {together.pk, without_sun.pk},
    }


def test_the_last_games_are_the_finished_ones_newest_first(
    client: Client, room: Room, trio: list[User]
) -> None:
    zhao, qian, sun = trio
    first = won_game(room, [zhao, qian, sun])
    second = won_game(room, [qian, zhao, sun])
    playing = start_from_position(
        table=Table.objects.create(room=room),
        players=[zhao, qian, sun],
        hands=EXAMPLES["no bomb, no spring"]["hands"],
        stock="",
        dealer=0,
    )
    html = client.get(player_url("zhao")).content.decode()
    assert html.index(f'data-game-id="{second.pk}"') < html.index(f'data-game-id="{first.pk}"')
    assert f'data-game-id="{playing.pk}"' not in html
