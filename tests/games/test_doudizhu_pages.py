"""斗地主's pages about a game: the admin's step-by-step replay and the game's page, for a game
played through every stage (a deal thrown in after three 不叫, 明牌 while dealt and with the
bottom cards, 抢地主, 加倍, the play to the end); what they hide of a game still being played;
and the record they offer, which the rules engine's command line replays."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from accounts.models import User
from games import selectors, services
from games.models import Game, Room, Table
from games.rules import Phase
from games.rules.doudizhu import ENGINE, GameState
from tests.games.helpers import doudizhu_room, make_player, play_doudizhu

pytestmark = pytest.mark.django_db

SEED = 11  # its first deal is thrown in; the second is played, with a bomb and a rocket
CHIP = re.compile(r'class="card-chip[^"]*" title="([^"]+)"')


@pytest.fixture
def ddz_room(db: None) -> Room:
    return doudizhu_room()


@pytest.fixture
def players(db: None) -> list[User]:
    return [make_player(name) for name in ("zhao", "qian", "sun")]


@pytest.fixture
def game(ddz_room: Room, players: list[User]) -> Game:
    return services.game_start(
        table=Table.objects.create(room=ddz_room), players=players, seed=SEED
    )


@pytest.fixture
def finished(game: Game) -> Game:
    play_doudizhu(game)
    assert game.status == Game.Status.FINISHED and game.settled_at is not None
    return game


def state_of(game: Game) -> GameState:
    state = selectors.game_state(game=game)
    assert isinstance(state, GameState)
    return state


def chips(text: str) -> list[str]:
    return CHIP.findall(text)


def between(text: str, start: str, end: str) -> str:
    at = text.index(start)
    return text[at : text.index(end, at)]


def rows(text: str) -> dict[int, str]:
    """The replay's rows by step number."""
    found = re.findall(r'<tr id="step-(\d+)"(.*?)</tr>', text, re.S)
    return {int(number): row for number, row in found}


# The admin's replay ------------------------------------------------------------------------------


def test_the_replay_shows_every_deal_bid_show_double_and_play(
    english_client: Client, staff: User, finished: Game
) -> None:
    english_client.force_login(staff)
    response = english_client.get(f"/admin/games/game/{finished.pk}/replay/")
    assert response.status_code == 200
    assert [t.name for t in response.templates][0] == "admin/games/doudizhu/replay.html"
    replay = response.context["replay"]
    assert replay.ok
    text = response.content.decode()
    state = state_of(finished)
    result = finished.result
    landlord = result["landlord"]
    assert state.landlord == landlord
    assert f'id="landlord">seat {landlord} (' in text

    # Every deal, the one thrown in too, with its 17 cards a seat and its bottom.
    record = selectors.game_record(game=finished)
    assert len(record["deals"]) == 2
    for number, deal in enumerate(record["deals"], start=1):
        table = between(text, f'<table class="replay-deal" data-deal="{number}">', "</table>")
        assert ("thrown in" in table) == (number == 1)
        for hand in deal["hands"]:
            assert set(hand.split()) <= set(chips(table))
        assert set(deal["bottom"].split()) <= set(chips(table))
    assert f'seed <span class="mono">{SEED}</span>' in text

    # The bidding of each deal, 明牌 with its moment and multiplier, the bottom with its taker.
    first, second = (between(text, f'class="bidding" data-deal="{n}"', "</p>") for n in (1, 2))
    assert first.count("Don&#x27;t call") == 3 and "dealt again" in first
    assert "Call the landlord" in second and "Rob the landlord" in second
    assert "shows the hand with 8 cards dealt (×4)" in second
    assert "shows the hand after taking the bottom cards (×2)" in second
    bottom = between(text, 'id="bottom"', "</span></p>")
    assert sorted(chips(bottom)) == sorted(str(card) for card in state.bottom)
    assert f"Seat {landlord} (" in text

    # 加倍 by seat, the multiplier with its parts, the settlement by farmer–landlord pair.
    seats = between(text, '<table id="seats">', "</table>")
    doubled = [d for d in result["doubles"]]
    assert seats.count("Double ×2") == doubled.count(True)
    assert seats.count("No double") == doubled.count(False)
    assert f'id="multiplier">×{result["multiplier"]}<' in text
    parts = between(text, 'id="multiplier-parts"', "</p>")
    for key, value in result["multipliers"].items():
        assert f'data-part="{key}">' in parts and f"×{value}</span>" in parts
    pairs = between(text, '<table id="pairs">', "</table>")
    for farmer in (s for s in range(3) if s != landlord):
        row = between(pairs, f'data-farmer="{farmer}"', "</tr>")
        owed = result["payments"][farmer]
        factors = [2 if result["doubles"][s] else 1 for s in (farmer, landlord)]
        formula = f"{finished.base} × {result['multiplier']} × {factors[0]} × {factors[1]}"
        assert f"{formula} = <strong>{abs(owed)}</strong>" in row
        payer, payee = (landlord, farmer) if owed > 0 else (farmer, landlord)
        assert f"seat {payer} pays seat {payee}" in row
        assert "check-bad" not in row

    # Each step: who did what, and every hand after it.
    steps = rows(text)
    assert sorted(steps) == [step.number for step in replay.steps]
    kinds = [re.search(r'data-kind="(\w+)"', steps[n]).group(1) for n in sorted(steps)]
    assert kinds[0] == "deal"
    assert {"deal_on", "show", "bid", "double", "play", "pass"} <= set(kinds)
    assert sum("new-deal" in row.split(">", 1)[0] for row in steps.values()) == 1
    assert text.count('<td class="hand') == 3 * len(replay.steps)
    last = steps[len(replay.steps) - 1]
    final = [sorted(str(c) for c in state.hand(seat)) for seat in range(3)]
    hands = re.findall(r'<td class="hand[^"]*">(.*?)</td>', last, re.S)
    assert [sorted(chips(hand)) for hand in hands] == final


def test_staff_step_through_the_replay(english_client: Client, staff: User, finished: Game) -> None:
    english_client.force_login(staff)
    url = f"/admin/games/game/{finished.pk}/replay/"
    events = list(finished.events.order_by("number"))
    state = ENGINE.deal_from_json(
        selectors.game_deal(game=finished), ENGINE.options_from_json(finished.rules)
    )
    number = 0
    while True:
        response = english_client.get(url, {"step": number})
        text = response.content.decode()
        position = between(text, 'class="replay-position"', "</div>")
        assert f'data-step="{number}"' in position
        # The hands after the step, as far as they are dealt, all three of them.
        shown = [
            sorted(chips(hand))
            for hand in re.findall(r'class="position-hand cards">(.*?)</td>', position, re.S)
        ]
        expected = [sorted(state.view(seat, history=False)["hand"]) for seat in range(3)]
        assert shown == expected, number
        assert f'<tr id="step-{number}" data-kind="' in text
        assert re.search(rf'<tr id="step-{number}" data-kind="\w+" class="current', text)
        after = re.search(r'href="\?step=(\d+)#position" data-nav="next"', position)
        if number == len(events):
            assert after is None
            assert state.is_terminal
            break
        assert after is not None and int(after.group(1)) == number + 1
        event = events[number]
        state = state.apply(event.seat, ENGINE.action_from_json(event.action))
        number += 1
    # Out of range and nonsense go to the ends.
    assert english_client.get(url, {"step": 9999}).context["step"].number == len(events)
    assert english_client.get(url, {"step": "x"}).context["step"].number == 0


def test_the_replay_of_a_game_being_played_shows_no_card(
    admin_client_ddz: Client, game: Game
) -> None:
    play_doudizhu(game, until=lambda state: state.phase is Phase.PLAY)
    response = admin_client_ddz.get(f"/admin/games/game/{game.pk}/replay/")
    assert response.status_code == 200
    assert response.context["replay"] is None
    text = response.content.decode()
    assert chips(text) == []
    assert game.seed not in text


def test_the_admin_shows_every_deal_of_a_finished_game(
    english_client: Client, staff: User, ddz_room: Room, players: list[User], finished: Game
) -> None:
    english_client.force_login(staff)
    playing = services.game_start(
        table=Table.objects.create(room=ddz_room), players=players, seed=SEED
    )
    text = english_client.get(f"/admin/games/game/{playing.pk}/change/").content.decode()
    assert "Hidden until the game is over." in text
    assert playing.seed not in text and "Bottom cards" not in text

    text = english_client.get(f"/admin/games/game/{finished.pk}/change/").content.decode()
    record = selectors.game_record(game=finished)
    assert len(record["deals"]) == 2  # the first was thrown in
    for number, deal in enumerate(record["deals"], start=1):
        for seat, hand in enumerate(deal["hands"]):
            assert f"<div>Deal {number} · Seat {seat}: {hand}</div>" in text
        assert f"<div>Deal {number} · Bottom cards: {deal['bottom']}</div>" in text
    assert finished.seed in text


@pytest.fixture
def admin_client_ddz(client: Client, staff: User) -> Client:
    client.force_login(staff)
    return client


# The game's page -------------------------------------------------------------------------------


def page(client: Client, user: User, game: Game) -> str:
    client.force_login(user)
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_of_a_finished_game(
    english_client: Client, players: list[User], finished: Game
) -> None:
    text = page(english_client, players[0], finished)
    result = finished.result
    state = state_of(finished)
    landlord = result["landlord"]
    names = {p.seat: p.user.username for p in finished.players.select_related("user")}
    assert f'id="landlord">{landlord + 1} · {names[landlord]}<' in text
    assert text.count('data-role="landlord"') == 1 and text.count('data-role="farmer"') == 2
    # The winning side: the landlord alone or both farmers.
    winners = 1 if result["landlord_won"] else 2
    assert text.count("badge-gold") == winners

    bidding = between(text, 'aria-labelledby="bidding-title"', "</section>")
    assert "all said no: the cards were dealt again" in bidding
    assert "Call the landlord" in bidding and "Rob the landlord" in bidding
    assert "shows the hand with 8 cards dealt (×4)" in bidding
    bottom = between(bidding, 'id="bottom"', "</span></p>")
    assert sorted(chips(bottom)) == sorted(str(card) for card in state.bottom)
    parts = between(bidding, 'id="multiplier-parts"', "</p>")
    assert f"×{result['multiplier']} =" in parts
    for key, value in result["multipliers"].items():
        assert f'data-part="{key}">' in parts and f"×{value}</span>" in parts

    pairs = between(text, 'id="pairs"', "</table>")
    for farmer in (s for s in range(3) if s != landlord):
        row = between(pairs, f'data-farmer="{farmer}"', "</tr>")
        assert f"= {abs(result['payments'][farmer])}<" in row
        payer = landlord if result["payments"][farmer] > 0 else farmer
        payee = farmer if payer == landlord else landlord
        assert f"{names[payer]} pays {names[payee]}" in row

    # Every action, in words; a play with its cards and the name of its combination.
    actions = between(text, 'aria-labelledby="actions-title"', "</section>")
    assert actions.count("<tr data-kind=") == finished.events.count()
    assert "All said no: deal 2" in actions
    assert "Double" in actions and "Pass" in actions
    for event in finished.events.all():
        if "play" in event.action:
            assert all(f'title="{card}"' in actions for card in event.action["play"].split())
    assert "Rocket" in actions  # BJ RJ: the only bomb of the game

    # The fair deal: the seed and how to check it, the record to download.
    assert f'id="seed">{finished.seed}<' in text
    assert "games.rules.doudizhu.deal_from_seed" in text
    assert f'href="/games/{finished.pk}/record.json" download' in text


def test_the_record_download_replays_with_the_command_line(
    client: Client, players: list[User], finished: Game, tmp_path: Path
) -> None:
    client.force_login(players[2])
    response = client.get(f"/games/{finished.pk}/record.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="doudizhu-game-{finished.pk}.json"'
    )
    record = json.loads(response.content)
    assert record["format"] == "doudizhu-record/1"
    assert record["seed"] == SEED and len(record["deals"]) == 2
    path = tmp_path / "game.json"
    path.write_bytes(response.content)
    run = subprocess.run(
        [sys.executable, "-m", "games.rules", "replay", str(path)],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["ok"] and out["applied"] == finished.events.count()
    assert out["result"]["payments"] == finished.result["payments"]


STAGES = {
    # The second deal's bidding, a hand shown (明牌) while it was dealt.
    "bidding": lambda state: state.phase is Phase.BID and len(state.deals) == 2,
    "doubling": lambda state: state.phase is Phase.DOUBLE,
    "playing": lambda state: state.phase is Phase.PLAY and sum(state.plays_made) >= 3,
}


@pytest.mark.parametrize("stage", list(STAGES))
def test_a_game_being_played_shows_only_what_its_table_shows(
    players: list[User], game: Game, staff: User, stage: str
) -> None:
    """While the game is played: the reader's own hand and the hands shown (明牌), the bottom
    cards once the landlord has them; never another hand, the seed or the record."""
    play_doudizhu(game, until=STAGES[stage])
    assert game.status == Game.Status.PLAYING
    state = state_of(game)
    bottom = {str(card) for card in state.bottom}
    shown = {card for cards in state.view(None)["shown"].values() for card in cards}
    assert shown or stage != "bidding"
    played = {
        card
        for event in game.events.all()
        if "play" in event.action
        for card in event.action["play"].split()
    }
    assert played or stage != "playing"
    readers: list[tuple[User, int | None]] = [(user, seat) for seat, user in enumerate(players)]
    for user, seat in [*readers, (staff, None)]:
        client = Client()
        text = page(client, user, game)
        cards = set(chips(text))
        own = set() if seat is None else {str(card) for card in state.hand(seat)}
        assert own <= cards
        taken = bottom if state.landlord is not None else set()
        assert cards <= own | shown | played | taken, (seat, cards - own - shown - played)
        assert taken <= cards
        for other in range(3):
            if other != seat and not state.shown[other]:
                hidden = {str(card) for card in state.hand(other)} - taken
                assert not cards & hidden, f"{seat} sees seat {other}'s cards"
        if state.landlord is None:
            assert not cards & (bottom - own)
        assert game.seed not in text and f'"seed": {SEED}' not in text
        assert 'id="record"' not in text and "record.json" not in text
        assert client.get(f"/games/{game.pk}/record.json").status_code == 404


def test_the_page_is_in_chinese(client: Client, players: list[User], finished: Game) -> None:
    text = page(client, players[1], finished)
    for words in (
        "地主",
        "农民",
        "叫地主",
        "抢地主",
        "明牌",
        "加倍",
        "按农民与地主结算",
        "下载牌局记录",
        "王炸",
    ):
        assert words in text, words
