"""The players' replay: one set of steps for staff and players, who may see it (players, staff,
those who watched, anyone holding its share link) and only once the game is over, the page with
and without its script, the record through the share link, and watching a game."""

from __future__ import annotations

import json
import re

import pytest
from django.core import signing
from django.test import Client

from accounts.models import User
from games import selectors, services
from games.models import Game, GameWatch, Room, Table
from games.rules import parse_cards
from games.selectors.replays import REPLAY_LINK_SALT
from tests.games.helpers import doudizhu_room, play_doudizhu, play_out

pytestmark = pytest.mark.django_db

SEED = 0x5EED00000000000000000000000000000000000000000000000000000000CAFE


@pytest.fixture
def game(table: Table, trio: list[User]) -> Game:
    return services.game_start(table=table, players=trio, seed=SEED)


@pytest.fixture
def finished(game: Game) -> Game:
    play_out(game, seed=5)
    game.refresh_from_db()
    assert game.is_over
    return game


@pytest.fixture
def ddz_finished(trio: list[User]) -> Game:
    room: Room = doudizhu_room()
    game = services.game_start(table=Table.objects.create(room=room), players=trio, seed=SEED)
    play_doudizhu(game)
    assert game.is_over
    return game


def frames_of(text: str) -> list[dict]:
    found = re.search(r'<script id="replay-frames" type="application/json">(.*?)</script>', text)
    assert found is not None
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def hand_cards(text: str, seat: int) -> set[str]:
    """The card codes drawn in ``seat``'s hand on the page as the server rendered it."""
    box = re.search(rf'data-seat="{seat}"[^>]*>(.*?)</div>\s*</div>', text, re.S)
    assert box is not None
    hand = re.search(r"data-hand[^>]*>(.*)", box.group(1), re.S)
    assert hand is not None
    return set(re.findall(r'data-card="([^"]+)"', hand.group(1)))


# The steps -------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["finished", "ddz_finished"])
def test_admin_and_players_step_through_the_same_steps(
    which: str, request: pytest.FixtureRequest
) -> None:
    game: Game = request.getfixturevalue(which)
    admin = selectors.game_replay_steps(game=game)
    assert admin.ok
    steps = selectors.game_steps(game=game)
    assert [(s.number, s.seat, s.action, s.views) for s in steps] == [
        (s.number, s.seat, s.action, s.views) for s in admin.steps
    ]
    frames = selectors.game_replay_frames(game=game)
    assert len(frames) == len(steps) == game.events.count() + 1
    json.dumps(frames)  # the page carries them as JSON
    for frame, step in zip(frames, steps, strict=True):
        assert frame["number"] == step.number
        for seat, view in enumerate(step.views):
            assert sorted(frame["hands"][seat].split()) == sorted(view["hand"])
    # The last step: the winner's hand is empty, the action was theirs.
    final = frames[-1]
    assert final["winner"] is not None
    assert final["hands"][final["winner"]] == ""


def test_a_play_takes_its_cards_from_the_hand_and_puts_them_on_the_board(
    finished: Game,
) -> None:
    frames = selectors.game_replay_frames(game=finished)
    first = frames[1]
    seat = first["seat"]
    played = first["board"]["cards"].split()
    assert first["board"]["seat"] == seat
    assert set(played) <= set(frames[0]["hands"][seat].split())
    assert not set(played) & set(first["hands"][seat].split())
    assert first["text"] and frames[0]["text"] == ""
    keys = [fact["key"] for fact in first["facts"]]
    assert keys == ["multiplier", "stock"]


def test_doudizhu_shows_bids_roles_and_the_bottom_once_taken(ddz_finished: Game) -> None:
    frames = selectors.game_replay_frames(game=ddz_finished)
    steps = selectors.game_steps(game=ddz_finished)
    bids = [
        frames[s.number]
        for s in steps
        if s.action is not None and s.action.get("bid") in ("call", "rob")
    ]
    assert bids, "the bidding is among the steps"
    assert bids[0]["text"] and bids[0]["said"][bids[0]["seat"]] == bids[0]["text"]
    before = [f for f in frames if f["piles"][0]["cards"] == ""]
    after = [f for f in frames if f["piles"][0]["cards"]]
    assert before and after
    assert len(after[0]["piles"][0]["cards"].split()) == 3
    landlord = ddz_finished.result["landlord"]  # type: ignore[index]
    roles = after[-1]["roles"]
    assert roles[landlord] and all(
        r and r != roles[landlord] for s, r in enumerate(roles) if s != landlord
    )
    assert before[0]["roles"] == ["", "", ""]
    # The landlord holds the bottom cards once taken.
    assert set(after[0]["piles"][0]["cards"].split()) <= set(after[0]["hands"][landlord].split())
    assert all(parse_cards(f["hands"][0]) is not None for f in frames)


# Who may replay --------------------------------------------------------------------------------


def test_players_staff_and_watchers_may_replay_a_finished_game(
    finished: Game, trio: list[User], staff: User, outsider: User
) -> None:
    for user in (*trio, staff):
        assert selectors.game_get_for_replay(user=user, game_id=finished.pk) == finished
    assert selectors.game_get_for_replay(user=outsider, game_id=finished.pk) is None
    GameWatch.objects.create(game=finished, user=outsider)
    assert selectors.game_get_for_replay(user=outsider, game_id=finished.pk) == finished


def test_a_game_in_play_is_never_replayed(
    game: Game, trio: list[User], staff: User, outsider: User
) -> None:
    play_out(game, seed=5, stop_before_end=True)
    game.refresh_from_db()
    assert not game.is_over
    services.game_watch_record(user=outsider, game=game)
    token = selectors.game_replay_token(game=game)
    for user in (*trio, staff, outsider):
        assert selectors.game_get_for_replay(user=user, game_id=game.pk) is None
        client = Client()
        client.force_login(user)
        assert client.get(f"/games/{game.pk}/replay/").status_code == 404
        assert client.get(f"/games/{game.pk}/record.json").status_code == 404
    assert selectors.game_get_by_replay_token(token=token) is None
    assert Client().get(f"/games/replay/{token}/").status_code == 404
    assert Client().get(f"/games/replay/{token}/record.json").status_code == 404


def test_the_share_token_opens_only_its_own_game(finished: Game) -> None:
    token = selectors.game_replay_token(game=finished)
    assert selectors.game_get_by_replay_token(token=token) == finished
    # One link per game: the same token every time it is asked for.
    assert selectors.game_replay_token(game=finished) == token
    # Altered: another game's id with this signature, a changed signature, a made-up token,
    # and tokens signed for something else.
    signer = signing.Signer(salt=REPLAY_LINK_SALT)
    other_id = signer.sign_object(finished.pk + 1).split(":")[0]
    assert selectors.game_get_by_replay_token(token=other_id + ":" + token.split(":")[1]) is None
    assert selectors.game_get_by_replay_token(token=token[:-2] + "xx") is None
    assert selectors.game_get_by_replay_token(token="not-a-token") is None
    assert selectors.game_get_by_replay_token(token=signing.Signer().sign_object(finished.pk)) is (
        None
    )
    assert selectors.game_get_by_replay_token(token=signing.dumps(finished.pk)) is None
    assert selectors.game_get_by_replay_token(token=signer.sign_object("x")) is None


# Watching --------------------------------------------------------------------------------------


def test_watching_is_recorded_once_and_only_for_a_game_in_play_by_a_spectator(
    game: Game, trio: list[User], outsider: User
) -> None:
    assert services.game_watch_record(user=outsider, game=game)
    assert not services.game_watch_record(user=outsider, game=game)
    assert not services.game_watch_record(user=trio[0], game=game)
    assert list(GameWatch.objects.values_list("user_id", flat=True)) == [outsider.pk]
    play_out(game, seed=5)
    game.refresh_from_db()
    late = User.objects.create_user(username="late")
    assert not services.game_watch_record(user=late, game=game)
    assert GameWatch.objects.count() == 1


def test_opening_the_table_page_as_a_spectator_records_the_watch(
    room: Room, trio: list[User], outsider: User
) -> None:
    for user in trio:
        table, _seat = services.table_play(user=user, room=room)
    game = selectors.table_current_game(table=table)
    assert game is not None and not game.is_over
    client = Client()
    client.force_login(trio[0])
    assert client.get(f"/tables/{game.table_id}/").status_code == 200
    assert not GameWatch.objects.exists()
    client.force_login(outsider)
    assert client.get(f"/tables/{game.table_id}/").status_code == 200
    assert client.get(f"/tables/{game.table_id}/").status_code == 200
    assert list(GameWatch.objects.values_list("game_id", "user_id")) == [(game.pk, outsider.pk)]


# The pages -------------------------------------------------------------------------------------


def test_the_replay_page_for_a_player(finished: Game, trio: list[User]) -> None:
    client = Client()
    client.force_login(trio[1])
    response = client.get(f"/games/{finished.pk}/replay/")
    assert response.status_code == 200
    text = response.content.decode()
    frames = frames_of(text)
    assert len(frames) == finished.events.count() + 1
    # The deal: every seat's hand face up, the reader's seat last (at the bottom).
    for seat in range(3):
        assert hand_cards(text, seat) == set(frames[0]["hands"][seat].split())
    assert text.index('data-seat="1"') > text.index('data-seat="2"')
    assert 'data-step="0"' in text
    # Without the script: the step list links to every step, rendered by the server.
    assert text.count('href="?step=') >= len(frames)
    text = client.get(f"/games/{finished.pk}/replay/?step=1").content.decode()
    seat = frames[1]["seat"]
    assert hand_cards(text, seat) == set(frames[1]["hands"][seat].split())
    assert 'data-step="1"' in text
    assert 'data-nav="previous"' in text and "?step=0#replay" in text
    # Out of range or not a number: the nearest step.
    assert 'data-step="0"' in client.get(f"/games/{finished.pk}/replay/?step=x").content.decode()
    last = len(frames) - 1
    assert (
        f'data-step="{last}"'
        in client.get(f"/games/{finished.pk}/replay/?step=999").content.decode()
    )
    # The share link and the record.
    token = selectors.game_replay_token(game=finished)
    assert f"/games/replay/{token}/" in text
    assert f'href="/games/{finished.pk}/record.json"' in text


def test_strangers_and_signed_out_visitors_cannot_open_the_replay(
    finished: Game, outsider: User
) -> None:
    response = Client().get(f"/games/{finished.pk}/replay/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    client = Client()
    client.force_login(outsider)
    assert client.get(f"/games/{finished.pk}/replay/").status_code == 404
    assert client.get(f"/games/{finished.pk}/record.json").status_code == 404
    GameWatch.objects.create(game=finished, user=outsider)
    assert client.get(f"/games/{finished.pk}/replay/").status_code == 200
    assert client.get(f"/games/{finished.pk}/record.json").status_code == 200


@pytest.mark.parametrize("which", ["finished", "ddz_finished"])
def test_the_share_link_works_signed_out_without_coins(
    which: str, request: pytest.FixtureRequest, trio: list[User]
) -> None:
    game: Game = request.getfixturevalue(which)
    token = selectors.game_replay_token(game=game)
    response = Client().get(f"/games/replay/{token}/")
    assert response.status_code == 200
    text = response.content.decode()
    for user in trio:
        assert user.get_username() in text
    assert "100,000" not in text and "100000" not in text
    assert f"/games/{game.pk}/" not in text.replace(f"/games/replay/{token}/", "")
    record = Client().get(f"/games/replay/{token}/record.json")
    if "coins" in selectors.game_record(game=game):
        # 斗地主's record holds the seats' coins: for its players and watchers only.
        assert record.status_code == 404 and "data-record-download" not in text
    else:
        assert record.status_code == 200
        assert record["Content-Disposition"].startswith("attachment")
        assert json.loads(record.content)["meta"]["game"] == game.pk
    assert Client().get(f"/games/replay/{token}x/").status_code == 404
    assert Client().get(f"/games/replay/{token}x/record.json").status_code == 404


def test_a_record_holding_the_players_coins_is_not_shared(trio: list[User], client: Client) -> None:
    # 斗地主's record keeps each seat's coins (its settlement and a room's doubling threshold
    # read them): they are the players' own, so a share link replays the game but does not hand
    # the record out.
    room = doudizhu_room(code="ddz-threshold", threshold=1_000)
    game = services.game_start(table=Table.objects.create(room=room), players=trio, seed=SEED)
    play_doudizhu(game)
    assert game.is_over and "coins" in selectors.game_record(game=game)
    token = selectors.game_replay_token(game=game)
    page = Client().get(f"/games/replay/{token}/")
    assert page.status_code == 200
    assert "data-record-download" not in page.content.decode()
    assert Client().get(f"/games/replay/{token}/record.json").status_code == 404
    # Its players still have it, from their own replay.
    client.force_login(trio[0])
    own = client.get(f"/games/{game.pk}/replay/").content.decode()
    assert f'href="/games/{game.pk}/record.json"' in own
    assert client.get(f"/games/{game.pk}/record.json").status_code == 200


def test_the_game_page_and_the_profile_link_to_the_replay(
    finished: Game, trio: list[User], outsider: User
) -> None:
    client = Client()
    client.force_login(trio[0])
    assert f"/games/{finished.pk}/replay/" in client.get(f"/games/{finished.pk}/").content.decode()
    profile = client.get("/accounts/profile/").content.decode()
    assert f"/games/{finished.pk}/replay/" in profile
    # A watcher finds the games they watched on their profile, once over.
    other = services.game_start(
        table=Table.objects.create(room=finished.table.room), players=trio, seed=SEED + 1
    )
    services.game_watch_record(user=outsider, game=other)
    client.force_login(outsider)
    assert f"/games/{other.pk}/replay/" not in client.get("/accounts/profile/").content.decode()
    play_out(other, seed=2)
    assert f"/games/{other.pk}/replay/" in client.get("/accounts/profile/").content.decode()
