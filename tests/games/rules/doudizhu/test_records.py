"""Records (``doudizhu-record/1``): the golden files replay to their recorded results and
round-trip to the byte; the platform's two ways of writing a record agree; bad records are
refused with a message that says what and where."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from games.rules.doudizhu import ENGINE, GameRecord, GameState, RecordError
from games.rules.doudizhu.game import deal_from_seed

RECORDS = Path(__file__).parent / "records"
GOLDEN = sorted(RECORDS.glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_record(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    record = GameRecord.loads(text)
    assert record.dumps() == text  # the writer gives back the file itself
    result = record.replay()
    meta = json.loads(text)["meta"]
    if "error" in meta:
        assert not result.ok and result.error is not None
        assert {"index": result.error.index, "code": result.error.code} == meta["error"]
        assert result.settlement is None
    else:
        assert result.ok and result.settlement is not None
        assert result.settlement.to_json() == meta["expected"]
        again = GameRecord.from_state(result.state, base=record.base, seed=record.seed)
        assert again.to_json() | {"meta": meta} == json.loads(text)


def test_the_redeal_record_keeps_both_deals() -> None:
    data = json.loads((RECORDS / "redeal_game.json").read_text(encoding="utf-8"))
    first, second = data["deals"]
    assert second["seed"] == deal_from_seed(first["seed"]).next_seed
    words = [a.get("bid") for a in data["actions"][:4]]
    assert words == [None, "no_call", "no_call", "no_call"]


def test_record_from_deal_is_record_to_json() -> None:
    for path in GOLDEN:
        data = json.loads(path.read_text(encoding="utf-8"))
        result = GameRecord.from_json(data).replay()
        if not result.ok:
            continue
        state = result.state
        seed = data.get("seed")
        actions = [(seat, ENGINE.action_to_json(a)) for seat, a in state.history]
        written = ENGINE.record_from_deal(
            options=state.rules, deal=ENGINE.deal_to_json(state), actions=actions,
            base=data["base"], seed=seed, meta={"x": 1},
        )  # fmt: skip
        assert written == ENGINE.record_to_json(state, base=data["base"], seed=seed, meta={"x": 1})
        assert ENGINE.replay_record(written).state == state


def base_record() -> dict[str, Any]:
    return json.loads((RECORDS / "spring.json").read_text(encoding="utf-8"))


def broken(change: Any) -> str:
    data = base_record()
    change(data)
    with pytest.raises(RecordError) as info:
        GameRecord.from_json(data)
    return str(info.value)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="gandengyan-record/1"), '"format" must be'),
        (lambda d: d.update(extra=1), "unknown field(s) 'extra'"),
        (lambda d: d.update(rules={"players": 4}), '"rules": unknown rules option'),
        (lambda d: d.update(base=0), '"base" must be a positive whole number'),
        (lambda d: d.update(coins=[1, 2]), '"coins" must be a list of 3'),
        (lambda d: d.update(deals=[]), '"deals" must be a non-empty list'),
        (lambda d: d["deals"][0].update(first_bidder=3), '"first_bidder" must be a seat'),
        (lambda d: d["deals"][0]["hands"].pop(), '"hands" must be a list of 3'),
        (lambda d: d["deals"][0]["hands"].__setitem__(0, "3s"), "must hold 17 cards, not 1"),
        (lambda d: d["deals"][0].update(bottom="Ad BJ 3s"), "card 3s appears twice"),
        (lambda d: d["deals"][0].update(bottom="Ad BJ Xx"), "is not a card"),
        (lambda d: d["deals"][0].update(seed=1), 'are not the deal of its "seed"'),
        (lambda d: d.update(seed=5), '"seed" must be the seed of the first deal'),
        (lambda d: d.update(actions={}), '"actions" must be a list'),
        (lambda d: d["actions"].append({"seat": 3, "pass": True}), '"seat" must be a seat'),
        (lambda d: d["actions"].append({"seat": 1, "bid": "maybe"}), '"bid" is one of'),
        (lambda d: d["actions"].append({"seat": 1, "as": "3"}), "unknown field(s) 'as'"),
        (lambda d: d.update(meta=[]), '"meta" must be an object'),
    ],
)
def test_malformed_records(change: Any, message: str) -> None:
    assert message in broken(change)


def test_illegal_actions_stop_the_replay() -> None:
    data = base_record()
    data["actions"][1] = {"seat": 1, "bid": "call"}
    result = GameRecord.from_json(data).replay()
    assert not result.ok and result.applied == 1
    assert result.error is not None and result.error.code == "not_your_turn"
    data = base_record()
    data["actions"] = data["actions"][:5] + [{"seat": 1, "show": "bottom"}]
    error = GameRecord.from_json(data).replay().error
    assert error is not None and error.code == "landlord_only"


def test_a_seeded_game_and_its_coins_round_trip() -> None:
    from games.rules.doudizhu import DoudizhuRules

    state = GameState.deal(99, rules=DoudizhuRules(double_threshold=10), coins=(50, 5, 50))
    record = ENGINE.record_to_json(state, base=3, seed=99)
    assert record["coins"] == [50, 5, 50] and record["rules"] == {"double_threshold": 10}
    assert ENGINE.replay_record(copy.deepcopy(record)).state == state
    with pytest.raises(ValueError):
        ENGINE.record_to_json(state, base=3, seed=98)
