"""The command line for 斗地主, run as a program: ``python -m games.rules`` reads the file's
format and hands 斗地主 records and positions to 斗地主's engine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[4]
RECORDS = Path(__file__).parent / "records"


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games.rules", *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


def position(tmp_path: Path, hand: str, table: str, **extra: object) -> Path:
    path = tmp_path / "position.json"
    data = {"format": "doudizhu-position/1", "hand": hand, "table": table, **extra}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_replay_a_record() -> None:
    run = cli("replay", RECORDS / "spring.json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["ok"] and out["applied"] == 19 and out["error"] is None
    assert out["state"]["phase"] == "over" and out["state"]["hands"][0] == ""
    assert out["result"]["payments"] == [1920, -1280, -640]
    assert out["result"]["spring"] == "spring"


def test_replay_an_illegal_record() -> None:
    run = cli("replay", RECORDS / "illegal_does_not_beat.json")
    assert run.returncode == 1
    out = json.loads(run.stdout)
    assert out["error"]["code"] == "does_not_beat" and out["result"] is None
    run = cli("legal", RECORDS / "illegal_does_not_beat.json")
    assert run.returncode == 1 and run.stdout == "" and "does_not_beat" in run.stderr


def test_legal_after_a_record(tmp_path: Path) -> None:
    data = json.loads((RECORDS / "spring.json").read_text(encoding="utf-8"))
    data["actions"] = data["actions"][:1]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    run = cli("legal", path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [
        {"bid": "call"},
        {"bid": "no_call"},
        {"show": "deal", "step": 17},
    ]


def test_legal_position_lead(tmp_path: Path) -> None:
    run = cli("legal", position(tmp_path, "3s 5h 5d 5c 6s 7s", ""))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [
        "3s", "5h", "6s", "7s", "5h 5d", "5h 5d 5c",
        "3s 5h 5d 5c", "5h 5d 5c 6s", "5h 5d 5c 7s",
    ]  # fmt: skip


def test_legal_position_follow(tmp_path: Path) -> None:
    run = cli("legal", position(tmp_path, "3s 5h 5d 5c 5s 9h 9d BJ RJ", "8s 8h"))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == ["pass", "9h 9d", "5s 5h 5d 5c", "BJ RJ"]
    run = cli("legal", position(tmp_path, "3s", "BJ RJ"))
    assert json.loads(run.stdout) == ["pass"]


@pytest.mark.parametrize(
    ("hand", "table", "extra", "message"),
    [
        ("3s 4s", "5s 6s", {}, "is not a combination"),
        ("3s 4s", "3s", {}, "one deck only"),
        ("3s 4x", "", {}, "is not a card"),
        ("3s", "", {"seat": 1}, "unknown field(s) 'seat'"),
    ],
)
def test_legal_position_errors(
    tmp_path: Path, hand: str, table: str, extra: dict[str, object], message: str
) -> None:
    run = cli("legal", position(tmp_path, hand, table, **extra))
    assert run.returncode == 2 and run.stdout == ""
    assert message in run.stderr and run.stderr.startswith("malformed record: ")


def test_simulate_doudizhu() -> None:
    run = cli("simulate", "--game", "doudizhu", "--games", "20", "--seed", "3", "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["game"] == "doudizhu" and out["games"] == 20 and out["games_per_second"] > 0
    again = json.loads(cli("simulate", "--game=doudizhu", "--games", "20", "--seed", "3",
                           "--json").stdout)  # fmt: skip
    assert again["actions_per_game"] == out["actions_per_game"]


def test_simulate_without_a_game_is_gandengyan() -> None:
    plain = json.loads(cli("simulate", "--games", "5", "--follow20", "0", "--json").stdout)
    named = cli("simulate", "--game", "gandengyan", "--games", "5", "--follow20", "0", "--json")
    assert "stock_ran_out" in plain
    assert json.loads(named.stdout)["wins_by_seat"] == plain["wins_by_seat"]


def test_the_doudizhu_module_runs_too() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "games.rules.doudizhu", "replay", str(RECORDS / "spring.json")],
        cwd=REPO, capture_output=True, text=True, encoding="utf-8", timeout=120,
    )  # fmt: skip
    assert run.returncode == 0 and json.loads(run.stdout)["ok"]
