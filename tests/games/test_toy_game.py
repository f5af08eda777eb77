"""A second game through the whole platform: a highcard game played with the services has a
record its engine replays, an admin replay that agrees, a page for its players and disputes,
all through the engine protocol, with no page or check that knows the game."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator

import pytest
from django.test import Client, override_settings

from accounts.models import LedgerEntry, LedgerReason, User
from games import selectors, services
from games.engines import engine_for
from games.models import Dispute, Game, Table
from tests.games.helpers import balance, game_ledger, make_player, make_room

ENGINES = ["games.rules.gandengyan.ENGINE", "tests.games.toy.ENGINE"]
SEED = 2**200 + 31


@pytest.fixture(autouse=True)
def _highcard_installed() -> Iterator[None]:
    with override_settings(GAME_ENGINES=ENGINES):
        yield


@pytest.fixture
def pair(db: None) -> list[User]:
    return [make_player("zhao"), make_player("qian")]


@pytest.fixture
def highcard(pair: list[User]) -> Game:
    """A finished highcard game of two players and a bot, settled."""
    room = make_room(code="highcard", base=10)
    room.game = "highcard"
    room.save(update_fields=["game"])
    game = services.game_start(
        table=Table.objects.create(room=room), players=[*pair, None], seed=SEED
    )
    engine = engine_for("highcard")
    while True:
        game.refresh_from_db()
        state = selectors.game_state(game=game)
        if state.is_terminal:
            break
        if state.to_move == 2:
            assert services.bot_take_turns(game=game)
            continue
        action = state.legal_actions(state.to_move)[0]
        services.game_act(game=game, seat=state.to_move, action=engine.action_to_json(action))
    game.refresh_from_db()
    assert game.game == "highcard" and game.status == Game.Status.FINISHED
    assert game.settled_at is not None
    return game


def test_its_record_replays_with_its_engine(highcard: Game) -> None:
    engine = engine_for("highcard")
    record = selectors.game_record(game=highcard)
    assert record["format"] == "highcard-record/1" and record["seed"] == SEED
    assert [action["seat"] for action in record["actions"]] == [
        event.seat for event in selectors.game_actions(game=highcard)
    ]
    outcome = engine.replay_record(json.loads(json.dumps(record)))
    assert outcome.ok and outcome.applied == 6 and outcome.state.winner == highcard.winner
    assert outcome.settlement is not None
    assert list(outcome.settlement.payments) == highcard.result["payments"]
    # The record from the stored rows is the one the engine writes of the final position.
    state = selectors.game_state(game=highcard)
    assert record == engine.record_to_json(
        state, base=highcard.base, seed=SEED, meta=record["meta"]
    )


def test_the_admin_replay_agrees(english_client: Client, highcard: Game) -> None:
    english_client.force_login(User.objects.create_superuser(username="boss", password="pw"))
    response = english_client.get(f"/admin/games/game/{highcard.pk}/replay/")
    assert response.status_code == 200
    replay = response.context["replay"]
    assert [(check.code, check.ok) for check in replay.checks] == [
        ("record", True),
        ("commitment", True),
        ("actions", True),
        ("result", True),
        ("ledger", True),
    ]
    assert len(replay.steps) == 7 and replay.steps[0].action is None
    assert replay.steps[-1].public["winner"] == highcard.winner
    text = response.content.decode()
    assert 'id="verdict">everything agrees' in text
    # Generic steps: each action's JSON and every seat's view, no 干瞪眼 columns.
    assert text.count('class="mono view') == 3 * len(replay.steps)
    assert html.escape(replay.steps[1].action_text) in text
    assert 'class="hand' not in text


def test_the_admin_replay_notices_a_tampered_action(highcard: Game) -> None:
    event = highcard.events.get(number=2)
    event.action = {"reveal": 99}
    event.save(update_fields=["action"])
    replay = selectors.game_replay_steps(game=highcard)
    failed = [check for check in replay.checks if not check.ok]
    assert [check.code for check in failed] == ["actions"]
    assert failed[0].detail.startswith("action 2:") and "card_not_hidden" in failed[0].detail
    assert len(replay.steps) == 2


def test_its_players_see_its_page(client: Client, highcard: Game, pair: list[User]) -> None:
    client.force_login(pair[0])
    response = client.get(f"/games/{highcard.pk}/")
    assert response.status_code == 200
    assert [template.name for template in response.templates][0] == "games/game_detail.html"
    text = response.content.decode()
    record = html.unescape(
        re.search(r'<pre class="code" id="record">(.*?)</pre>', text, re.S).group(1)
    )
    assert json.loads(record) == selectors.game_record(game=highcard)
    assert f"{SEED:064x}" in text
    for event in selectors.game_actions(game=highcard):
        assert html.escape(json.dumps(event.action)) in text

    client.force_login(make_player("li"))
    assert client.get(f"/games/{highcard.pk}/").status_code == 404


def test_a_dispute_is_opened_and_resolved_with_compensation(
    english_client: Client, admin_client: Client, highcard: Game, pair: list[User]
) -> None:
    english_client.force_login(pair[1])
    url = f"/games/{highcard.pk}/"
    response = english_client.post(f"{url}dispute/", {"reason": "Was the deal fair?"})
    assert response.status_code == 302
    dispute = Dispute.objects.get(game=highcard, user=pair[1])
    assert dispute.status == Dispute.Status.OPEN
    before = balance(pair[1])

    page = admin_client.get(f"/admin/games/dispute/{dispute.pk}/resolve/")
    assert page.status_code == 200
    response = admin_client.post(
        f"/admin/games/dispute/{dispute.pk}/resolve/",
        {"note": "The replay agrees; a gift for the trouble.", "compensation": 25},
    )
    assert response.status_code == 302
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.RESOLVED and dispute.compensation == 25
    assert balance(pair[1]) == before + 25
    row = LedgerEntry.objects.get(game=highcard, reason=LedgerReason.COMPENSATION)
    assert row.amount == 25 and row.wallet.user == pair[1]
    assert sum(entry.amount for entry in game_ledger(highcard)) == 0
    # The replay still agrees: compensation is not a game row.
    assert selectors.game_replay_steps(game=highcard).ok
    assert "Compensation: 25 coins." in english_client.get(url).content.decode()
