"""Records (``shanghai-record/1``): stored games replay to the card and the coin, records
round-trip, and malformed ones are refused with a message that says where."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from games.rules.errors import RecordError
from games.rules.shanghai import ENGINE, GameRecord, GameState
from games.rules.shanghai.game import deal_from_seed
from tests.games.rules.shanghai.helpers import fixed_deal, fresh, run

RECORDS = Path(__file__).parent / "records"


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RECORDS / name).read_text(encoding="utf-8"))
    return data


def test_a_stored_game_with_a_redeal_replays() -> None:
    data = load("redeal_big.json")
    assert len(data["deals"]) == 2
    result = GameRecord.from_json(data).replay()
    assert result.ok and result.applied == len(data["actions"])
    state = result.state
    assert state.is_terminal and len(state.deals) == 2 and state.bid == "big"
    # Deal 2: seat 2 不叫, seat 3 小地主, seat 0 大地主; seat 1 never spoke.
    after_bidding = GameRecord.from_json({**data, "actions": data["actions"][:7]}).replay()
    assert after_bidding.state.bombs_left == (None, None, 1, 2)
    assert state.bombs_left == (None, None, 1, 1) and state.bombs_played == (0, 2, 0, 1)
    assert result.settlement is not None
    assert result.settlement.payments == (-900, 300, 300, 300)
    assert GameRecord.from_json(data).to_json() == data


def test_a_stored_record_is_what_the_record_writer_writes() -> None:
    text = (RECORDS / "redeal_big.json").read_text(encoding="utf-8")
    assert GameRecord.loads(text).dumps() == text


def test_an_illegal_bomb_stops_the_replay() -> None:
    result = ENGINE.replay_record(load("illegal_bomb_limit.json"))
    assert not result.ok and result.error is not None
    assert result.error.code == "bomb_limit"
    assert result.applied == len(load("illegal_bomb_limit.json")["actions"]) - 1
    assert result.settlement is None


def test_record_lists_redeals_without_replaying() -> None:
    data = load("redeal_big.json")
    stored = [(a["seat"], {k: v for k, v in a.items() if k != "seat"}) for a in data["actions"]]
    first = {"deals": data["deals"][:1]}
    rebuilt = ENGINE.record_from_deal(
        options=ENGINE.default_options, deal=first, actions=stored, base=100, seed=2026
    )
    assert rebuilt == data


def test_a_hand_written_deal_round_trips() -> None:
    state = run(fresh(2), (2, "no-bid"), (3, "no-bid"), (0, "big"))
    record = ENGINE.record_to_json(state, base=5)
    assert "seed" not in record and "seed" not in record["deals"][0]
    result = ENGINE.replay_record(record)
    assert result.ok and result.state == state
    assert ENGINE.deal_from_json(ENGINE.deal_to_json(state), ENGINE.default_options) == fresh(2)


def test_a_hand_written_redeal_is_used() -> None:
    hands, bottom = fixed_deal()
    later = deal_from_seed(77)
    state = GameState.from_position(hands, bottom, 0, upcoming=[later])
    state = run(state, (0, "no-bid"), (1, "no-bid"), (2, "no-bid"), (3, "no-bid"))
    assert state.current_deal == later
    record = ENGINE.record_to_json(state, base=1)
    assert len(record["deals"]) == 2
    assert ENGINE.replay_record(record).state == state


def broken(change: str) -> dict[str, Any]:
    data = copy.deepcopy(load("redeal_big.json"))
    deal = data["deals"][0]
    if change == "short hand":
        deal["hands"][0] = " ".join(deal["hands"][0].split()[:-1])
    elif change == "card twice":
        cards = deal["hands"][0].split()
        deal["hands"][1] = " ".join([cards[0], *deal["hands"][1].split()[1:]])
    elif change == "not the seed's":
        deal["hands"][0], deal["hands"][1] = deal["hands"][1], deal["hands"][0]
    elif change == "face up elsewhere":
        deal["first_bidder"] = 3
    elif change == "unknown field":
        data["players"] = 4
    elif change == "bad action":
        data["actions"][0] = {"seat": 0, "bid": "call"}
    elif change == "bad seat":
        data["actions"][0]["seat"] = 4
    elif change == "rules":
        data["rules"] = {"levels": 3}
    elif change == "format":
        data["format"] = "doudizhu-record/1"
    elif change == "bottom":
        deal["bottom"] = " ".join(deal["bottom"].split()[:7])
    elif change == "seed":
        data["seed"] = 5
    return data


@pytest.mark.parametrize(
    "change",
    [
        "short hand",
        "card twice",
        "not the seed's",
        "face up elsewhere",
        "unknown field",
        "bad action",
        "bad seat",
        "rules",
        "format",
        "bottom",
        "seed",
    ],
)
def test_malformed_records(change: str) -> None:
    with pytest.raises(RecordError):
        GameRecord.from_json(broken(change))
