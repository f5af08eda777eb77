"""Starting games and acting in them through the services."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from accounts.models import LedgerEntry, User
from games import selectors, services
from games.models import Game, GameEvent, GamePlayer, Table
from games.rules import format_cards, parse_cards
from games.rules.gandengyan import STANDARD, deal_from_seed
from tests.games.helpers import balance, make_player, play_out, start_from_position

pytestmark = pytest.mark.django_db

SEED = 0x1F2E3D4C5B6A79880123456789ABCDEF0123456789ABCDEF0123456789ABCDEF
REPO = Path(__file__).resolve().parents[2]


def test_game_start_deals_from_the_seed_and_commits_to_it(table: Table, trio: list[User]) -> None:
    game = services.game_start(table=table, players=trio, seed=SEED)

    hands, stock, dealer = deal_from_seed(SEED, STANDARD)
    assert game.number == 1
    assert game.status == Game.Status.PLAYING
    assert game.dealer == dealer  # the first game at a table: the seed picks the dealer
    assert game.seed == f"{SEED:064x}" and len(game.seed) == 64
    assert game.seed_commitment == hashlib.sha256(SEED.to_bytes(32, "big")).hexdigest()
    assert game.hands == [format_cards(hand) for hand in hands]
    assert game.stock == " ".join(map(str, stock))
    assert [len(parse_cards(hand)) for hand in game.hands][dealer] == 6
    assert len(parse_cards(game.stock)) == 38
    assert game.base == table.room.base and game.rules == {}
    players = GamePlayer.objects.filter(game=game).order_by("seat")
    assert [(p.seat, p.user, p.is_bot) for p in players] == [
        (i, u, False) for i, u in enumerate(trio)
    ]
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING


def test_game_start_draws_a_fresh_secret_seed(table: Table, trio: list[User]) -> None:
    first = services.game_start(table=table, players=trio)
    Game.objects.filter(pk=first.pk).update(status=Game.Status.ABORTED)
    second = services.game_start(table=table, players=trio)
    assert first.seed != second.seed
    for game in (first, second):
        seed = int(game.seed, 16)
        assert hashlib.sha256(bytes.fromhex(game.seed)).hexdigest() == game.seed_commitment
        hands, stock, _ = deal_from_seed(seed, STANDARD, game.dealer)
        assert game.hands == [format_cards(hand) for hand in hands]


def test_later_games_are_dealt_by_the_last_winner(table: Table, trio: list[User]) -> None:
    first = services.game_start(table=table, players=trio, seed=1)
    play_out(first, seed=1)
    first.refresh_from_db()
    assert first.winner is not None
    table.refresh_from_db()
    assert table.status == Table.Status.WAITING

    second = services.game_start(table=table, players=trio, seed=2)
    assert second.number == 2
    assert second.dealer == first.winner
    hands, stock, _ = deal_from_seed(2, STANDARD, first.winner)
    assert second.hands == [format_cards(hand) for hand in hands]


def test_after_an_aborted_game_the_last_winner_still_deals(table: Table, trio: list[User]) -> None:
    first = services.game_start(table=table, players=trio, seed=1)
    play_out(first, seed=1)
    first.refresh_from_db()
    aborted = services.game_start(table=table, players=trio, seed=2)
    Game.objects.filter(pk=aborted.pk).update(status=Game.Status.ABORTED)
    third = services.game_start(table=table, players=trio, seed=3)
    assert third.number == 3
    assert third.dealer == first.winner


def test_changes_are_broadcast_after_commit_only(
    position_game: Game, django_capture_on_commit_callbacks: Any
) -> None:
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(services.table_group_name(position_game.table_id), channel)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.game_act(game=position_game, seat=0, action={"play": "3s 4h 5d"})
    assert len(callbacks) == 1  # nothing is sent before the commit
    callbacks[0]()
    message = async_to_sync(layer.receive)(channel)
    assert message == {
        "type": "table.update",
        "table": position_game.table_id,
        "game": position_game.pk,
        "kind": "action",
        "number": 1,
    }
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(services.GameActionRefused),
    ):
        services.game_act(game=position_game, seat=0, action={"play": "9s"})
    assert callbacks == []  # a refused action tells nobody anything


def test_game_start_with_bots_and_an_explicit_dealer(table: Table, trio: list[User]) -> None:
    game = services.game_start(table=table, players=[trio[0], None, None], dealer=2, seed=5)
    assert game.dealer == 2
    assert [(p.user_id, p.is_bot) for p in game.players.order_by("seat")] == [
        (trio[0].pk, False),
        (None, True),
        (None, True),
    ]


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("two_players", "wrong_player_count"),
        ("same_player_twice", "player_twice"),
        ("no_wallet", "no_wallet"),
        ("in_progress", "game_in_progress"),
        ("closed", "table_closed"),
        ("bad_dealer", "bad_dealer"),
        ("bad_seed", "bad_seed"),
    ],
)
def test_game_start_refusals(table: Table, trio: list[User], case: str, code: str) -> None:
    players: list[User | None] = list(trio)
    kwargs: dict[str, object] = {}
    if case == "two_players":
        players = players[:2]
    elif case == "same_player_twice":
        players = [trio[0], trio[0], trio[1]]
    elif case == "no_wallet":
        players = [trio[0], trio[1], User.objects.create_user(username="nowallet")]
    elif case == "in_progress":
        services.game_start(table=table, players=trio)
    elif case == "closed":
        Table.objects.filter(pk=table.pk).update(status=Table.Status.CLOSED)
    elif case == "bad_dealer":
        kwargs["dealer"] = 3
    elif case == "bad_seed":
        kwargs["seed"] = 2**256
    games_before = Game.objects.count()
    with pytest.raises(services.GameStartRefused) as refused:
        services.game_start(table=table, players=players, **kwargs)
    assert refused.value.code == code
    assert Game.objects.count() == games_before


# Acting ------------------------------------------------------------------------------------------

POSITION = {
    "hands": ["3s 4h 5d 6c 7s 8h", "9s 9h 9d Jd Qs", "5s 6h Ks 2d BJ"],
    "stock": "Ad 6s 7h",
    "dealer": 0,
}


@pytest.fixture
def position_game(table: Table, trio: list[User]) -> Game:
    return start_from_position(table=table, players=trio, **POSITION)


def test_game_act_stores_numbered_canonical_actions(position_game: Game) -> None:
    first = services.game_act(game=position_game, seat=0, action={"play": "5d 4h 3s"})
    second = services.game_act(game=position_game, seat=1, action={"pass": True})
    third = services.game_act(game=position_game, seat=2, action={"play": "BJ 6h 5s"})
    assert [(e.number, e.seat, e.action) for e in (first, second, third)] == [
        (1, 0, {"play": "3s 4h 5d"}),
        (2, 1, {"pass": True}),
        # Following, the one meaning that beats the table is taken, and stored by name.
        (3, 2, {"play": "5s 6h BJ", "as": "4 5 6"}),
    ]
    state = selectors.game_state(game=position_game)
    assert state.to_move == 0
    assert state.table is not None and state.table.seat == 2


def test_an_ambiguous_lead_keeps_the_meaning_chosen(table: Table, trio: list[User]) -> None:
    game = start_from_position(
        table=table, players=trio, hands=["5s 6h BJ 9c", "3s 4s", "3h 4h"], stock="", dealer=0
    )
    event = services.game_act(game=game, seat=0, action={"play": "5s 6h BJ", "as": "5 6 7"})
    assert event.action == {"play": "5s 6h BJ", "as": "5 6 7"}
    game2 = start_from_position(
        table=table, players=trio, hands=["5s 6h BJ 9c", "3s 4s", "3h 4h"], stock="", dealer=0
    )
    event = services.game_act(game=game2, seat=0, action={"play": "5s 6h BJ"})
    assert event.action == {"play": "5s 6h BJ", "as": "4 5 6"}  # leading: the lowest meaning


@pytest.mark.parametrize("cards", ["5s 6s BJ", "6s 5h BJ"])
def test_a_play_of_two_meanings_at_a_table_asks_which_one(
    table: Table, trio: list[User], cards: str
) -> None:
    for position, user in enumerate(trio):
        table.seats.create(position=position, user=user)
    game = start_from_position(
        table=table, players=trio, hands=["5s 5h 6s BJ 9c", "3c 4c", "7s 8s"], stock="", dealer=0
    )
    version = selectors.table_version(table=Table.objects.get(pk=table.pk))

    def refusal(user: User, action: dict[str, Any], version: str) -> tuple[Any, ...]:
        with pytest.raises(services.GameActionRefused) as refused:
            services.table_game_act(user=user, table=table, action=action, version=version)
        return refused.value.code, refused.value.message, refused.value.choices

    assert refusal(trio[0], {"play": cards}, version) == (
        "choose_meaning",
        "these cards can be played in more than one way",
        ("4 5 6", "5 6 7"),
    )
    # An action chosen on an older view is stale before anything else; another seat's play is
    # not its turn, whatever its cards.
    assert refusal(trio[0], {"play": cards}, "0.0.0")[0] == "stale"
    assert refusal(trio[1], {"play": cards}, version)[0] == "not_your_turn"
    assert not game.events.exists()
    event = services.table_game_act(
        user=trio[0], table=table, action={"play": cards, "as": "5 6 7"}, version=version
    )
    assert event.action == {"play": format_cards(parse_cards(cards)), "as": "5 6 7"}


@pytest.mark.parametrize(
    ("seat", "action", "code"),
    [
        (1, {"play": "9s"}, "not_your_turn"),
        (2, {"pass": True}, "not_your_turn"),
        (0, {"pass": True}, "leader_must_play"),
        (0, {"play": "9s"}, "cards_not_in_hand"),
        (0, {"play": "3s 5d"}, "not_a_combination"),
        (0, {"play": "3s 4h 5d", "as": "4 5 6"}, "meaning_not_possible"),
        (0, {"play": "3s 4x"}, "bad_action"),
        (0, {"play": "3s", "pass": True}, "bad_action"),
        (0, {"play": "3s", "seat": 0}, "bad_action"),
        (0, {}, "bad_action"),
        (0, {"pass": False}, "bad_action"),
    ],
)
def test_game_act_refuses_and_writes_nothing(
    position_game: Game, seat: int, action: dict[str, object], code: str
) -> None:
    with pytest.raises(services.GameActionRefused) as refused:
        services.game_act(game=position_game, seat=seat, action=action)
    assert refused.value.code == code
    assert refused.value.message
    assert not GameEvent.objects.filter(game=position_game).exists()


def test_game_act_refuses_a_play_that_does_not_beat(position_game: Game) -> None:
    services.game_act(game=position_game, seat=0, action={"play": "3s 4h 5d"})
    with pytest.raises(services.GameActionRefused) as refused:
        services.game_act(game=position_game, seat=1, action={"play": "9s 9h 9d Jd Qs"})
    assert refused.value.code == "not_a_combination"
    with pytest.raises(services.GameActionRefused) as refused:
        services.game_act(game=position_game, seat=1, action={"play": "Jd"})
    assert refused.value.code == "does_not_beat"
    assert "does not beat" in refused.value.message
    assert GameEvent.objects.filter(game=position_game).count() == 1


def test_game_act_refuses_after_the_end(position_game: Game, trio: list[User]) -> None:
    play_out(position_game, seed=3)
    position_game.refresh_from_db()
    assert position_game.status == Game.Status.FINISHED
    events = GameEvent.objects.filter(game=position_game).count()
    balances = [balance(user) for user in trio]
    ledger = LedgerEntry.objects.count()
    for seat in range(3):
        with pytest.raises(services.GameActionRefused) as refused:
            services.game_act(game=position_game, seat=seat, action={"pass": True})
        assert refused.value.code == "game_over"
    assert GameEvent.objects.filter(game=position_game).count() == events
    assert [balance(user) for user in trio] == balances
    assert LedgerEntry.objects.count() == ledger


def test_the_last_play_finishes_and_settles_the_game(table: Table, trio: list[User]) -> None:
    game = services.game_start(table=table, players=trio, seed=SEED)
    events = play_out(game, seed=11)
    assert [event.number for event in events] == list(range(1, len(events) + 1))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.finished_at is not None and game.settled_at is not None
    assert game.winner == events[-1].seat
    assert sum(game.result["coins"]) == 0
    assert sum(balance(user) for user in trio) == 300_000


def test_export_then_replay_with_the_command_line(
    table: Table, trio: list[User], tmp_path: Path
) -> None:
    """A whole game through game_act; its exported record replays to the stored result."""
    game = services.game_start(table=table, players=trio, seed=SEED)
    play_out(game, seed=7)
    game.refresh_from_db()
    record = selectors.game_record(game=game)
    assert record["seed"] == SEED  # over: the seed is in the record and checked by the replay
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")

    run = subprocess.run(
        [sys.executable, "-m", "games.rules", "replay", str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    output = json.loads(run.stdout)
    assert output["ok"] is True
    assert output["applied"] == len(record["actions"]) == game.events.count()
    stored = game.result
    assert output["result"] == {key: stored[key] for key in output["result"]}
    assert set(output["result"]) == {"winner", "multiplier", "spring", "payments"}
    assert output["result"]["winner"] == game.winner


def test_services_take_keyword_arguments_only(position_game: Game) -> None:
    with pytest.raises(TypeError):
        services.game_act(position_game, 0, {"pass": True})  # type: ignore[misc]
    with pytest.raises(TypeError):
        services.game_settle(position_game)  # type: ignore[misc]


def test_a_player_with_too_few_coins_to_sit_is_still_settled(table: Table) -> None:
    poor = make_player("poor", coins=0)
    others = [make_player("rich1"), make_player("rich2")]
    game = services.game_start(table=table, players=[poor, *others], seed=99)
    play_out(game, seed=5)
    game.refresh_from_db()
    assert balance(poor) >= 0
    assert sum(game.result["coins"]) == 0
