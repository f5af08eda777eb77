"""The game page: who sees it, what it hides while playing, the seed after, disputes."""

from __future__ import annotations

import hashlib
import html
import json
import re

import pytest
from django.test import Client

from accounts.models import User
from games import selectors, services
from games.models import Dispute, Game, Table
from games.rules import format_cards
from games.rules.gandengyan import STANDARD, deal_from_seed
from tests.games.helpers import play_out

pytestmark = pytest.mark.django_db

SEED = 0xC0FFEE00000000000000000000000000000000000000000000000000000BEEF


@pytest.fixture
def game(table: Table, trio: list[User]) -> Game:
    return services.game_start(table=table, players=trio, seed=SEED)


def page(client: Client, user: User | None, game: Game) -> str:
    if user is not None:
        client.force_login(user)
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def shown_cards(text: str) -> set[str]:
    """The cards drawn on a page (each card chip carries its code as a title)."""
    return set(re.findall(r'class="card-chip[^"]*" title="([^"]+)"', text))


def test_anonymous_visitors_are_sent_to_log_in(client: Client, game: Game) -> None:
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    response = client.post(f"/games/{game.pk}/dispute/", {"reason": "x"})
    assert response.status_code == 302
    assert not Dispute.objects.exists()


def test_a_player_cannot_see_a_game_they_did_not_play(
    client: Client, game: Game, outsider: User
) -> None:
    client.force_login(outsider)
    assert client.get(f"/games/{game.pk}/").status_code == 404
    assert client.post(f"/games/{game.pk}/dispute/", {"reason": "x"}).status_code == 404
    assert client.get("/games/999999/").status_code == 404


def test_staff_may_look_at_any_game(client: Client, game: Game, staff: User) -> None:
    text = page(client, staff, game)
    assert game.seed_commitment in text
    assert shown_cards(text) == set()  # staff are not seated: no hand at all while playing
    assert 'name="reason"' not in text


def test_while_playing_only_your_own_hand_is_shown(
    client: Client, game: Game, trio: list[User]
) -> None:
    play_out(game, seed=3, stop_before_end=True)
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING
    state = selectors.game_state(game=game)
    for seat, user in enumerate(trio):
        text = page(Client(), user, game)
        own = {str(card) for card in state.hand(seat)}
        others = {str(c) for s in range(3) if s != seat for c in state.hand(s)}
        stock = {str(card) for card in state.stock_cards()}
        table = set() if state.table is None else {str(c) for c in state.table.play.cards}
        played = {
            card
            for event in game.events.all()
            if "play" in event.action
            for card in event.action["play"].split()
        }
        cards = shown_cards(text)
        assert own <= cards
        assert not cards & (others | stock), "another seat's cards or the stock are shown"
        assert cards <= own | table | played
        assert game.seed not in text
        assert str(SEED) not in text
        assert game.stock not in text
        assert game.seed_commitment in text
        for other in range(3):
            if other != seat:
                assert game.hands[other] not in text
        assert "/dispute/" not in text  # no form until the end


def test_after_the_end_the_seed_is_revealed_and_checks_out(
    client: Client, game: Game, trio: list[User]
) -> None:
    play_out(game, seed=3)
    game.refresh_from_db()
    text = page(client, trio[0], game)
    seed_hex = re.search(r'id="seed">([0-9a-f]{64})<', text)
    assert seed_hex is not None
    seed = int(seed_hex.group(1), 16)
    assert seed == SEED
    assert hashlib.sha256(bytes.fromhex(seed_hex.group(1))).hexdigest() == game.seed_commitment
    assert game.seed_commitment in text
    hands, stock, dealer = deal_from_seed(seed, STANDARD)
    assert dealer == game.dealer
    assert [format_cards(hand) for hand in hands] == game.hands
    assert " ".join(map(str, stock)) == game.stock
    assert "python -m games.rules replay" in text
    record = html.unescape(
        re.search(r'<pre class="code" id="record">(.*?)</pre>', text, re.S).group(1)
    )
    assert f'"seed": {SEED}' in record
    # The settlement per seat.
    for player in game.players.all():
        assert str(player.coins) in text
    assert 'name="reason"' in text


def test_the_actions_are_listed(client: Client, game: Game, trio: list[User]) -> None:
    events = play_out(game, seed=3, stop_before_end=True)
    text = page(client, trio[1], game)
    rows = re.findall(r'<td class="num">(\d+)</td>\s*<td>\d · ', text)
    assert [int(n) for n in rows] == [event.number for event in events]


def test_open_a_dispute_from_the_page(client: Client, game: Game, trio: list[User]) -> None:
    play_out(game, seed=3)
    client.force_login(trio[2])
    response = client.post(f"/games/{game.pk}/dispute/", {"reason": "The last card was odd."})
    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/"
    dispute = Dispute.objects.get()
    assert (dispute.user, dispute.game, dispute.reason) == (trio[2], game, "The last card was odd.")
    text = client.get(response["Location"]).content.decode()
    assert "The last card was odd." in text
    assert 'class="message message-success"' in text


@pytest.mark.parametrize("reason", ["", "x" * 2001])
def test_a_bad_reason_is_shown_and_nothing_changes(
    english_client: Client, game: Game, trio: list[User], reason: str
) -> None:
    play_out(game, seed=3)
    english_client.force_login(trio[0])
    response = english_client.post(f"/games/{game.pk}/dispute/", {"reason": reason})
    assert response.status_code == 400
    assert 'class="errorlist' in response.content.decode()
    assert not Dispute.objects.exists()


def test_a_second_open_dispute_is_refused_with_a_message(
    english_client: Client, game: Game, trio: list[User]
) -> None:
    play_out(game, seed=3)
    english_client.force_login(trio[0])
    english_client.post(f"/games/{game.pk}/dispute/", {"reason": "first"})
    response = english_client.post(f"/games/{game.pk}/dispute/", {"reason": "second"})
    assert response.status_code == 400
    assert "You already have an open dispute about this game." in response.content.decode()
    assert Dispute.objects.count() == 1


def test_no_dispute_while_the_game_is_playing(
    english_client: Client, game: Game, trio: list[User]
) -> None:
    english_client.force_login(trio[0])
    response = english_client.post(f"/games/{game.pk}/dispute/", {"reason": "slow"})
    assert response.status_code == 400
    assert "A game can be disputed only once it is over." in response.content.decode()
    assert not Dispute.objects.exists()


def test_the_dispute_address_takes_only_posts(client: Client, game: Game, trio: list[User]) -> None:
    client.force_login(trio[0])
    assert client.get(f"/games/{game.pk}/dispute/").status_code == 405


def test_the_page_is_in_chinese_by_default(client: Client, game: Game, trio: list[User]) -> None:
    text = page(client, trio[0], game)
    assert "种子承诺" in text  # "Seed commitment"
    assert "你的手牌" in text  # "Your hand"


def test_the_page_in_english(english_client: Client, game: Game, trio: list[User]) -> None:
    text = page(english_client, trio[0], game)
    assert "Seed commitment" in text
    assert "Your hand" in text


def test_the_record_is_downloaded_once_the_game_is_over(
    client: Client, game: Game, trio: list[User], outsider: User
) -> None:
    url = f"/games/{game.pk}/record.json"
    assert client.get(url).status_code == 302  # to log in
    client.force_login(trio[0])
    assert client.get(url).status_code == 404  # the record holds every hand
    assert f'href="{url}"' not in page(client, None, game)
    play_out(game, seed=3)
    text = page(client, None, game)
    assert f'href="{url}" download' in text
    response = client.get(url)
    assert response.status_code == 200
    assert (
        response["Content-Disposition"] == f'attachment; filename="gandengyan-game-{game.pk}.json"'
    )
    record = json.loads(response.content)
    assert record == selectors.game_record(game=game)
    assert record["format"] == "gandengyan-record/1" and record["seed"] == SEED
    client.force_login(outsider)
    assert client.get(url).status_code == 404
