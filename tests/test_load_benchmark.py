"""The load test's machinery (``benchmarks.load``): its players act from the frames the tables
send, at 干瞪眼's and 斗地主's tables alike, its plan runs each game in steps of its own, and a
short 斗地主 run on a real worker plays through the deal, the bidding, 加倍 and the play with
nothing lost or refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from benchmarks.load import database
from benchmarks.load.__main__ import parse_args, plan
from benchmarks.load.clients import VERSION, Recorder, SeatClient, StepConfig, TableRun, _version
from benchmarks.load.report import StepResult, summary
from games import services
from games.consumers import _move_of, parse_intent
from games.frames import render_frame_and_version
from games.models import Game, GameEvent, Room, Table
from tests.games.helpers import make_player, make_room

GAMES_PLAYED = 3
STEPS_LIMIT = 2000


def _players(table_id: int) -> list[SeatClient]:
    """The load test's three players of a table, as a step makes them (not connected)."""
    config = StepConfig(
        kind="game", pace="flat", tables=1, duration=1, warmup=0, urls=["ws://127.0.0.1:1"]
    )
    seated = database.SeatedTable(table_id, ("one", "two", "three"))
    return TableRun(config, Recorder(), 0, seated).seats


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["gandengyan", "doudizhu"])
def test_the_players_play_whole_games_from_their_frames(game: str) -> None:
    """Each player reads only its own frame and sends what its page would; only the seat to
    move acts (the others have nothing to send), and at 斗地主's table nobody acts while the
    table's clock shows the deal, which its runner steps. Nothing is refused, and no player's
    time runs out."""
    room = make_room(code=database.ROOMS[game])
    Room.objects.filter(pk=room.pk).update(game=game, base=1, min_coins=0, turn_seconds=300)
    room.refresh_from_db()
    users = [make_player(f"{game}-{seat}") for seat in range(3)]
    table = None
    for user in users:
        table, _position = services.table_play(user=user, room=room)
    assert table is not None
    players = _players(table.pk)
    sent: Counter[str] = Counter()
    for _step in range(STEPS_LIMIT):
        table = Table.objects.select_related("room").get(pk=table.pk)
        if Game.objects.filter(table=table, status=Game.Status.FINISHED).count() == GAMES_PLAYED:
            break
        intents = []
        for seat, player in enumerate(players):
            frame, version = render_frame_and_version(table=table, seat=seat, language="zh-hans")
            match = VERSION.search(frame)
            assert match is not None and version == ".".join(match.groups())
            intent = player.intent(_version(match), frame)
            if intent is not None:
                intents.append((users[seat], intent))
        if not intents:
            # Nobody may act: the table's clock shows the next stage of the deal.
            playing = Game.objects.get(table=table, status=Game.Status.PLAYING)
            assert playing.turn_deadline is not None
            later = playing.turn_deadline + timedelta(seconds=0.01)
            assert services.game_turn_due(game=playing, now=later) is not None
            sent["the clock"] += 1
            continue
        for user, intent in intents:
            message = parse_intent(json.dumps({**intent, "action_id": uuid.uuid4().hex}))
            if message["action"] == "again":
                services.table_play_again(user=user, table=table)
                sent["again"] += 1
                continue
            assert len(intents) == 1, intents  # only the seat to move
            move = _move_of(message, table)
            assert move is not None
            services.table_game_act(user=user, table=table, action=move, version=message["version"])
            sent[next(iter(move))] += 1
    else:
        raise AssertionError(f"{GAMES_PLAYED} games were not played in {STEPS_LIMIT} steps")
    assert all(not player.recorder.errors for player in players)
    sources = Counter(GameEvent.objects.filter(game__table=table).values_list("source", flat=True))
    assert sent["play"] and sent["pass"] and sent["again"] >= 3 * (GAMES_PLAYED - 1)
    if game == "doudizhu":
        assert sent["bid"] >= GAMES_PLAYED and sent["double"] >= 3 * GAMES_PLAYED
        assert set(sources) == {"player", "clock"} and sources["clock"] == sent["the clock"]
    else:
        assert set(sources) == {"player"}


@pytest.mark.django_db
def test_before_a_step_the_players_clocks_are_wound_back_and_the_deals_left_due() -> None:
    """A 斗地主 table left idle past a player's deadline gets that player's time again, so that
    no runner acts for the player as the step begins; a table whose deal is being shown keeps
    its stage due."""
    room = make_room(code=database.ROOMS["doudizhu"])
    Room.objects.filter(pk=room.pk).update(game="doudizhu", turn_seconds=300)
    room.refresh_from_db()
    games = []
    for number in range(2):
        users = [make_player(f"ddz-{number}-{seat}") for seat in range(3)]
        table = None
        for user in users:
            table, _position = services.table_play(user=user, room=room)
        assert table is not None
        games.append(Game.objects.get(table=table, status=Game.Status.PLAYING))
    bidding, dealing = games
    for _stage in range(2):  # the clock shows the whole deal at the first table
        bidding.refresh_from_db()
        assert bidding.turn_deadline is not None
        later = bidding.turn_deadline + timedelta(seconds=0.01)
        assert services.game_turn_due(game=bidding, now=later) is not None
    long_ago = timezone.now() - timedelta(hours=1)
    Game.objects.filter(pk__in=[bidding.pk, dealing.pk]).update(turn_deadline=long_ago)
    seated = [database.SeatedTable(game.table_id, ("", "", "")) for game in games]

    assert database.clocks_wound_back(seated, seconds=300) == 1

    bidding.refresh_from_db()
    dealing.refresh_from_db()
    assert bidding.turn_deadline is not None and dealing.turn_deadline == long_ago
    assert bidding.turn_deadline > timezone.now() + timedelta(seconds=290)
    assert services.game_turn_due(game=bidding) is None
    assert services.game_turn_due(game=dealing) is not None


def test_a_notice_on_its_way_is_no_gap_once_it_lands_and_a_missed_one_is() -> None:
    """The books of a table compare its sockets' counts of group frames once every socket has
    the newest frame any of them got: a frame still on its way to one socket is waited for."""
    run = TableRun(
        StepConfig(kind="bare", pace="flat", tables=1, duration=1, warmup=0, urls=["ws://x"]),
        Recorder(),
        0,
        None,
    )
    for seat in run.seats:
        seat.first = (0, 0, 1)
        seat.group_versions = [(0, 0, 2), (0, 0, 3)]
    run.seats[2].group_versions.pop()  # the last notice is on its way to the third socket
    assert not run.settled()
    run.seats[2].group_versions.append((0, 0, 3))
    assert run.settled()
    run.close_books()
    assert run.recorder.gaps == 0
    for seat in run.seats:
        seat.group_versions.append((0, 0, 5))
    del run.seats[1].group_versions[-2]  # the second socket missed a notice, then got the next
    run.close_books()
    assert run.settled() and run.recorder.gaps == 1


def test_the_plan_runs_each_game_in_steps_of_its_own() -> None:
    """Flat out, each table count's bare step comes right before the games' steps it is
    compared with."""
    both = plan(parse_args(["--workers", "1", "--flat-tables", "5,10", "--human-tables", "20"]))
    assert [(step.kind, step.game, step.pace, step.tables) for step in both] == [
        ("bare", "", "flat", 5),
        ("game", "gandengyan", "flat", 5),
        ("game", "doudizhu", "flat", 5),
        ("bare", "", "flat", 10),
        ("game", "gandengyan", "flat", 10),
        ("game", "doudizhu", "flat", 10),
        ("game", "gandengyan", "human", 20),
        ("game", "doudizhu", "human", 20),
        ("bare", "", "human", 20),
    ]
    one = plan(parse_args(["--quick", "--games", "doudizhu", "--kind", "game"]))
    assert {(step.game, step.pace, step.tables) for step in one} == {
        ("doudizhu", "flat", 3),
        ("doudizhu", "human", 3),
    }
    with pytest.raises(SystemExit):
        parse_args(["--games", "shanghai"])


def _result(what: str, pace: str, tables: int, actions: float, p99: float) -> StepResult:
    return StepResult(
        workers=1, layer="redis", kind="bare" if what == "bare" else "game", pace=pace,
        tables=tables, sockets=3 * tables, connected=3 * tables, duration=10.0,
        actions_per_s=actions, sent_per_s=actions, p50_ms=p99 / 3, p95_ms=p99 / 2, p99_ms=p99,
        max_ms=p99, lost=0, gaps=0, out_of_order=0, skipped=0, games=1, again=3,
        frame_bytes=6000, game="" if what == "bare" else what,
        cpu={"daphne-1": 90.0},
    )  # fmt: skip


def test_the_report_holds_each_game_to_the_same_targets() -> None:
    results = [
        _result("bare", "flat", 50, 1000, 40),
        _result("gandengyan", "flat", 50, 500, 60),
        _result("doudizhu", "flat", 50, 400, 70),
        _result("gandengyan", "human", 150, 70, 90),
        _result("doudizhu", "human", 100, 50, 80),
        _result("doudizhu", "human", 150, 70, 200),
    ]
    lines = summary(results)
    assert "  干瞪眼 / bare transport, 1 worker(s): 50% (target ≥ 45%: met)" in lines
    assert "  斗地主 / bare transport, 1 worker(s): 40% (target ≥ 45%: NOT met)" in lines
    carried = [line for line in lines if line.startswith("human pace")]
    assert carried[0].startswith("human pace, 1 worker(s), 干瞪眼: carries 150 tables")
    assert carried[1].startswith("human pace, 1 worker(s), 斗地主: carries 100 tables")
    assert lines.count("  target ≥ 150 tables on one worker: met") == 1
    assert lines.count("  target ≥ 150 tables on one worker: NOT met") == 1
    # A result saved before there were two games is 干瞪眼's.
    assert StepResult(**{**results[1].__dict__, "game": ""}).label == "gdy"


def short_load_run(
    tmp_path: Path, database: str, options: list[str], queries: list[str]
) -> tuple[str, dict[str, Any], list[list[tuple[Any, ...]]]]:
    """A few seconds of one flat-out step of the load test on one worker (the in-memory channel
    layer, so that its runner is in the worker and no Redis database is flushed), with
    ``options`` beside those, in a database of its own named after the test database and
    ``database``: what the run printed, its step's result, and the rows of ``queries`` asked of
    that database before it is dropped."""
    params = connection.settings_dict
    name = f"{params['NAME']}_{database}"
    server = f"postgres://{params['USER']}@{params['HOST']}:{params['PORT']}"
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    command = [sys.executable, "-m", "benchmarks.load", "--quick", "--kind", "game"]
    command += ["--pace", "flat", "--tables", "2", "--warmup", "1", "--layer", "memory"]
    command += ["--database-url", f"{server}/{name}", "--out", str(tmp_path), *options]
    try:
        done = subprocess.run(
            command,
            cwd=settings.BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
        with psycopg.connect(f"{server}/{name}") as conn:
            rows = [conn.execute(query).fetchall() for query in queries]
    finally:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    (step,) = json.loads((tmp_path / "results.json").read_text())["steps"]
    assert step["errors"] == {} and step["refused"] == {}, step
    assert step["lost"] == step["gaps"] == step["out_of_order"] == 0
    assert step["actions_per_s"] > 0 and step["p99_ms"] is not None
    return done.stdout, step, rows


@pytest.mark.postgres
def test_a_short_doudizhu_load_run_plays_through_every_phase(tmp_path: Path) -> None:
    """A few seconds of 斗地主 tables flat out on one worker, whose runner shows the deal: the
    players bid, choose 加倍 and play, the clock only deals, and nothing is lost or refused."""
    printed, step, (events,) = short_load_run(
        tmp_path,
        "load",
        ["--games", "doudizhu", "--duration", "4"],
        [
            "SELECT source || ' ' || (SELECT min(key) FROM jsonb_object_keys(action) key),"
            " count(*) FROM games_gameevent GROUP BY 1"
        ],
    )
    made = dict(events)
    assert (step["kind"], step["game"], step["tables"]) == ("game", "doudizhu", 2)
    assert step["connected"] == step["sockets"] == 6
    assert "ddz" in printed and "斗地主" in printed
    phases = {"clock deal", "player bid", "player double", "player play", "player pass"}
    assert phases <= set(made) <= phases, made
    print(printed)  # what the run printed, for whoever runs the test with -s


@pytest.mark.postgres
def test_a_short_load_run_with_search_bots_at_every_table(tmp_path: Path) -> None:
    """A few seconds of 干瞪眼 tables of one scripted player and two hard bots on one worker,
    whose runner moves the bots, which think in the worker's thinking process: the player's
    moves are measured, the bots move, and nothing is lost or refused."""
    printed, step, (events, levels) = short_load_run(
        tmp_path,
        "load_bots",
        ["--games", "gandengyan-bots", "--duration", "6", "--bot-budget-ms", "40"],
        [
            "SELECT source, count(*) FROM games_gameevent GROUP BY 1",
            "SELECT bot_level, bot_budget_ms FROM games_room WHERE code = 'load-bots'",
        ],
    )
    made = dict(events)
    assert (step["kind"], step["game"], step["tables"]) == ("game", "gandengyan-bots", 2)
    assert step["connected"] == step["sockets"] == 2  # one player a table
    assert levels == [("hard", 40)]
    assert made.get("bot", 0) >= 2 and made.get("player", 0) >= 2, made
    assert set(made) <= {"bot", "player"}, made
    assert "gdy+bots" in printed


@pytest.mark.postgres
def test_a_short_load_run_of_the_bare_transport(tmp_path: Path) -> None:
    """The bare transport's sockets, which the games' figures are measured against, connect
    beside the site's own routes and carry every update."""
    _printed, step, _rows = short_load_run(
        tmp_path, "load_bare", ["--kind", "bare", "--duration", "2"], []
    )
    assert step["kind"] == "bare" and step["connected"] == step["sockets"] > 0
