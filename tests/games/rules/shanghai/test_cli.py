"""The command line for 上海斗地主, run as a program: ``python -m games.rules`` reads the file's
format and hands 上海斗地主 records and positions to its engine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
    data = {"format": "shanghai-position/1", "hand": hand, "table": table, **extra}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_replay_a_record() -> None:
    run = cli("replay", RECORDS / "redeal_big.json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["ok"] and out["error"] is None
    assert out["state"]["phase"] == "over" and out["state"]["deal_number"] == 2
    assert out["state"]["bid"] == "big" and out["state"]["hands"][2] == ""
    assert out["result"]["payments"] == [-900, 300, 300, 300]


def test_replay_an_illegal_record() -> None:
    run = cli("replay", RECORDS / "illegal_bomb_limit.json")
    assert run.returncode == 1
    out = json.loads(run.stdout)
    assert out["error"]["code"] == "bomb_limit" and out["result"] is None
    run = cli("legal", RECORDS / "illegal_bomb_limit.json")
    assert run.returncode == 1 and run.stdout == "" and "bomb_limit" in run.stderr


def test_legal_after_a_record(tmp_path: Path) -> None:
    data = json.loads((RECORDS / "redeal_big.json").read_text(encoding="utf-8"))
    data["actions"] = data["actions"][:5]  # four 不叫, then the new deal's first 不叫
    path = tmp_path / "record.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    run = cli("legal", path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [{"bid": "small"}, {"bid": "big"}, {"bid": "pass"}]


def test_legal_position_lead(tmp_path: Path) -> None:
    run = cli("legal", position(tmp_path, "As.1 As.2 2h 3s 4s 5s BJ BJ", ""))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [
        "3s.1", "4s.1", "5s.1", "As.1", "2h.1", "BJ.1",
        "As.1 As.2", "BJ.1 BJ.2",
        "3s.1 4s.1 5s.1 As.1 2h.1",
    ]  # fmt: skip


def test_legal_position_follow(tmp_path: Path) -> None:
    hand = "9s 9h 9d 9c 9s 5h 5d BJ BJ RJ RJ 8s"
    run = cli("legal", position(tmp_path, hand, "8s 8h"))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [
        "pass", "9s.1 9s.2", "BJ.1 BJ.2", "RJ.1 RJ.2",
        "9s.1 9s.2 9h.1 9d.1", "9s.1 9s.2 9h.1 9d.1 9c.1", "BJ.1 BJ.2 RJ.1 RJ.2",
    ]  # fmt: skip
    run = cli("legal", position(tmp_path, hand, "8s 8h", bombs_left=0))
    assert json.loads(run.stdout) == ["pass", "9s.1 9s.2", "BJ.1 BJ.2", "RJ.1 RJ.2"]
    run = cli("legal", position(tmp_path, hand, "8s 8h", bombs_left=None))
    assert len(json.loads(run.stdout)) == 7


def test_the_table_takes_the_other_copy(tmp_path: Path) -> None:
    run = cli("legal", position(tmp_path, "As 2s", "As"))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == ["pass", "2s.1"]
    run = cli("legal", position(tmp_path, "As As", "As"))
    assert run.returncode == 2 and "two decks" in run.stderr


def test_malformed_positions(tmp_path: Path) -> None:
    for extra in ({"bombs_left": -1}, {"bombs_left": "1"}, {"players": 4}):
        run = cli("legal", position(tmp_path, "3s", "", **extra))
        assert run.returncode == 2, extra
    run = cli("legal", position(tmp_path, "3s", "4s 5s"))
    assert run.returncode == 2 and "not a combination" in run.stderr


def test_simulate() -> None:
    run = cli("simulate", "--game", "shanghai", "--games", "5", "--seed", "3", "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["game"] == "shanghai" and out["games"] == 5
    run = cli("simulate", "--game=shanghai", "--games", "2")
    assert run.returncode == 0 and "games per second" in run.stdout


def test_the_game_s_own_module(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "games.rules.shanghai", "legal", position(tmp_path, "3s 3s", "")],
        cwd=REPO,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == ["3s.1", "3s.1 3s.2"]
