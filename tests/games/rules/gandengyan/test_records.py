"""Game records (rules §9): load, validate, save, replay, and the golden records."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from games.rules.cards import format_cards, parse_cards
from games.rules.errors import RecordError
from games.rules.gandengyan import GameState, deal_from_seed
from games.rules.gandengyan.moves import PASS, Play
from games.rules.gandengyan.records import FORMAT, GameRecord
from games.rules.gandengyan.settlement import settle

RECORDS = Path(__file__).parent / "records"

#: What replaying each golden record must give. ``hands`` and ``table`` describe the final state;
#: ``payments`` is None when the game is not over.
GOLDEN = {
    "settlement_example_1.json": {
        "applied": 7,
        "error": None,
        "to_move": None,
        "hands": ["", "8h Th Qh", "7d 9d Jd Kd 2d"],
        "stock": 0,
        "table": (0, "9c", "single 9"),
        "winner": 0,
        "multiplier": 1,
        "spring": (False, False, False),
        "payments": (3200, -1200, -2000),
    },
    "settlement_example_2.json": {
        "applied": 7,
        "error": None,
        "to_move": None,
        "hands": ["6d 8d Td Qd 2d", "", "5h Jh Kh"],
        "stock": 0,
        "table": (1, "9c", "single 9"),
        "winner": 1,
        "multiplier": 2,
        "spring": (False, False, True),
        "payments": (-4000, 8800, -4800),
    },
    "settlement_example_3.json": {
        "applied": 7,
        "error": None,
        "to_move": None,
        "hands": ["Jh Kh", "6s Ts Qs 2s", ""],
        "stock": 0,
        "table": (2, "9c", "single 9"),
        "winner": 2,
        "multiplier": 8,
        "spring": (False, False, False),
        "payments": (-6400, -12800, 19200),
    },
    "spec_example.json": {
        "applied": 3,
        "error": None,
        "to_move": 0,
        "hands": ["6c 7s 8h", "9s 9h Tc Jd Qs", "Ks 2d"],
        "stock": 3,
        "table": (2, "5s 6h BJ", "straight 4 5 6"),
        "winner": None,
        "multiplier": 1,
        "spring": None,
        "payments": None,
    },
    "lone_joker_ending.json": {
        "applied": 15,
        "error": None,
        "to_move": None,
        "hands": ["9c", "8d", ""],
        "stock": 0,
        "table": (2, "BJ", "single 2"),
        "winner": 2,
        "multiplier": 1,
        "spring": (False, False, False),
        "payments": (-400, -400, 800),
    },
    "seeded_game_54.json": {
        "applied": 67,
        "error": None,
        "to_move": None,
        "hands": None,  # checked through the payments
        "stock": 0,
        "table": None,
        "winner": 1,
        "multiplier": 8,
        "spring": (False, False, False),
        "payments": (-9600, 38400, -28800),
    },
    "illegal_does_not_beat.json": {
        "applied": 3,
        "error": (3, "does_not_beat"),
        "to_move": 0,
        "hands": ["6s 9c", "8h Th Qh", "7d 9d Jd Kd 2d"],
        "stock": 0,
        "table": (2, "5d", "single 5"),
        "winner": None,
        "multiplier": 1,
        "spring": None,
        "payments": None,
    },
    "illegal_as_does_not_beat.json": {
        "applied": 2,
        "error": (2, "does_not_beat"),
        "to_move": 2,
        "hands": ["6c 7s 8h", "9s 9h Tc Jd Qs", "5s 6h Ks 2d BJ"],
        "stock": 3,
        "table": (0, "3s 4h 5d", "straight 3 4 5"),
        "winner": None,
        "multiplier": 1,
        "spring": None,
        "payments": None,
    },
    "illegal_after_the_end.json": {
        "applied": 7,
        "error": (7, "game_over"),
        "to_move": None,
        "hands": ["", "8h Th Qh", "7d 9d Jd Kd 2d"],
        "stock": 0,
        "table": (0, "9c", "single 9"),
        "winner": 0,
        "multiplier": 1,
        "spring": None,
        "payments": None,  # no result when an action was illegal
    },
    "docs_example.json": {
        "applied": 15,
        "error": None,
        "to_move": None,
        "hands": ["6s 6c 7s 8h", "7h Qs", ""],
        "stock": 0,
        "table": (2, "Ad", "single A"),
        "winner": 2,
        "multiplier": 2,
        "spring": (False, False, False),
        "payments": (-3200, -1600, 4800),
    },
}


def golden(name: str) -> GameRecord:
    return GameRecord.load(RECORDS / name)


def test_every_golden_record_has_an_expectation():
    assert sorted(p.name for p in RECORDS.glob("*.json")) == sorted(GOLDEN)


# Golden records -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_record_is_a_valid_record(name):
    data = json.loads((RECORDS / name).read_text(encoding="utf-8"))
    assert data["format"] == FORMAT == "gandengyan-record/1"
    record = GameRecord.from_json(data)
    assert record == golden(name)
    assert record.base == data["base"]
    assert record.dealer == data["dealer"]
    assert len(record.hands) == 3


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_record_replays_to_the_expected_state_and_result(name):
    expected = GOLDEN[name]
    result = golden(name).replay()
    state = result.state
    assert result.applied == expected["applied"]
    if expected["error"] is None:
        assert result.ok and result.error is None
    else:
        assert not result.ok
        assert (result.error.index, result.error.code) == expected["error"]
        assert result.error.message
    assert state.to_move == expected["to_move"]
    assert state.winner == expected["winner"]
    assert state.multiplier == expected["multiplier"]
    assert state.stock_count == expected["stock"]
    if expected["hands"] is not None:
        assert [format_cards(state.hand(seat)) for seat in range(3)] == expected["hands"]
    if expected["table"] is not None:
        seat, cards, meaning = expected["table"]
        assert state.table.seat == seat
        assert format_cards(state.table.play.cards) == cards
        assert str(state.table.combo) == meaning
    if expected["payments"] is None:
        assert result.settlement is None
    else:
        assert result.settlement.payments == expected["payments"]
        assert result.settlement.spring == expected["spring"]
        assert result.settlement.multiplier == expected["multiplier"]
        assert result.settlement.winner == expected["winner"]
        assert sum(result.settlement.payments) == 0


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_record_replays_like_the_game_itself(name):
    """Replaying is the same as building the position and applying the actions one by one."""
    record = golden(name)
    result = record.replay()
    state = GameState.from_position(record.hands, record.stock, record.dealer)
    for action in record.actions[: result.applied]:
        assert action.seat == state.to_move
        state = state.apply(action.seat, action.move)
    assert state == result.state
    if result.settlement is not None:
        assert settle(state, base=record.base) == result.settlement


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_record_round_trips_through_dumps_and_loads(name):
    record = golden(name)
    again = GameRecord.loads(record.dumps())
    assert again == record
    assert again.dumps() == record.dumps()
    assert again.replay().state == record.replay().state


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_record_round_trips_through_save_and_load(name, tmp_path):
    record = golden(name)
    path = tmp_path / name
    record.save(path)
    assert GameRecord.load(path).dumps() == record.dumps()
    assert GameRecord.load(path).replay().state == record.replay().state


def test_worked_examples_of_section_7_are_reproduced_by_the_golden_records():
    wanted = {
        1: ((3, 5), 1, 1200, 2000, 3200),
        2: ((3, 5), 2, 4800, 4000, 8800),
        3: ((2, 4), 8, 6400, 12800, 19200),
    }
    for number, (left, multiplier, a_pays, b_pays, receives) in wanted.items():
        record = golden(f"settlement_example_{number}.json")
        assert record.base == 400
        result = record.replay().settlement
        winner = result.winner
        a, b = sorted(
            (seat for seat in range(3) if seat != winner), key=lambda s: result.cards_left[s]
        )
        assert (result.cards_left[a], result.cards_left[b]) == left
        assert result.multiplier == multiplier
        assert -result.payments[a] == a_pays
        assert -result.payments[b] == b_pays
        assert result.payments[winner] == receives
    assert golden("settlement_example_2.json").replay().settlement.spring == (False, False, True)


def test_illegal_record_replay_stops_at_the_first_illegal_action():
    record = golden("illegal_does_not_beat.json")
    assert len(record.actions) == 6
    result = record.replay()
    assert result.applied == 3
    assert result.error.index == 3
    assert "action 3" in result.error.message
    # the state is the one before the illegal action
    before = GameRecord(
        rules=record.rules,
        base=record.base,
        dealer=record.dealer,
        hands=record.hands,
        stock=record.stock,
        actions=record.actions[:3],
    ).replay()
    assert before.ok
    assert result.state == before.state


# Seeds --------------------------------------------------------------------------------------


def test_seed_of_the_golden_seeded_record_is_its_deal():
    record = golden("seeded_game_54.json")
    assert record.seed == 54
    hands, stock, dealer = deal_from_seed(54)
    assert record.dealer == dealer
    assert [set(h) for h in record.hands] == [set(h) for h in hands]
    assert record.stock == stock
    assert record.initial_state() == GameState.deal(54)


def _record_data(**changes):
    data = {
        "format": "gandengyan-record/1",
        "rules": {},
        "base": 400,
        "dealer": 0,
        "hands": ["3s 4h 5d 6c 7s 8h", "9s 9h Tc Jd Qs", "5s 6h Ks 2d BJ"],
        "stock": "Ad 6s 7h",
        "actions": [
            {"seat": 0, "play": "3s 4h 5d"},
            {"seat": 1, "pass": True},
            {"seat": 2, "play": "5s 6h BJ", "as": "4 5 6"},
        ],
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not _MISSING}


_MISSING = object()


def _seeded_data(seed: int, dealer: int | None = None, *, canonical: bool = False):
    hands, stock, dealer = deal_from_seed(seed, dealer=dealer)
    write = format_cards if canonical else (lambda cards: " ".join(str(c) for c in cards))
    return _record_data(
        dealer=dealer,
        hands=[write(h) for h in hands],
        stock=" ".join(str(c) for c in stock),
        actions=[],
        seed=seed,
    )


@pytest.mark.parametrize(("seed", "dealer"), [(0, None), (1, None), (99, 2), (99, 0)])
def test_seed_that_matches_the_deal_is_accepted(seed, dealer):
    record = GameRecord.from_json(_seeded_data(seed, dealer))
    assert record.seed == seed
    assert record.initial_state() == GameState.deal(seed, dealer=record.dealer)


def test_seed_is_checked_whatever_the_order_of_the_cards_in_a_hand():
    # A hand is a set of cards: the canonical order written by ``dumps`` is as good as any.
    record = GameRecord.from_json(_seeded_data(3, canonical=True))
    assert record.seed == 3
    state = GameState.deal(3)
    saved = GameRecord.from_state(state, base=400, seed=3)
    assert GameRecord.loads(saved.dumps()).initial_state() == state


def _other_seed(data):
    data["seed"] += 1


def _stock_reordered(data):
    stock = data["stock"].split()
    stock[0], stock[1] = stock[1], stock[0]
    data["stock"] = " ".join(stock)


def _hands_rotated(data):
    data["dealer"] = (data["dealer"] + 1) % 3  # same seed, but the deal starts at another seat


def _cards_swapped(data):
    first, second = data["hands"][0].split(), data["hands"][1].split()
    first[0], second[0] = second[0], first[0]
    data["hands"][0], data["hands"][1] = " ".join(first), " ".join(second)


@pytest.mark.parametrize("change", [_other_seed, _stock_reordered, _hands_rotated, _cards_swapped])
def test_seed_that_does_not_match_the_deal_is_a_record_error(change):
    data = _seeded_data(3)
    GameRecord.from_json(copy.deepcopy(data))  # as dealt: fine
    change(data)
    with pytest.raises(RecordError, match="seed"):
        GameRecord.from_json(data)


# from_state --------------------------------------------------------------------------------------


def _random_game(seed: int, stop_after: int | None = None) -> GameState:
    chooser = random.Random(seed)
    state = GameState.deal(seed)
    steps = 0
    while state.to_move is not None and (stop_after is None or steps < stop_after):
        moves = state.legal_moves()
        state = state.apply(state.to_move, moves[chooser.randrange(len(moves))])
        steps += 1
    return state


@pytest.mark.parametrize("seed", range(8))
def test_from_state_of_a_finished_game_replays_to_an_identical_state(seed):
    state = _random_game(seed)
    record = GameRecord.from_state(state, base=400)
    result = record.replay()
    assert result.ok
    assert result.applied == len(state.history)
    assert result.state == state
    assert result.settlement == settle(state, base=400)
    loaded = GameRecord.loads(record.dumps())
    assert loaded.replay().state == state
    assert loaded.dumps() == record.dumps()


@pytest.mark.parametrize(("seed", "steps"), [(5, 0), (5, 1), (6, 10), (7, 25)])
def test_from_state_of_a_game_in_progress_replays_to_an_identical_state(seed, steps):
    state = _random_game(seed, stop_after=steps)
    record = GameRecord.from_state(state, base=1000)
    assert record.base == 1000
    loaded = GameRecord.loads(record.dumps())
    result = loaded.replay()
    assert result.ok and result.settlement is None
    assert result.state == state


def test_round_trip_does_not_depend_on_the_order_of_cards_in_a_hand():
    # A hand is a set of cards (the order within it means nothing); dumps writes it canonically.
    data = _record_data(hands=["8h 7s 6c 5d 4h 3s", "Qs Jd Tc 9h 9s", "BJ 2d Ks 6h 5s"])
    record = GameRecord.from_json(data)
    assert GameRecord.loads(record.dumps()) == record
    seeded = GameRecord.from_json(_seeded_data(54))  # hands in the order they were dealt
    assert GameRecord.loads(seeded.dumps()) == seeded


def test_from_state_record_round_trips_equal():
    state = _random_game(2)
    record = GameRecord.from_state(state, base=400)
    assert GameRecord.loads(record.dumps()) == record


def test_from_state_writes_as_only_when_the_cards_have_another_meaning():
    state = GameState.from_position(["5s 6h BJ 7c 7d 9c", "5h 6d", "Ks Kh"], "", 0)
    state = state.apply(0, Play(parse_cards("5s 6h BJ")))  # led: 4 5 6, the lowest
    state = state.apply(1, PASS).apply(2, PASS)
    state = state.apply(0, Play(parse_cards("7c 7d")))  # written canonically: 7d 7c
    actions = GameRecord.from_state(state, base=400).to_json()["actions"]
    assert actions == [
        {"seat": 0, "play": "5s 6h BJ", "as": "4 5 6"},
        {"seat": 1, "pass": True},
        {"seat": 2, "pass": True},
        {"seat": 0, "play": "7d 7c"},
    ]


# Illegal actions in a well-formed record -------------------------------------------------------


def test_action_by_a_seat_that_is_not_to_move_is_illegal():
    data = _record_data(actions=[{"seat": 1, "play": "9s"}])
    result = GameRecord.from_json(data).replay()
    assert result.applied == 0
    assert result.error.code == "not_your_turn"
    assert result.state == GameRecord.from_json(_record_data(actions=[])).initial_state()


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"seat": 0, "pass": True}, "leader_must_play"),
        ({"seat": 0, "play": "9s"}, "cards_not_in_hand"),
        ({"seat": 0, "play": "3s 5d"}, "not_a_combination"),
        ({"seat": 0, "play": "3s 4h 5d", "as": "4 5 6"}, "meaning_not_possible"),
    ],
)
def test_illegal_first_action_is_reported_with_its_code(action, code):
    result = GameRecord.from_json(_record_data(actions=[action])).replay()
    assert (result.applied, result.error.index, result.error.code) == (0, 0, code)


def test_as_null_is_the_same_as_no_as():
    data = _record_data(actions=[{"seat": 0, "play": "3s 4h 5d", "as": None}])
    record = GameRecord.from_json(data)
    assert record == GameRecord.from_json(_record_data(actions=[{"seat": 0, "play": "3s 4h 5d"}]))
    assert record.replay().ok


def test_dealer_with_a_lone_joker_is_fine_when_the_stock_is_empty():
    record = GameRecord.from_json(_record_data(hands=["BJ", "9s", "5s"], stock="", actions=[]))
    result = record.replay()
    assert result.ok
    assert [str(move) for move in result.state.legal_moves()] == ["BJ = 3"]


def test_record_without_actions_is_the_starting_position():
    record = GameRecord.from_json(_record_data(actions=_MISSING))
    assert record.actions == ()
    result = record.replay()
    assert result.ok and result.applied == 0
    assert result.state == GameState.from_position(record.hands, record.stock, 0)


def test_record_may_use_fewer_than_54_cards_and_an_empty_stock():
    record = GameRecord.from_json(_record_data(stock="", actions=[]))
    assert record.stock == ()
    assert record.initial_state().stock_count == 0


def test_notation_in_a_record_is_case_insensitive_and_accepts_10():
    data = _record_data(
        hands=["3S 4H 5D 6C 7S 8H", "9s 9h 10c jd qs", "5s 6h ks 2d bj"],
        actions=[{"seat": 0, "play": "3s 4h 5d"}, {"seat": 1, "play": "jd qs 10c", "as": "t j q"}],
    )
    record = GameRecord.from_json(data)
    assert GameRecord.loads(record.dumps()).to_json()["hands"][1] == "9s 9h Tc Jd Qs"
    result = record.replay()
    assert result.error.code == "does_not_beat"  # T-J-Q is no answer to 3-4-5


# Malformed records ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not JSON"),
        ("{", "not JSON"),
        ("{'format': 'gandengyan-record/1'}", "not JSON"),
        ("[]", "JSON object"),
        ("3", "JSON object"),
        ('"gandengyan-record/1"', "JSON object"),
        ("null", "JSON object"),
    ],
)
def test_text_that_is_not_a_json_object_is_a_record_error(text, message):
    with pytest.raises(RecordError, match=message):
        GameRecord.loads(text)


MALFORMED = [
    # format
    ({"format": _MISSING}, "format"),
    ({"format": "gandengyan-record/2"}, "format"),
    ({"format": "GANDENGYAN-RECORD/1"}, "format"),
    ({"format": 1}, "format"),
    # unknown fields
    ({"players": 3}, "unknown field"),
    ({"Format": FORMAT}, "unknown field"),
    # rules
    ({"rules": {"jokers_wild": True}}, "unknown rules option"),
    ({"rules": {"draw": 3}}, "draw"),
    ({"rules": {"draw": "loser"}}, "draw"),
    ({"rules": {"players": "3"}}, "players"),
    ({"rules": {"players": 7}}, "players"),
    ({"rules": {"rocket_multiplier": 5}}, "rocket_multiplier"),
    ({"rules": {"one_card_free": "yes"}}, "one_card_free"),
    ({"rules": {"max_multiplier": 0}}, "max_multiplier"),
    ({"rules": {"twos_jump_pairs": "yes"}}, "twos_jump_pairs"),
    ({"rules": "standard"}, "rules"),
    ({"rules": ["draw"]}, "rules"),
    ({"rules": []}, "rules"),
    # base
    ({"base": _MISSING}, "base"),
    ({"base": 0}, "base"),
    ({"base": -400}, "base"),
    ({"base": "400"}, "base"),
    ({"base": 400.5}, "base"),
    ({"base": True}, "base"),
    # dealer
    ({"dealer": _MISSING}, "dealer"),
    ({"dealer": 3}, "dealer"),
    ({"dealer": -1}, "dealer"),
    ({"dealer": "0"}, "dealer"),
    ({"dealer": 0.0}, "dealer"),
    ({"dealer": False}, "dealer"),
    # hands
    ({"hands": _MISSING}, "hands"),
    ({"hands": ["3s 4h 5d", "9s 9h"]}, "hands"),
    ({"hands": ["3s", "4s", "5s", "6s"]}, "hands"),
    ({"hands": "3s 4h | 5d 6c | 7s 8h"}, "hands"),
    ({"hands": [["3s"], ["4s"], ["5s"]]}, "hands"),
    ({"hands": ["3s 4h", "", "5s"]}, r'"hands"\[1\] is empty'),
    ({"hands": ["3s 4h", "9s", "   "]}, r'"hands"\[2\] is empty'),
    ({"hands": ["3s 1h", "9s", "5s"]}, r"\"hands\"\[0\].*'1h'"),
    ({"hands": ["3s", "9x", "5s"]}, r"\"hands\"\[1\].*'9x'"),
    ({"hands": ["3s", "9s", "5s JK"]}, r"\"hands\"\[2\].*'JK'"),
    ({"hands": ["BJ", "9s", "5s"]}, "lone joker"),  # the dealer could do nothing
    # stock
    ({"stock": _MISSING}, "stock"),
    ({"stock": ["Ad"]}, "stock"),
    ({"stock": "Ad 6s 7z"}, r"\"stock\".*'7z'"),
    # one deck
    ({"hands": ["3s 3s", "9s", "5s"]}, "3s.*twice"),
    ({"hands": ["3s 4s", "9s 4S", "5s"]}, "4s.*twice"),
    ({"hands": ["3s BJ", "9s", "5s bj"]}, "BJ.*twice"),
    ({"hands": ["3s", "9s", "5s"], "stock": "6s 9s"}, "9s.*twice"),
    ({"hands": ["3s", "9s", "5s"], "stock": "6s 7s 6s"}, "6s.*twice"),
    ({"hands": ["Ts", "9s", "5s"], "stock": "10s"}, "Ts.*twice"),
    # actions
    ({"actions": {"seat": 0, "pass": True}}, "actions"),
    ({"actions": "3s 4h 5d"}, "actions"),
    ({"actions": ["pass"]}, r'"actions"\[0\]'),
    ({"actions": [{"seat": 0, "play": "3s", "pass": True}]}, r'"actions"\[0\].*"play" or "pass"'),
    ({"actions": [{"seat": 0}]}, r'"actions"\[0\].*"play" or "pass"'),
    ({"actions": [{"seat": 0, "pass": False}]}, r'"actions"\[0\]'),
    ({"actions": [{"seat": 0, "pass": True, "as": "3"}]}, r'"actions"\[0\]'),
    ({"actions": [{"seat": 0, "play": "3s", "cards": "3s"}]}, r'"actions"\[0\].*unknown'),
    ({"actions": [{"seat": 3, "play": "3s"}]}, r'"actions"\[0\].*seat'),
    ({"actions": [{"seat": -1, "play": "3s"}]}, r'"actions"\[0\].*seat'),
    ({"actions": [{"seat": "0", "play": "3s"}]}, r'"actions"\[0\].*seat'),
    ({"actions": [{"seat": True, "play": "3s"}]}, r'"actions"\[0\].*seat'),
    ({"actions": [{"seat": 0.0, "play": "3s"}]}, r'"actions"\[0\].*seat'),
    ({"actions": [{"play": "3s"}]}, r'"actions"\[0\].*seat'),
    ({"actions": [{"seat": 0, "play": "3s 4h 1d"}]}, r"\"actions\"\[0\].*'1d'"),
    ({"actions": [{"seat": 0, "play": ""}]}, r'"actions"\[0\].*at least one card'),
    ({"actions": [{"seat": 0, "play": ["3s"]}]}, r'"actions"\[0\]'),
    ({"actions": [{"seat": 0, "play": "3s 3s"}]}, r'"actions"\[0\].*twice'),
    ({"actions": [{"seat": 0, "play": "3s 4h 5d", "as": "3 4 X"}]}, r"\"actions\"\[0\].*'X'"),
    ({"actions": [{"seat": 0, "play": "3s 4h 5d", "as": "3 5"}]}, r'"actions"\[0\].*combination'),
    ({"actions": [{"seat": 0, "play": "3s 4h 5d", "as": ""}]}, r'"actions"\[0\]'),
    ({"actions": [{"seat": 0, "play": "3s 4h 5d", "as": 345}]}, r'"actions"\[0\].*"as"'),
    (
        {"actions": [{"seat": 0, "play": "3s 4h 5d"}, {"seat": 1, "pass": True, "play": "9s"}]},
        r'"actions"\[1\]',
    ),
    # seed and meta
    ({"seed": -1}, "seed"),
    ({"seed": "54"}, "seed"),
    ({"seed": 1.0}, "seed"),
    ({"seed": True}, "seed"),
    ({"meta": "a game"}, "meta"),
]


@pytest.mark.parametrize(("changes", "message"), MALFORMED)
def test_malformed_record_is_a_record_error_with_a_clear_message(changes, message):
    data = _record_data(**changes)
    with pytest.raises(RecordError, match=message):
        GameRecord.from_json(copy.deepcopy(data))
    with pytest.raises(RecordError, match=message):
        GameRecord.loads(json.dumps(data))


def test_well_formed_base_record_is_accepted():
    record = GameRecord.from_json(_record_data())
    assert record.replay().ok


def test_load_of_a_missing_file_is_a_record_error(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        GameRecord.load(tmp_path / "no-such-record.json")


def test_load_of_a_file_that_is_not_utf8_is_a_record_error(tmp_path):
    path = tmp_path / "record.json"
    path.write_bytes(b'{"format": "\xff\xfe"}')
    with pytest.raises(RecordError, match="UTF-8"):
        GameRecord.load(path)


def test_record_error_is_a_value_error():
    assert issubclass(RecordError, ValueError)
