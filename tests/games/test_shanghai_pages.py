"""上海斗地主's pages about a game: the admin's replay and deal lines, the game's page, the
players' replay and its share link, the record (``shanghai-record/1``) and a dispute, for a game
whose first deal was thrown in after four 不叫; and what they hide while a game is played."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from django.test import Client

from accounts.models import User
from games import selectors, services
from games.models import Dispute, Game, Room, Table
from games.rules import Phase
from games.rules.shanghai import ENGINE, GameState, Play
from tests.games.helpers import make_player, play_shanghai, shanghai_room

pytestmark = pytest.mark.django_db

SEED = 13
CHIP = re.compile(r'class="card-chip[^"]*" title="([^"]+)"')
DATA_CARD = re.compile(r'data-card="([^"]+)"')


@pytest.fixture
def room(db: None) -> Room:
    return shanghai_room()


@pytest.fixture
def players(db: None) -> list[User]:
    return [make_player(name) for name in ("zhao", "qian", "sun", "li")]


@pytest.fixture
def game(room: Room, players: list[User]) -> Game:
    return services.game_start(table=Table.objects.create(room=room), players=players, seed=SEED)


@pytest.fixture
def finished(game: Game) -> Game:
    play_shanghai(game)
    assert game.status == Game.Status.FINISHED and game.settled_at is not None
    return game


def state_of(game: Game) -> GameState:
    state = selectors.game_state(game=game)
    assert isinstance(state, GameState)
    return state


def bases(cards: list[str] | str) -> Counter[str]:
    """Cards by their code without the deck: how the pages' chips name them."""
    listed = cards.split() if isinstance(cards, str) else cards
    return Counter(code.split(".")[0] for code in listed)


def between(text: str, start: str, end: str) -> str:
    at = text.index(start)
    return text[at : text.index(end, at)]


def test_staff_replay_every_deal_and_step(
    english_client: Client, staff: User, finished: Game
) -> None:
    english_client.force_login(staff)
    url = f"/admin/games/game/{finished.pk}/replay/"
    text = english_client.get(url).content.decode()
    assert 'id="verdict"' in text and "everything agrees" in text
    record = selectors.game_record(game=finished)
    assert len(record["deals"]) == 2
    for number, deal in enumerate(record["deals"], start=1):
        table = between(text, f'<table class="replay-deal" data-deal="{number}">', "</table>")
        hands = re.findall(r'<td class="cards">(.*?)</td>', table, re.S)
        assert [bases(CHIP.findall(hand)) for hand in hands] == [
            *(bases(hand) for hand in deal["hands"]),
            bases(deal["bottom"]),
        ]
    assert "thrown in: all four said no bid" in text
    result = finished.result
    assert result is not None
    assert f"seat {result['landlord']}" in between(text, 'id="landlord"', "</strong>")
    # A step in the middle of the play: every seat's hand after it.
    events = list(finished.events.order_by("number"))
    state = ENGINE.deal_from_json(
        selectors.game_deal(game=finished), ENGINE.options_from_json(finished.rules)
    )
    middle = len(events) // 2
    for event in events[:middle]:
        state = state.apply(event.seat, ENGINE.action_from_json(event.action))
    position = between(
        english_client.get(url, {"step": middle}).content.decode(),
        'class="replay-position"',
        "</div>",
    )
    shown = [
        bases(CHIP.findall(hand))
        for hand in re.findall(r'class="position-hand cards">(.*?)</td>', position, re.S)
    ]
    assert shown == [bases(state.view(seat)["hand"]) for seat in range(4)]
    # The admin's page of the game lists both deals.
    text = english_client.get(f"/admin/games/game/{finished.pk}/change/").content.decode()
    for number, deal in enumerate(record["deals"], start=1):
        for seat, hand in enumerate(deal["hands"]):
            assert f"<div>Deal {number} · Seat {seat}: {hand}</div>" in text
        assert f"<div>Deal {number} · Bottom cards: {deal['bottom']}</div>" in text


def test_the_page_of_a_finished_game(
    english_client: Client, players: list[User], finished: Game
) -> None:
    english_client.force_login(players[0])
    text = english_client.get(f"/games/{finished.pk}/").content.decode()
    result = finished.result
    assert result is not None
    state = state_of(finished)
    landlord = result["landlord"]
    assert f"{landlord + 1} · {players[landlord].username}" in between(
        text, 'id="landlord"', "</dd>"
    )
    bid = "Big landlord" if result["bid"] == "big" else "Small landlord"
    assert bid in between(text, 'id="bid"', "</dd>")
    points = re.findall(r"<td class=\"num\" data-points>([^<]+)</td>", text)
    assert [int(p) for p in points] == [pay // finished.base for pay in result["payments"]]
    # Every hand left at the end, and the bottom cards the landlord took.
    assert bases(CHIP.findall(between(text, 'id="bottom"', "</span></p>"))) == bases(
        [str(card) for card in state.bottom]
    )
    assert "Bombs" in text and "All four said no bid: deal 2" in text
    assert finished.seed in text and 'id="record-download"' in text


def test_the_record_and_the_share_link(client: Client, players: list[User], finished: Game) -> None:
    client.force_login(players[2])
    response = client.get(f"/games/{finished.pk}/record.json")
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="shanghai-game-{finished.pk}.json"'
    )
    record = json.loads(response.content)
    assert record["format"] == "shanghai-record/1" and "coins" not in record
    outcome = ENGINE.replay_record(record)
    assert outcome.ok and outcome.applied == finished.events.count()
    # The players' replay, and the same through its share link for anyone.
    replay = client.get(f"/games/{finished.pk}/replay/")
    assert replay.status_code == 200
    text = replay.content.decode()
    faces = set(DATA_CARD.findall(between(text, '<template id="replay-cards">', "</template>")))
    assert len(faces) == 108
    token = selectors.game_replay_token(game=finished)
    client.logout()
    shared = client.get(f"/games/replay/{token}/")
    assert shared.status_code == 200
    # The record tells no one's coins: the share link offers it too.
    assert client.get(f"/games/replay/{token}/record.json").status_code == 200


def test_a_player_disputes_a_game(client: Client, players: list[User], finished: Game) -> None:
    client.force_login(players[1])
    response = client.post(
        f"/games/{finished.pk}/dispute/", {"reason": "The bot bombed twice after saying no bid."}
    )
    assert response.status_code == 302
    assert Dispute.objects.filter(game=finished, user=players[1]).count() == 1


STAGES = {
    "bidding": lambda state: state.phase is Phase.BID and len(state.deals) == 2,
    "playing": lambda state: state.phase is Phase.PLAY and sum(state.plays_made) >= 3,
}


@pytest.mark.parametrize("stage", list(STAGES))
def test_a_game_being_played_shows_only_what_its_table_shows(
    client: Client, players: list[User], game: Game, stage: str
) -> None:
    play_shanghai(game, until=STAGES[stage])
    assert game.status == Game.Status.PLAYING
    state = state_of(game)
    client.force_login(players[0])
    text = client.get(f"/games/{game.pk}/").content.decode()
    shown = bases(CHIP.findall(text))
    own = bases([str(card) for card in state.hand(0)])
    public = (
        bases([str(card) for card in state.bottom]) if state.landlord is not None else Counter()
    )
    played = bases(
        [
            str(card)
            for _seat, action in state.history
            if isinstance(action, Play)
            for card in action.cards
        ]
    )
    # No chip beyond the reader's own hand, the cards played and the bottom once taken (a card
    # of several counts as often as they hold it).
    assert not shown - (own + public + played)
    assert game.seed not in text and 'id="record"' not in text
    assert client.get(f"/games/{game.pk}/record.json").status_code == 404
    assert client.get(f"/games/{game.pk}/replay/").status_code == 404
