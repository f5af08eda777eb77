"""The engine's command line, run as a program: ``python -m games.rules replay|legal|simulate``.

Every command line the tests need is declared up front in ``CALLS`` and run once per test session,
a few at a time (``runs``); the tests then read the results.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from games.rules.cards import format_ranks, parse_cards, parse_ranks

REPO = Path(__file__).resolve().parents[4]
RECORDS = Path(__file__).parent / "records"

STATE_KEYS = {"to_move", "hands", "stock", "table", "multiplier"}
TABLE_KEYS = {"seat", "cards", "kind", "rank"}
RESULT_KEYS = {"winner", "multiplier", "spring", "payments"}


def record(hands, stock="", dealer=0, actions=(), **extra) -> dict:
    return {
        "format": "gandengyan-record/1",
        "rules": {},
        "base": 400,
        "dealer": dealer,
        "hands": list(hands),
        "stock": stock,
        "actions": list(actions),
        **extra,
    }


class Text(str):
    """Raw file contents for a record (not necessarily JSON)."""


MISSING = object()

#: key -> (command line before the record path, record: a golden file, a dict, Text, MISSING or
#: None for no record at all)
CALLS: dict[str, tuple[tuple[str, ...], object]] = {}


def call(key: str, args: tuple[str, ...], source: object) -> str:
    CALLS[key] = (args, source)
    return key


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games.rules", *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, subprocess.CompletedProcess[str]]:
    folder = tmp_path_factory.mktemp("cli")
    command_lines = {}
    for number, (key, (args, source)) in enumerate(sorted(CALLS.items())):
        path = folder / f"record-{number}.json"
        if isinstance(source, Path):
            path = source
        elif isinstance(source, Text):
            path.write_text(source, encoding="utf-8")
        elif isinstance(source, dict):
            path.write_text(json.dumps(source), encoding="utf-8")
        elif source is MISSING:
            path = folder / "no-such-record.json"
        command_lines[key] = [*args] if source is None else [*args, path]
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {key: pool.submit(cli, *line) for key, line in command_lines.items()}
        return {key: future.result() for key, future in futures.items()}


def one_json(stdout: str):
    """The output must be exactly one JSON value on one line."""
    assert stdout.endswith("\n")
    assert stdout.count("\n") == 1, stdout
    return json.loads(stdout)


def check_replay_shape(output) -> None:
    assert set(output) == {"ok", "applied", "error", "state", "result"}
    assert isinstance(output["ok"], bool)
    assert isinstance(output["applied"], int)
    state = output["state"]
    assert set(state) == STATE_KEYS
    assert state["to_move"] in (None, 0, 1, 2)
    assert len(state["hands"]) == 3 and all(isinstance(h, str) for h in state["hands"])
    for hand in state["hands"]:
        cards = parse_cards(hand)
        assert " ".join(str(c) for c in sorted(cards)) == hand  # canonical
    assert isinstance(state["stock"], int)
    assert isinstance(state["multiplier"], int)
    if state["table"] is not None:
        assert set(state["table"]) == TABLE_KEYS
        assert state["table"]["seat"] in (0, 1, 2)
    if output["error"] is None:
        assert output["ok"] is True
    else:
        assert output["ok"] is False
        assert set(output["error"]) == {"index", "code", "message"}
        assert output["error"]["index"] == output["applied"]
        assert output["result"] is None  # no result when an action was illegal
    result = output["result"]
    if result is not None:
        assert set(result) == RESULT_KEYS
        assert state["to_move"] is None
        payments = result["payments"]
        assert sum(payments) == 0
        assert payments[result["winner"]] > 0
        assert all(p < 0 for seat, p in enumerate(payments) if seat != result["winner"])
        assert result["multiplier"] == state["multiplier"]


def replayed(runs, key: str, status: int):
    done = runs[key]
    assert done.returncode == status, done.stderr
    output = one_json(done.stdout)
    check_replay_shape(output)
    return output


# replay of the golden records --------------------------------------------------------------------

#: (exit status, applied, error code, to_move, table (seat, cards, kind, rank), payments)
REPLAY = {
    "settlement_example_1.json": (0, 7, None, None, (0, "9c", "single", 9), [3200, -1200, -2000]),
    "settlement_example_2.json": (0, 7, None, None, (1, "9c", "single", 9), [-4000, 8800, -4800]),
    "settlement_example_3.json": (
        0,
        7,
        None,
        None,
        (2, "9c", "single", 9),
        [-6400, -12800, 19200],
    ),
    "spec_example.json": (0, 3, None, 0, (2, "5s 6h BJ", "straight", 4), None),
    "lone_joker_ending.json": (0, 15, None, None, (2, "BJ", "single", 16), [-400, -400, 800]),
    "seeded_game_54.json": (0, 67, None, None, None, [-9600, 38400, -28800]),
    "illegal_does_not_beat.json": (1, 3, "does_not_beat", 0, (2, "5d", "single", 5), None),
    "illegal_as_does_not_beat.json": (
        1,
        2,
        "does_not_beat",
        2,
        (0, "3s 4h 5d", "straight", 3),
        None,
    ),
    "illegal_after_the_end.json": (1, 7, "game_over", None, (0, "9c", "single", 9), None),
    "docs_example.json": (0, 15, None, None, (2, "Ad", "single", 14), [-3200, -1600, 4800]),
}
for _name in REPLAY:
    call(f"replay {_name}", ("replay",), RECORDS / _name)


def test_every_golden_record_is_replayed():
    assert sorted(p.name for p in RECORDS.glob("*.json")) == sorted(REPLAY)


@pytest.mark.parametrize("name", sorted(REPLAY))
def test_replay_of_a_golden_record(name, runs):
    status, applied, code, to_move, table, payments = REPLAY[name]
    output = replayed(runs, f"replay {name}", status)
    assert output["ok"] is (status == 0)
    assert output["applied"] == applied
    if code is None:
        assert output["error"] is None
    else:
        assert output["error"]["code"] == code
        assert output["error"]["message"]
    assert output["state"]["to_move"] == to_move
    if table is not None:
        seat, cards, kind, rank = table
        assert output["state"]["table"] == {
            "seat": seat,
            "cards": cards,
            "kind": kind,
            "rank": rank,
        }
    if payments is None:
        assert output["result"] is None
    else:
        assert output["result"]["payments"] == payments


def test_replay_reports_the_state_of_the_spec_example(runs):
    output = replayed(runs, "replay spec_example.json", 0)
    assert output["state"] == {
        "to_move": 0,
        "hands": ["6c 7s 8h", "9s 9h Tc Jd Qs", "Ks 2d"],
        "stock": 3,
        "table": {"seat": 2, "cards": "5s 6h BJ", "kind": "straight", "rank": 4},
        "multiplier": 1,
    }
    assert output["result"] is None


def test_replay_reports_the_result_of_worked_example_2(runs):
    output = replayed(runs, "replay settlement_example_2.json", 0)
    assert output["result"] == {
        "winner": 1,
        "multiplier": 2,
        "spring": [False, False, True],
        "payments": [-4000, 8800, -4800],
    }
    assert output["state"]["hands"] == ["6d 8d Td Qd 2d", "", "5h Jh Kh"]


def test_replay_of_a_successful_record_writes_nothing_on_stderr(runs):
    assert runs["replay spec_example.json"].stderr == ""


# replay of hand-made records ---------------------------------------------------------------------

_HANDS = ["3s 6s 9c", "4h 8h Th Qh", "5d 7d 9d Jd Kd 2d"]
_LEGAL = [{"seat": 0, "play": "3s"}, {"seat": 1, "play": "4h"}, {"seat": 2, "play": "5d"}]
call("replay three legal", ("replay",), record(_HANDS, actions=_LEGAL))
call(
    "replay then illegal",
    ("replay",),
    record(_HANDS, actions=[*_LEGAL, {"seat": 0, "play": "9c"}, {"seat": 1, "pass": True}]),
)


def test_replay_stops_at_the_illegal_action_with_the_state_before_it(runs):
    before = replayed(runs, "replay three legal", 0)
    output = replayed(runs, "replay then illegal", 1)
    assert output["applied"] == 3
    assert output["error"]["index"] == 3
    assert output["error"]["code"] == "does_not_beat"
    assert output["state"] == before["state"]


call(
    "replay after the end",
    ("replay",),
    record(["3s", "4s", "5s"], actions=[{"seat": 0, "play": "3s"}, {"seat": 1, "pass": True}]),
)


def test_replay_of_an_action_after_the_end_is_illegal(runs):
    output = replayed(runs, "replay after the end", 1)
    assert output["applied"] == 1
    assert output["error"]["code"] == "game_over"
    assert output["state"]["to_move"] is None


_STRAIGHT_HANDS = ["5d 6d 7d 3c", "6s 7h BJ 9c", "Ks Kh"]
_STRAIGHT_LEAD = {"seat": 0, "play": "5d 6d 7d"}
call(
    "replay as does not beat",
    ("replay",),
    record(
        _STRAIGHT_HANDS, actions=[_STRAIGHT_LEAD, {"seat": 1, "play": "6s 7h BJ", "as": "5 6 7"}]
    ),
)
call(
    "replay without as",
    ("replay",),
    record(_STRAIGHT_HANDS, actions=[_STRAIGHT_LEAD, {"seat": 1, "play": "6s 7h BJ"}]),
)


def test_replay_of_an_as_that_does_not_beat_is_illegal(runs):
    output = replayed(runs, "replay as does not beat", 1)
    assert output["applied"] == 1
    assert output["error"]["code"] == "does_not_beat"
    table = output["state"]["table"]
    assert table == {"seat": 0, "cards": "5d 6d 7d", "kind": "straight", "rank": 5}


def test_replay_without_as_takes_the_meaning_that_beats(runs):
    output = replayed(runs, "replay without as", 0)
    table = output["state"]["table"]
    assert table == {"seat": 1, "cards": "6s 7h BJ", "kind": "straight", "rank": 6}


call(
    "replay out of turn",
    ("replay",),
    record(["3s", "4s", "5s"], actions=[{"seat": 2, "play": "5s"}]),
)


def test_replay_of_an_action_out_of_turn_is_illegal(runs):
    output = replayed(runs, "replay out of turn", 1)
    assert output["applied"] == 0
    assert output["error"]["code"] == "not_your_turn"


call(
    "replay bombs",
    ("replay",),
    record(
        ["7s 7h 7d 9c", "3s 3h 3d 3c 4h", "BJ RJ 5h 6h"],
        actions=[
            {"seat": 0, "play": "7s 7h 7d"},
            {"seat": 1, "play": "3s 3h 3d 3c"},
            {"seat": 2, "play": "BJ RJ"},
            {"seat": 0, "pass": True},
            {"seat": 1, "pass": True},
            {"seat": 2, "play": "5h"},
            {"seat": 0, "pass": True},
            {"seat": 1, "pass": True},
            {"seat": 2, "play": "6h"},
        ],
    ),
)


def test_replay_result_of_a_game_with_three_bombs(runs):
    output = replayed(runs, "replay bombs", 0)
    assert output["state"]["multiplier"] == 64
    assert output["result"] == {
        "winner": 2,
        "multiplier": 64,
        "spring": [False, False, False],
        "payments": [-400 * 64, -400 * 64, 800 * 64],
    }


call(
    "replay spring",
    ("replay",),
    record(["3s", "4s 5s 6s", "7s 8s 9s Ts Js"], actions=[{"seat": 0, "play": "3s"}]),
)


def test_replay_result_with_two_spring_losers(runs):
    output = replayed(runs, "replay spring", 0)
    assert output["result"] == {
        "winner": 0,
        "multiplier": 1,
        "spring": [False, True, True],
        "payments": [6400, -2400, -4000],
    }


# malformed records -------------------------------------------------------------------------------

_BASE = {"format": "gandengyan-record/1", "base": 400, "dealer": 0, "stock": ""}
MALFORMED = {
    "not-json": Text("{ this is not JSON"),
    "not-an-object": Text("[1, 2, 3]"),
    "wrong-format": {**_BASE, "format": "gandengyan-record/9", "hands": ["3s", "4s", "5s"]},
    "bad-card": {**_BASE, "hands": ["3s", "4s", "5x"]},
    "card-twice": {**_BASE, "hands": ["3s", "4s", "5s"], "stock": "3s"},
    "play-and-pass": {
        **_BASE,
        "hands": ["3s", "4s", "5s"],
        "actions": [{"seat": 0, "play": "3s", "pass": True}],
    },
    "bad-as": {
        **_BASE,
        "hands": ["3s 4s 5s", "6s", "7s"],
        "actions": [{"seat": 0, "play": "3s 4s 5s", "as": "3 4 X"}],
    },
    "missing-file": MISSING,
}
for _case, _source in MALFORMED.items():
    call(f"replay malformed {_case}", ("replay",), _source)
for _case in ("not-json", "bad-card", "play-and-pass", "missing-file"):
    call(f"legal malformed {_case}", ("legal",), MALFORMED[_case])


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_replay_of_a_malformed_record_exits_2_with_a_message_on_stderr(case, runs):
    done = runs[f"replay malformed {case}"]
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip()


@pytest.mark.parametrize("case", ["not-json", "bad-card", "play-and-pass", "missing-file"])
def test_legal_of_a_malformed_record_exits_2_with_a_message_on_stderr(case, runs):
    done = runs[f"legal malformed {case}"]
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip()


@pytest.mark.parametrize(
    ("case", "words"),
    [
        ("not-json", ["JSON"]),
        ("wrong-format", ["format"]),
        ("bad-card", ["5x"]),
        ("card-twice", ["3s", "twice"]),
        ("play-and-pass", ["play", "pass"]),
        ("bad-as", ["X"]),
    ],
)
def test_malformed_message_says_what_is_wrong(case, words, runs):
    message = runs[f"replay malformed {case}"].stderr
    for word in words:
        assert word in message


# legal -------------------------------------------------------------------------------------------


def legal_output(runs, key: str) -> list[dict]:
    done = runs[key]
    assert done.returncode == 0, done.stderr
    output = one_json(done.stdout)
    assert isinstance(output, list)
    for action in output:
        if "pass" in action:
            assert action == {"pass": True}
        else:
            assert set(action) == {"play", "as"}
            # "as" lists the represented ranks ascending
            assert action["as"] == format_ranks(parse_ranks(action["as"]))
            assert action["play"] == " ".join(str(c) for c in sorted(parse_cards(action["play"])))
    return output


def distinct(actions: list[dict]) -> Counter:
    """Each action by what makes it distinct: the ranks played (jokers apart) and the meaning."""
    keys: Counter = Counter()
    for action in actions:
        if "pass" in action:
            keys["pass"] += 1
        else:
            ranks = " ".join(c.rank.symbol for c in sorted(parse_cards(action["play"])))
            keys[(ranks, action["as"])] += 1
    return keys


call(
    "legal spec hand",
    ("legal",),
    record(
        ["3s 4h 5d 6c 7s 8h", "9s 9h Tc Jd Qs", "5s 6h BJ"],
        stock="Ad 6s 7h",
        actions=[{"seat": 0, "play": "3s 4h 5d"}, {"seat": 1, "pass": True}],
    ),
)


def test_legal_follows_3_4_5_with_5_6_joker_as_4_5_6(runs):
    output = legal_output(runs, "legal spec hand")
    assert output == [{"pass": True}, {"play": "5s 6h BJ", "as": "4 5 6"}]


call("legal spec example", ("legal",), RECORDS / "spec_example.json")


def test_legal_of_the_spec_example_record(runs):
    # seat 0 holds 6c 7s 8h: 6-7-8 does not beat 4-5-6
    assert legal_output(runs, "legal spec example") == [{"pass": True}]


call("legal lead 5 5 6 BJ", ("legal",), record(["5s 5h 6d BJ", "9s 9h", "Ks Kh"], stock="Ad"))


def test_legal_leading_with_a_joker_lists_every_distinct_action(runs):
    output = legal_output(runs, "legal lead 5 5 6 BJ")
    assert {"pass": True} not in output  # the leader may not pass
    assert distinct(output) == Counter(
        {
            ("5", "5"): 1,
            ("6", "6"): 1,
            ("5 5", "5 5"): 1,
            ("5 BJ", "5 5"): 1,
            ("6 BJ", "6 6"): 1,
            ("5 6 BJ", "4 5 6"): 1,
            ("5 6 BJ", "5 6 7"): 1,
            ("5 5 6 BJ", "5 5 6 6"): 1,
            ("5 5 BJ", "5 5 5"): 1,
        }
    )
    assert len(output) == 9
    hand = set(parse_cards("5s 5h 6d BJ"))
    assert all(set(parse_cards(action["play"])) <= hand for action in output)
    # The documented order: kind, length, rank; natural cards first, lowest suits.
    assert output == [
        {"play": "5s", "as": "5"},
        {"play": "6d", "as": "6"},
        {"play": "5s 5h", "as": "5 5"},
        {"play": "5s BJ", "as": "5 5"},
        {"play": "6d BJ", "as": "6 6"},
        {"play": "5s 6d BJ", "as": "4 5 6"},
        {"play": "5s 6d BJ", "as": "5 6 7"},
        {"play": "5s 5h 6d BJ", "as": "5 5 6 6"},
        {"play": "5s 5h BJ", "as": "5 5 5"},
    ]


call("legal lead 7 7 BJ RJ", ("legal",), record(["7s 7h BJ RJ", "9s 9h", "Ks Kh"], stock="Ad"))


def test_legal_treats_the_two_jokers_apart_and_suits_as_one(runs):
    output = legal_output(runs, "legal lead 7 7 BJ RJ")
    assert distinct(output) == Counter(
        {
            ("7", "7"): 1,  # 7s or 7h: one action
            ("7 7", "7 7"): 1,
            ("7 BJ", "7 7"): 1,
            ("7 RJ", "7 7"): 1,
            ("7 7 BJ", "7 7 7"): 1,
            ("7 7 RJ", "7 7 7"): 1,
            ("BJ RJ", "BJ RJ"): 1,
        }
    )
    assert output == [
        {"play": "7s", "as": "7"},
        {"play": "7s 7h", "as": "7 7"},
        {"play": "7s BJ", "as": "7 7"},
        {"play": "7s RJ", "as": "7 7"},
        {"play": "7s 7h BJ", "as": "7 7 7"},
        {"play": "7s 7h RJ", "as": "7 7 7"},
        {"play": "BJ RJ", "as": "BJ RJ"},
    ]


call("legal lead 5 7 BJ", ("legal",), record(["5s 7h BJ", "9s 9h", "Ks Kh"], stock="Ad"))


def test_legal_fills_a_straight_gap_with_the_joker(runs):
    output = legal_output(runs, "legal lead 5 7 BJ")
    assert output == [
        {"play": "5s", "as": "5"},
        {"play": "7h", "as": "7"},
        {"play": "5s BJ", "as": "5 5"},
        {"play": "7h BJ", "as": "7 7"},
        {"play": "5s 7h BJ", "as": "5 6 7"},
    ]


call(
    "legal on single 9",
    ("legal",),
    record(["9s 3c", "Th Td 2c BJ", "Ks Kh"], stock="Ad", actions=[{"seat": 0, "play": "9s"}]),
)


def test_legal_following_a_single_9(runs):
    output = legal_output(runs, "legal on single 9")
    assert output[0] == {"pass": True}
    assert distinct(output) == Counter(
        {"pass": 1, ("T", "T"): 1, ("2", "2"): 1, ("T T BJ", "T T T"): 1}
    )
    assert output == [
        {"pass": True},
        {"play": "Th", "as": "T"},
        {"play": "2c", "as": "2"},
        {"play": "Th Td BJ", "as": "T T T"},
    ]


call(
    "legal on pair 5",
    ("legal",),
    record(
        ["5s 5h 3c", "6s 6h BJ RJ", "Ks Kh"], stock="Ad", actions=[{"seat": 0, "play": "5s 5h"}]
    ),
)


def test_legal_following_a_pair_of_5s(runs):
    output = legal_output(runs, "legal on pair 5")
    assert distinct(output) == Counter(
        {
            "pass": 1,
            ("6 6", "6 6"): 1,
            ("6 BJ", "6 6"): 1,
            ("6 RJ", "6 6"): 1,
            ("6 6 BJ", "6 6 6"): 1,
            ("6 6 RJ", "6 6 6"): 1,
            ("BJ RJ", "BJ RJ"): 1,
        }
    )
    assert output == [
        {"pass": True},
        {"play": "6s 6h", "as": "6 6"},
        {"play": "6s BJ", "as": "6 6"},
        {"play": "6s RJ", "as": "6 6"},
        {"play": "6s 6h BJ", "as": "6 6 6"},
        {"play": "6s 6h RJ", "as": "6 6 6"},
        {"play": "BJ RJ", "as": "BJ RJ"},
    ]


call(
    "legal on straight 5 6 7",
    ("legal",),
    record(_STRAIGHT_HANDS, actions=[_STRAIGHT_LEAD]),
)


def test_legal_following_a_straight_names_the_one_meaning_that_beats(runs):
    output = legal_output(runs, "legal on straight 5 6 7")
    assert output == [{"pass": True}, {"play": "6s 7h BJ", "as": "6 7 8"}]


call(
    "legal lone joker",
    ("legal",),
    record(["As 3c", "RJ", "Ks Kh"], actions=[{"seat": 0, "play": "As"}]),
)
call(
    "legal lone joker with stock",
    ("legal",),
    record(["As 3c", "RJ", "Ks Kh"], stock="Qd", actions=[{"seat": 0, "play": "As"}]),
)


def test_legal_with_a_lone_last_joker_and_an_empty_stock(runs):
    output = legal_output(runs, "legal lone joker")
    assert output == [{"pass": True}, {"play": "RJ", "as": "2"}]


def test_legal_with_a_lone_joker_while_the_stock_has_cards(runs):
    assert legal_output(runs, "legal lone joker with stock") == [{"pass": True}]


call("legal lone joker leads", ("legal",), record(["RJ", "9s 9h", "Ks Kh"]))


def test_legal_with_a_lone_last_joker_leading(runs):
    assert legal_output(runs, "legal lone joker leads") == [{"play": "RJ", "as": "3"}]


call("legal ended", ("legal",), RECORDS / "settlement_example_1.json")


def test_legal_after_the_end_of_the_game_is_empty(runs):
    assert legal_output(runs, "legal ended") == []


_ILLEGAL = [
    "illegal_does_not_beat.json",
    "illegal_as_does_not_beat.json",
    "illegal_after_the_end.json",
]
for _name in _ILLEGAL:
    call(f"legal {_name}", ("legal",), RECORDS / _name)


@pytest.mark.parametrize("name", _ILLEGAL)
def test_legal_on_a_record_with_an_illegal_action_exits_1(name, runs):
    done = runs[f"legal {name}"]
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip()


# legal and replay under house rules ------------------------------------------------------------

call(
    "legal twos jump pairs",
    ("legal",),
    record(
        ["5s 5h 9c", "2s 2h 7s 7h BJ", "Kc"],
        actions=[{"seat": 0, "play": "5s 5h"}],
        rules={"twos_jump_pairs": True},
    ),
)
call(
    "legal standard pairs",
    ("legal",),
    record(["5s 5h 9c", "2s 2h 7s 7h BJ", "Kc"], actions=[{"seat": 0, "play": "5s 5h"}]),
)
call(
    "legal joker not two",
    ("legal",),
    record(["2s 2h BJ", "9s", "Kc"], rules={"joker_not_two": True}),
)
call(
    "legal lone joker may not lead",
    ("legal",),
    record(["RJ", "9s 9h", "Ks Kh"], rules={"lone_joker_last": False}),
)
_STALL = record(
    ["3s BJ", "RJ"],
    actions=[{"seat": 0, "play": "3s"}],
    rules={"players": 2, "lone_joker_last": False},
)
call("replay two lone jokers", ("replay",), _STALL)
call("legal two lone jokers", ("legal",), _STALL)
call(
    "replay pair straight refused",
    ("replay",),
    record(
        ["5s 5h 6s 6h 9c", "Ks", "Kc"],
        actions=[{"seat": 0, "play": "5s 5h 6s 6h"}],
        rules={"pair_straights": False},
    ),
)


def test_legal_follows_the_records_rules(runs):
    standard = legal_output(runs, "legal standard pairs")
    jump = legal_output(runs, "legal twos jump pairs")
    assert standard == [
        {"pass": True},
        {"play": "7s 7h BJ", "as": "7 7 7"},
        {"play": "2s 2h BJ", "as": "2 2 2"},
    ]
    assert jump == [
        {"pass": True},
        {"play": "2s 2h", "as": "2 2"},
        {"play": "2s BJ", "as": "2 2"},
        *standard[1:],
    ]
    assert legal_output(runs, "legal joker not two") == [
        {"play": "2s", "as": "2"},
        {"play": "2s 2h", "as": "2 2"},
    ]
    assert legal_output(runs, "legal lone joker may not lead") == [{"pass": True}]


def test_replay_of_a_deal_with_no_winner(runs):
    done = runs["replay two lone jokers"]
    assert done.returncode == 0, done.stderr
    output = one_json(done.stdout)
    assert output["ok"] and output["state"]["to_move"] is None
    assert output["result"] == {
        "winner": None,
        "multiplier": 1,
        "spring": [False, False],
        "payments": [0, 0],
    }
    assert legal_output(runs, "legal two lone jokers") == []


def test_replay_refuses_what_the_records_rules_refuse(runs):
    done = runs["replay pair straight refused"]
    assert done.returncode == 1
    assert one_json(done.stdout)["error"]["code"] == "not_a_combination"


# simulate ----------------------------------------------------------------------------------------

TIMING_KEYS = {
    "seconds",
    "games_per_second",
    "legal_calls_per_second",
    "legal_median_us",
    "follow20_median_us",
    "lead20_median_us",
}
_SIMULATE = ("simulate", "--games", "20", "--seed", "3", "--json", "--follow20", "50")
call("simulate json", _SIMULATE, None)
call("simulate json again", _SIMULATE, None)
call(
    "simulate other seed",
    ("simulate", "--games", "20", "--seed", "4", "--json", "--follow20", "0"),
    None,
)
call("simulate text", ("simulate", "--games", "5", "--seed", "3", "--follow20", "0"), None)
call("unknown command", ("shuffle",), None)
call(
    "simulate house rules",
    (
        "simulate",
        "--games",
        "30",
        "--seed",
        "2",
        "--json",
        "--follow20",
        "20",
        "--rules",
        '{"players": 2, "lone_joker_last": false, "bombs_any_higher": true, "joker_not_two": true}',
    ),
    None,
)
call("simulate bad rules", ("simulate", "--games", "1", "--rules", '{"players": 9}'), None)


def simulated(runs, key: str) -> dict:
    done = runs[key]
    assert done.returncode == 0, done.stderr
    report = one_json(done.stdout)
    assert isinstance(report, dict)
    return report


def test_simulate_json_reports_the_statistics(runs):
    report = simulated(runs, "simulate json")
    wanted = {"games", "seconds", "games_per_second", "legal_calls_per_second", "legal_median_us"}
    assert wanted <= set(report)
    assert report["games"] == 20
    for key in ("seconds", "games_per_second", "legal_calls_per_second", "legal_median_us"):
        assert isinstance(report[key], (int, float)) and report[key] >= 0
    assert report["games_per_second"] > 0
    assert report["legal_calls_per_second"] > 0


def test_simulate_with_the_same_seed_gives_the_same_statistics(runs):
    one, two = simulated(runs, "simulate json"), simulated(runs, "simulate json again")
    assert set(one) == set(two)
    same = {k: v for k, v in one.items() if k not in TIMING_KEYS}
    assert same == {k: v for k, v in two.items() if k not in TIMING_KEYS}
    assert same["games"] == 20
    assert len(same) > 1
    other = simulated(runs, "simulate other seed")
    assert {k: v for k, v in other.items() if k not in TIMING_KEYS} != same


def test_simulate_text_mode_prints_lines(runs):
    done = runs["simulate text"]
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) >= 3
    assert any(line.startswith("games") for line in lines)
    with pytest.raises(json.JSONDecodeError):
        json.loads(done.stdout)


def test_simulate_under_house_rules(runs):
    report = simulated(runs, "simulate house rules")
    assert report["games"] == 30 and len(report["wins_by_seat"]) == 2
    assert sum(report["wins_by_seat"]) + report["no_winner"] == 30
    bad = runs["simulate bad rules"]
    assert bad.returncode == 2 and "'players' must be" in bad.stderr and bad.stdout == ""


def test_unknown_command_exits_2(runs):
    done = runs["unknown command"]
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip()


def test_the_package_runs_the_same_command_line():
    golden = RECORDS / "settlement_example_2.json"
    as_package = subprocess.run(
        [sys.executable, "-m", "games.rules.gandengyan", "replay", str(golden)],
        cwd=REPO,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert as_package.returncode == 0, as_package.stderr
    assert as_package.stdout == cli("replay", golden).stdout
    usage = subprocess.run(
        [sys.executable, "-m", "games.rules.gandengyan", "nothing"],
        cwd=REPO,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert usage.returncode == 2
    assert usage.stderr.startswith("usage: python -m games.rules.gandengyan ")
