"""The house-rule options that change the play (gandengyan-rules.md section 10), one by one and
together: meanings, what beats what, the legal actions (counted, and checked against the
brute-force oracle), the lone joker's pass and the deal that stalls, then random positions and
playouts over random combinations of options with 2 to 6 seats."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bots.sensible import SensiblePolicy
from games.bots.simple import GreedyPolicy, RandomPolicy
from games.rules import AmbiguousPlayError, IllegalMoveError, parse_cards
from games.rules.cards import CARDS, Card, Rank, mask_of
from games.rules.gandengyan import (
    ENGINE,
    PASS,
    GameRecord,
    GameState,
    GandengyanRules,
    Play,
    parse_move,
    settle,
)
from games.rules.gandengyan.combos import (
    HARD_BOMB,
    PAIR,
    PAIR_STRAIGHT,
    SINGLE,
    SOFT_BOMB,
    Combo,
    beats,
    meanings,
)
from games.rules.gandengyan.movegen import ruled_follow_plays
from games.rules.gandengyan.options import STANDARD
from tests.games.rules.gandengyan.oracle import (
    ALL_COMBOS,
    beats_by_definition,
    legal_actions_by_brute_force,
    meanings_by_definition,
)
from tests.games.rules.gandengyan.strategies import action_key, dense_card_lists

R = Rank
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Every code an illegal action of 干瞪眼 is refused with.
CODES = {
    "not_your_turn",
    "game_over",
    "leader_must_play",
    "not_a_move",
    "cards_not_in_hand",
    "not_a_combination",
    "meaning_not_possible",
    "does_not_beat",
    "lone_joker",
}
ALL_OPTIONS: dict[str, Any] = {
    "twos_jump_pairs": True,
    "twos_top_bombs": True,
    "pair_straights": False,
    "max_straight": 6,
    "max_pair_straight": 6,
    "lone_joker_last": False,
    "natural_over_wild": True,
    "bombs_any_higher": True,
    "joker_not_two": True,
}


def rules(**options: Any) -> GandengyanRules:
    return GandengyanRules.from_dict(options)


def combos_of(cards: str, rules_: GandengyanRules = STANDARD) -> list[str]:
    return [str(c) for c in meanings(mask_of(parse_cards(cards)), rules_)]


# Positions ------------------------------------------------------------------------------------


def _fillers(used: set[Card], count: int) -> list[Card]:
    free = [card for card in CARDS[:52] if card not in used]
    return free[:count]


def lead(hand: str, rules_: GandengyanRules = STANDARD, *, stock_empty: bool = True) -> GameState:
    """Seat 0 leads with ``hand``; every other seat holds one filler card."""
    cards = list(parse_cards(hand))
    fill = _fillers(set(cards), rules_.players)
    stock = [] if stock_empty else [fill[-1]]
    hands = [cards, *([card] for card in fill[: rules_.players - 1])]
    return GameState.from_position(hands, stock, dealer=0, rules=rules_)


def follow(
    hand: str,
    table: str,
    rules_: GandengyanRules = STANDARD,
    *,
    stock_empty: bool = True,
    meaning: str | None = None,
) -> GameState:
    """The last seat (the dealer) leads ``table`` out of a hand with one card more; seat 0 is to
    answer it with ``hand``; the seats between hold one filler card each."""
    cards = list(parse_cards(hand))
    played = list(parse_cards(table))
    players = rules_.players
    fill = _fillers(set(cards) | set(played), players + 1)
    stock = [] if stock_empty else [fill[-1]]
    hands = [cards, *([fill[s]] for s in range(1, players - 1)), [*played, fill[0]]]
    state = GameState.from_position(hands, stock, dealer=players - 1, rules=rules_)
    text = " ".join(str(c) for c in played) + (f" = {meaning}" if meaning else "")
    state = state.apply(players - 1, parse_move(text))
    assert state.to_move == 0
    return state


def oracle_actions(state: GameState) -> set[Any]:
    seat = state.to_move
    assert seat is not None
    table = state.table
    return legal_actions_by_brute_force(
        state.hand(seat),
        None if table is None else table.combo,
        state.stock_count == 0,
        state.rules,
        table is not None and table.wild,
    )


def check_legal_moves(state: GameState) -> list[Any]:
    """The engine's actions are distinct, in its order, and exactly the oracle's."""
    moves = state.legal_moves()
    keys = [action_key(m) for m in moves]
    assert len(keys) == len(set(keys)), keys
    assert set(keys) == oracle_actions(state)
    return moves


# Meanings ----------------------------------------------------------------------------------------


def test_pair_straights_off_makes_them_no_combination() -> None:
    off = rules(pair_straights=False)
    assert combos_of("5s 5h 6s 6h") == ["pair_straight 5 5 6 6"]
    assert combos_of("5s 5h 6s 6h", off) == []
    assert combos_of("5s 5h 6s BJ", off) == []
    assert combos_of("5s 6h 7d", off) == ["straight 5 6 7"]
    assert code(lead("5s 5h 6s 6h 9c", off), "5s 5h 6s 6h") == "not_a_combination"


@pytest.mark.parametrize(
    ("limit", "cards", "allowed"),
    [
        (5, "3s 4s 5s 6s 7s", True),
        (5, "3s 4s 5s 6s 7s 8s", False),
        (5, "3s 4s 5s 6s BJ", True),  # the joker counts in the length
        (5, "3s 4s 5s 6s 7s BJ", False),
        (2, "3s 4s 5s", False),  # no straight at all
        (12, "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As", True),
    ],
)
def test_max_straight(limit: int, cards: str, allowed: bool) -> None:
    assert bool(combos_of(cards)) is True
    assert bool(combos_of(cards, rules(max_straight=limit))) is allowed


@pytest.mark.parametrize(
    ("limit", "cards", "allowed"),
    [
        (6, "3s 3h 4s 4h 5s 5h", True),
        (6, "3s 3h 4s 4h 5s 5h 6s 6h", False),
        (7, "3s 3h 4s 4h 5s 5h 6s 6h", False),  # odd: the even length below
        (7, "3s 3h 4s 4h 5s 5h", True),
        (4, "3s 3h 4s BJ", True),
        (5, "3s 3h 4s 4h 5s BJ", False),
        (3, "3s 3h 4s 4h", False),
    ],
)
def test_max_pair_straight(limit: int, cards: str, allowed: bool) -> None:
    assert bool(combos_of(cards)) is True
    assert bool(combos_of(cards, rules(max_pair_straight=limit))) is allowed


def test_max_straight_leaves_the_other_kinds_alone() -> None:
    short = rules(max_straight=3, max_pair_straight=4)
    for cards in ("7s 7h 7d 7c", "7s 7h BJ", "2s 2h", "9s", "BJ RJ", "3s 3h 4s 4h"):
        assert combos_of(cards, short) == combos_of(cards), cards


@pytest.mark.parametrize(
    ("cards", "standard", "without_wild_two"),
    [
        ("2s BJ", ["pair 2 2"], []),
        ("2s 2h RJ", ["soft_bomb 2 2 2"], []),
        ("2s 2h 2d BJ", ["hard_bomb 2 2 2 2"], []),
        ("2s 2h", ["pair 2 2"], ["pair 2 2"]),
        ("2s 2h 2d", ["soft_bomb 2 2 2"], ["soft_bomb 2 2 2"]),
        ("As BJ", ["pair A A"], ["pair A A"]),
        ("Qs Ks BJ", ["straight J Q K", "straight Q K A"], ["straight J Q K", "straight Q K A"]),
        ("BJ RJ", ["rocket BJ RJ"], ["rocket BJ RJ"]),
    ],
)
def test_joker_not_two(cards: str, standard: list[str], without_wild_two: list[str]) -> None:
    assert combos_of(cards) == standard
    assert combos_of(cards, rules(joker_not_two=True)) == without_wild_two


def test_meanings_of_every_small_hand_match_the_definition_under_every_single_option() -> None:
    pool = parse_cards("3s 3h 4s 4h 5s 5h 6s 2s 2h 2d BJ RJ")
    rng = random.Random(5)
    for name, value in ALL_OPTIONS.items():
        option = rules(**{name: value})
        for _ in range(300):
            cards = rng.sample(pool, rng.randint(1, 7))
            ranks = [card.rank for card in cards]
            assert set(meanings(mask_of(cards), option)) == meanings_by_definition(ranks, option)


# What beats what ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("play", "table", "standard", "option"),
    [
        (PAIR[R.TWO], PAIR[R.FIVE], False, True),
        (PAIR[R.TWO], PAIR[R.ACE], False, True),
        (PAIR[R.TWO], PAIR[R.TWO], False, False),
        (PAIR[R.FIVE], PAIR[R.TWO], False, False),
        (PAIR[R.SIX], PAIR[R.FIVE], True, True),
        (SOFT_BOMB[R.TWO], SOFT_BOMB[R.FIVE], False, False),  # bombs unchanged
        (PAIR_STRAIGHT[(R.FIVE, 4)], PAIR_STRAIGHT[(R.FOUR, 4)], True, True),
    ],
)
def test_twos_jump_pairs_beats(play: Combo, table: Combo, standard: bool, option: bool) -> None:
    assert beats(play, table) is standard
    assert beats(play, table, rules(twos_jump_pairs=True)) is option


@pytest.mark.parametrize(
    ("play", "table", "standard", "option"),
    [
        (SOFT_BOMB[R.TWO], SOFT_BOMB[R.FIVE], False, True),
        (SOFT_BOMB[R.TWO], SOFT_BOMB[R.ACE], False, True),
        (HARD_BOMB[R.TWO], HARD_BOMB[R.KING], False, True),
        (SOFT_BOMB[R.TWO], SOFT_BOMB[R.TWO], False, False),
        (HARD_BOMB[R.TWO], HARD_BOMB[R.TWO], False, False),
        (SOFT_BOMB[R.FIVE], SOFT_BOMB[R.TWO], False, False),
        (SOFT_BOMB[R.TWO], HARD_BOMB[R.THREE], False, False),  # a soft bomb of 2s stays soft
        (HARD_BOMB[R.THREE], SOFT_BOMB[R.TWO], True, True),
        (PAIR[R.TWO], PAIR[R.FIVE], False, False),
    ],
)
def test_twos_top_bombs_beats(play: Combo, table: Combo, standard: bool, option: bool) -> None:
    assert beats(play, table) is standard
    assert beats(play, table, rules(twos_top_bombs=True)) is option


@pytest.mark.parametrize(
    ("play", "table", "standard", "option"),
    [
        (SOFT_BOMB[R.NINE], SOFT_BOMB[R.FIVE], False, True),
        (SOFT_BOMB[R.FIVE], SOFT_BOMB[R.NINE], False, False),
        (HARD_BOMB[R.TWO], HARD_BOMB[R.ACE], False, True),  # 2 above A
        (SOFT_BOMB[R.ACE], SOFT_BOMB[R.TWO], False, False),
        (SOFT_BOMB[R.SIX], SOFT_BOMB[R.FIVE], True, True),
        (SOFT_BOMB[R.TWO], HARD_BOMB[R.THREE], False, False),  # soft never beats hard
        (PAIR[R.SEVEN], PAIR[R.FIVE], False, False),  # only bombs
        (SINGLE[R.SEVEN], SINGLE[R.FIVE], False, False),
    ],
)
def test_bombs_any_higher_beats(play: Combo, table: Combo, standard: bool, option: bool) -> None:
    assert beats(play, table) is standard
    assert beats(play, table, rules(bombs_any_higher=True)) is option


@pytest.mark.parametrize("bomb", [SOFT_BOMB[R.SEVEN], HARD_BOMB[R.SEVEN], SOFT_BOMB[R.TWO]])
def test_natural_over_wild_beats(bomb: Combo) -> None:
    option = rules(natural_over_wild=True)
    for ruleset in (STANDARD, option):
        assert not beats(bomb, bomb, ruleset, play_wild=True, table_wild=False)
        assert not beats(bomb, bomb, ruleset, play_wild=False, table_wild=False)
        assert not beats(bomb, bomb, ruleset, play_wild=True, table_wild=True)
    assert not beats(bomb, bomb, play_wild=False, table_wild=True)
    assert beats(bomb, bomb, option, play_wild=False, table_wild=True)
    assert not beats(PAIR[R.SEVEN], PAIR[R.SEVEN], option, play_wild=False, table_wild=True)


def test_beats_matches_the_definition_for_every_pair_of_combos_under_each_option() -> None:
    for name, value in ALL_OPTIONS.items():
        option = rules(**{name: value})
        for play in ALL_COMBOS:
            for table in ALL_COMBOS:
                for play_wild, table_wild in ((False, False), (False, True), (True, False)):
                    assert beats(
                        play, table, option, play_wild=play_wild, table_wild=table_wild
                    ) == beats_by_definition(
                        play, table, option, play_wild=play_wild, table_wild=table_wild
                    ), (name, play, table)


def test_natural_over_wild_in_the_move_generator() -> None:
    """With one deck a natural bomb never meets the wild one of its rank in a game; the move
    generator still lists it when asked with such a hand."""
    hand = mask_of(parse_cards("7s 7h 7d 9c"))
    option = rules(natural_over_wild=True)
    wild = mask_of(parse_cards("7c 7h BJ"))  # the table's cards (the 7h twice: no real game)
    natural = mask_of(parse_cards("7c 7h 7s"))
    found = ruled_follow_plays(hand, SOFT_BOMB[R.SEVEN], True, option, wild)
    assert [(str(p), p.combo) for p in found] == [("7s 7h 7d", SOFT_BOMB[R.SEVEN])]
    assert ruled_follow_plays(hand, SOFT_BOMB[R.SEVEN], True, option, natural) == []
    both = rules(natural_over_wild=True, bombs_any_higher=True)
    assert ruled_follow_plays(hand, SOFT_BOMB[R.SEVEN], True, both, natural) == []
    hard = mask_of(parse_cards("7s 7h 7d 7c"))
    hard_wild = mask_of(parse_cards("7s 7h 7d RJ"))
    assert [
        str(p) for p in ruled_follow_plays(hard, HARD_BOMB[R.SEVEN], True, option, hard_wild)
    ] == ["7s 7h 7d 7c"]


# Counted positions -------------------------------------------------------------------------------

# (name, options, hand, table or None, stock empty, count without the option, count with it).
# Counted by hand; the counts include the pass when there is one.
COUNTED: list[tuple[str, dict[str, Any], str, str | None, bool, int, int]] = [
    # pair 5s: no pair of 6s; soft 7s (7 7 BJ) and soft 2s (2 2 BJ); + pair 2 2 and 2 BJ
    ("twos jump a pair", {"twos_jump_pairs": True}, "2s 2h 7s 7h BJ", "5s 5h", True, 3, 5),
    # pair 2s on the table: the option adds nothing
    ("twos on twos", {"twos_jump_pairs": True}, "2s 2h 7s 7h BJ", "2d 2c", True, 3, 3),
    # soft 5s: hard 2s (2 2 2 BJ); + soft 2s natural and wild
    ("twos top soft", {"twos_top_bombs": True}, "2s 2h 2d 9s 9h BJ", "5s 5h 5d", True, 2, 4),
    # hard 5s: nothing; + hard 2s (2 2 2 BJ); the soft 2s still lose to a hard bomb
    ("twos top hard", {"twos_top_bombs": True}, "2s 2h 2d 9s 9h BJ", "5s 5h 5d 5c", True, 1, 2),
    # soft 5s: hard 2s; + soft 9s (9 9 BJ), soft 2s natural and wild
    ("any higher soft", {"bombs_any_higher": True}, "2s 2h 2d 9s 9h BJ", "5s 5h 5d", True, 2, 5),
    # hard 5s: nothing; + 9999, 999 BJ, 222 BJ
    (
        "any higher hard",
        {"bombs_any_higher": True},
        "9s 9h 9d 9c 2s 2h 2d BJ",
        "5s 5h 5d 5c",
        True,
        1,
        4,
    ),
    # hard Ks: the 9s are lower either way
    ("any higher lower", {"bombs_any_higher": True}, "9s 9h 9d 9c BJ", "Ks Kh Kd Kc", True, 1, 1),
    # singles 5 6, pairs 55 66, pair straight 5566
    ("no pair straights", {"pair_straights": False}, "5s 5h 6s 6h", None, True, 5, 4),
    # 4 singles; straights 345, 456, 3456
    ("max straight 3", {"max_straight": 3}, "3s 4s 5s 6s", None, True, 7, 6),
    # a straight of 4 on the table, answered by the next one
    ("max straight 4 follow", {"max_straight": 4}, "5h 6h 7h 8h", "4s 5s 6s 7s", True, 2, 2),
    # 3 singles, 3 pairs, straight 345, pair straights 3344 4455 334455
    ("max pair straight 5", {"max_pair_straight": 5}, "3s 3h 4s 4h 5s 5h", None, True, 10, 9),
    # a lone joker leads as a 3, or passes
    ("lone joker leads", {"lone_joker_last": False}, "BJ", None, True, 1, 1),
    # on a single 9: pass or the joker as a T; or only pass
    ("lone joker follows", {"lone_joker_last": False}, "RJ", "9s", True, 2, 1),
    # wild soft 7s: 888, 88 RJ, 888 RJ; no natural soft 7s can exist with one deck
    (
        "natural over wild",
        {"natural_over_wild": True},
        "7d 8s 8h 8d RJ",
        "7s 7h BJ",
        True,
        4,
        4,
    ),
    # single 2, pairs 22 and 2 BJ, soft 2 2 BJ; only single 2 and pair 22
    ("joker not two lead", {"joker_not_two": True}, "2s 2h BJ", None, True, 4, 2),
    # on a single A the lone joker counted as a 2
    ("joker not two on A", {"joker_not_two": True}, "BJ", "Ah", True, 2, 1),
    # on a single K it counts as an A either way
    ("joker not two on K", {"joker_not_two": True}, "BJ", "Kh", True, 2, 2),
]


def build(hand: str, table: str | None, rules_: GandengyanRules, stock_empty: bool) -> GameState:
    if table is None:
        return lead(hand, rules_, stock_empty=stock_empty)
    return follow(hand, table, rules_, stock_empty=stock_empty)


@pytest.mark.parametrize(
    ("options", "hand", "table", "stock_empty", "without", "with_option"),
    [entry[1:] for entry in COUNTED],
    ids=[entry[0] for entry in COUNTED],
)
def test_counted_positions(
    options: dict[str, Any],
    hand: str,
    table: str | None,
    stock_empty: bool,
    without: int,
    with_option: int,
) -> None:
    for ruleset, count in ((STANDARD, without), (rules(**options), with_option)):
        state = build(hand, table, ruleset, stock_empty)
        assert len(check_legal_moves(state)) == count, (ruleset.to_dict(), state.legal_moves())
        for move in state.legal_moves():
            state.apply(0, move)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize(
    ("options", "hand", "table", "stock_empty", "_", "count"), [entry[1:] for entry in COUNTED]
)
def test_counted_positions_with_every_number_of_seats(
    players: int,
    options: dict[str, Any],
    hand: str,
    table: str | None,
    stock_empty: bool,
    _: int,
    count: int,
) -> None:
    state = build(hand, table, rules(players=players, **options), stock_empty)
    assert len(check_legal_moves(state)) == count


def test_the_order_of_legal_moves_under_house_rules() -> None:
    state = follow("2s 2h 2d 9s 9h BJ", "5s 5h 5d", rules(bombs_any_higher=True))
    assert [str(m) for m in state.legal_moves()] == [
        "pass",
        "9s 9h BJ",
        "2s 2h 2d",
        "2s 2h BJ",
        "2s 2h 2d BJ",
    ]
    state = follow("2s 2h 6s 6h BJ", "5s 5h", rules(twos_jump_pairs=True))
    assert [str(m) for m in state.legal_moves()] == [
        "pass",
        "6s 6h",
        "6s BJ",
        "2s 2h",
        "2s BJ",
        "6s 6h BJ",
        "2s 2h BJ",
    ]


def perft(state: GameState, depth: int) -> int:
    if depth == 0 or state.is_terminal:
        return 1
    moves = check_legal_moves(state)
    return sum(perft(state.apply(state.to_move, m), depth - 1) for m in moves)


RUNS = ["3s 4s 5s 6s 7s 7h", "5h 5d 6h 6d 2s", "8s 8h 8d 2h 2d BJ"]
PAIRS = ["3s 3h 4s 4h 5s 6s 7s 8s", "5h 5d 5c 2s 2h", "9s 9h 9d 2d BJ"]
SOFT = ["5s 5h 5d 9s", "2s 2h 2d 3c", "7s 7h 7d 4c"]
HARD = ["5s 5h 5d 5c 9s", "2s 2h 2d 3c BJ", "7s 7h 7d 7c 4c"]
PERFT: list[tuple[dict[str, Any], list[str], int, int, int]] = [
    # (options, hands with the stock empty and seat 0 dealing, depth, without, with)
    ({"twos_jump_pairs": True}, RUNS, 4, 152, 154),
    ({"twos_top_bombs": True}, SOFT, 4, 20, 21),
    ({"twos_top_bombs": True}, HARD, 4, 50, 55),
    ({"bombs_any_higher": True}, SOFT, 4, 20, 22),
    ({"bombs_any_higher": True}, HARD, 4, 50, 57),
    ({"pair_straights": False}, PAIRS, 3, 154, 148),
    ({"max_straight": 3}, RUNS, 4, 152, 130),
    ({"max_pair_straight": 3}, PAIRS, 3, 154, 148),
    ({"lone_joker_last": False}, ["BJ", "5s 6s", "7s 9s"], 4, 1, 3),
    ({"lone_joker_last": False, "players": 2}, ["3s RJ", "BJ"], 4, 3, 2),
    ({"natural_over_wild": True}, RUNS, 4, 152, 152),
    ({"joker_not_two": True}, RUNS, 4, 152, 133),
]


@pytest.mark.parametrize(("options", "hands", "depth", "without", "with_option"), PERFT)
def test_perft(
    options: dict[str, Any], hands: list[str], depth: int, without: int, with_option: int
) -> None:
    """Counted leaves a few plies deep; every position on the way is checked against the
    oracle's brute force (``check_legal_moves``), so the counts are the rules text's too."""
    players = options.get("players", 3)
    counted = []
    for ruleset in (rules(players=players), rules(**options)):
        state = GameState.from_position(hands, stock="", dealer=0, rules=ruleset)
        counted.append(perft(state, depth))
    assert counted == [without, with_option]


# The lone joker ----------------------------------------------------------------------------------

NO_LONE = rules(lone_joker_last=False)


def code(state: GameState, text: str) -> str:
    assert state.to_move is not None
    try:
        state.apply(state.to_move, parse_move(text))
    except IllegalMoveError as exc:
        return exc.code
    return "legal"


def test_a_lone_joker_may_never_be_played() -> None:
    assert code(lead("BJ", NO_LONE), "BJ") == "lone_joker"
    assert code(follow("RJ", "9s", NO_LONE), "RJ") == "lone_joker"
    assert code(lead("BJ"), "BJ") == "legal"


def test_a_leader_with_a_lone_joker_passes_and_the_next_seat_leads_without_draws() -> None:
    hands = ["BJ", "5s 6s", "7s 8s"]
    state = GameState.from_position(hands, stock="9s Ts Js", dealer=0, rules=NO_LONE)
    assert state.legal_moves() == [PASS]
    assert ENGINE.timeout_action(state, 0) is PASS
    after = state.apply(0, PASS)
    assert after.to_move == 1 and after.table is None and after.leader == 1
    assert after.hands == state.hands and after.stock_count == 3
    assert after.round_actions == () and after.history == ((0, PASS),)
    assert after.view_for(1)["leader"] == 1
    # a round led by seat 1 goes round: seat 0 may only pass; two passes end it and all draw
    after = after.apply(1, parse_move("5s")).apply(2, PASS)
    assert after.legal_moves() == [PASS]
    after = after.apply(0, PASS)
    assert after.to_move == 1 and after.stock_count == 0
    assert [c.rank for c in after.hand(0)] == [Rank.JACK, Rank.BLACK_JOKER]
    # with the standard rules the leader may not pass
    standard = GameState.from_position(hands, stock="", dealer=0)
    assert code(standard, "pass") == "leader_must_play"
    assert code(GameState.from_position(["BJ 3s", *hands[1:]], "", 0, rules=NO_LONE), "pass") == (
        "leader_must_play"
    )


def test_two_lone_jokers_end_the_deal_with_no_winner() -> None:
    two = rules(players=2, lone_joker_last=False)
    state = GameState.from_position(["3s BJ", "RJ"], stock="", dealer=0, rules=two)
    end = state.apply(0, parse_move("3s"))
    assert end.is_terminal and end.winner is None and end.to_move is None
    assert end.legal_moves() == [] and end.phase.value == "over"
    view = end.view_for(1)
    assert view["phase"] == "over" and view["winner"] is None and view["to_move"] is None
    result = settle(end, base=400)
    assert result.winner is None and result.payments == (0, 0) and result.spring == (False, False)
    assert result.to_json()["winner"] is None
    assert ENGINE.pay(result, [100, 100]) == (0, 0)
    with pytest.raises(IllegalMoveError) as refused:
        end.apply(1, PASS)
    assert refused.value.code == "game_over"
    # the record replays to the same end, and the engine's record functions agree
    record = GameRecord.from_state(end, base=400)
    data = json.loads(json.dumps(record.to_json()))
    assert data["rules"] == {"players": 2, "lone_joker_last": False}
    replay = GameRecord.from_json(data).replay()
    assert replay.ok and replay.state == end and replay.settlement == result
    outcome = ENGINE.replay_record(ENGINE.record_to_json(end, base=400))
    assert outcome.ok and outcome.settlement is not None and outcome.settlement.winner is None


def test_a_deal_of_two_lone_jokers_is_over_at_once() -> None:
    two = rules(players=2, lone_joker_last=False)
    state = GameState.from_position(["BJ", "RJ"], stock="3s 4s", dealer=1, rules=two)
    assert state.is_terminal and state.winner is None
    assert settle(state, base=1).payments == (0, 0)
    with pytest.raises(ValueError, match="lone joker"):
        GameState.from_position(["BJ", "RJ"], stock="3s 4s", dealer=1, rules=rules(players=2))


def test_two_lone_jokers_with_cards_to_draw_play_on() -> None:
    two = rules(players=2, lone_joker_last=False)
    state = GameState.from_position(["3s BJ", "RJ"], stock="4s 5s", dealer=0, rules=two)
    state = state.apply(0, parse_move("3s"))
    assert not state.is_terminal and state.legal_moves() == [PASS]
    state = state.apply(1, PASS)  # the round ends: both draw
    assert state.to_move == 0 and state.hand_count(0) == 2 and state.hand_count(1) == 2


def test_joker_not_two_lone_joker_on_an_ace() -> None:
    option = rules(joker_not_two=True)
    assert code(follow("BJ", "Ah", option), "BJ") == "does_not_beat"
    assert code(follow("BJ", "Ah"), "BJ") == "legal"
    state = follow("BJ", "Kh", option).apply(0, parse_move("BJ"))
    assert state.winner == 0 and state.table is not None and state.table.combo is SINGLE[R.ACE]
    assert lead("RJ", option).apply(0, parse_move("RJ")).table.combo is SINGLE[R.THREE]


# Meanings named by a player ---------------------------------------------------------------------


def test_named_meanings_and_ambiguity_under_house_rules() -> None:
    everything = rules(**ALL_OPTIONS)
    state = lead("5s 6h BJ 9c", everything)
    with pytest.raises(AmbiguousPlayError) as ambiguous:
        state.resolve(0, parse_move("5s 6h BJ"), strict=True)
    assert ambiguous.value.meanings == ("4 5 6", "5 6 7")
    assert code(lead("5s 6h BJ 9c", rules(max_straight=2)), "5s 6h BJ = 4 5 6") == (
        "not_a_combination"
    )
    assert code(lead("2s 9c BJ", everything), "2s BJ = 2 2") == "not_a_combination"
    # following, the meaning that beats is the one taken, under the rules' beats
    state = follow("2s 2h BJ 9c", "5s 5h", rules(twos_jump_pairs=True))
    resolved = state.resolve(0, parse_move("2s BJ"), strict=True)
    assert isinstance(resolved, Play) and resolved.combo is PAIR[R.TWO]
    assert code(follow("2s 2h BJ 9c", "5s 5h"), "2s BJ") == "does_not_beat"
    assert code(follow("2s 2h 9c", "5s 5h", rules(twos_jump_pairs=True)), "2s 2h = 2 2") == "legal"
    straight = follow("Qs Ks BJ 3c", "Ts Jh Qd", rules(max_straight=3), meaning="T J Q")
    assert [str(m) for m in straight.legal_moves()] == ["pass", "Qs Ks BJ = J Q K"]


def test_straights_and_pair_straights_on_the_table_under_limits() -> None:
    state = follow("5h 6h 7h 8h BJ", "4s 5s 6s 7s", rules(max_straight=4))
    assert check_legal_moves(state)
    assert code(lead("3s 4s 5s 6s 7s", rules(max_straight=4)), "3s 4s 5s 6s 7s") == (
        "not_a_combination"
    )


# Random positions and playouts over random combinations of options ------------------------------


@st.composite
def rule_sets(draw: st.DrawFn, players: int | None = None) -> GandengyanRules:
    options: dict[str, Any] = {}
    for name, value in ALL_OPTIONS.items():
        if draw(st.booleans()):
            options[name] = value
    if "max_straight" in options:
        options["max_straight"] = draw(st.integers(1, 13))
    if "max_pair_straight" in options:
        options["max_pair_straight"] = draw(st.integers(1, 25))
    options["players"] = players if players is not None else draw(st.integers(2, 6))
    for name, values in (
        ("draw", ["all", "winner"]),
        ("rocket_multiplier", [4, 8]),
        ("one_card_free", [False, True]),
        ("loser_twos_jokers_double", [False, True]),
        ("max_multiplier", [None, 16]),
    ):
        options[name] = draw(st.sampled_from(values))
    return GandengyanRules.from_dict(options)


@SETTINGS
@given(
    rule_sets(),
    dense_card_lists(min_size=1, max_size=9),
    st.integers(0, 2**32 - 1),
    st.booleans(),
)
def test_random_positions_match_the_oracle(
    rules_: GandengyanRules, hand: list[Card], seed: int, stock_empty: bool
) -> None:
    """Seat 0 holds ``hand`` and answers a random lead of the last seat (or leads)."""
    rng = random.Random(seed)
    rest = [card for card in CARDS if card not in hand]
    rng.shuffle(rest)
    players = rules_.players
    leader = rest[:6]
    others = [[card] for card in rest[6 : 6 + players - 2]]
    stock = [] if stock_empty else rest[10:12]
    if len(hand) == 1 and hand[0].rank.is_joker and not stock_empty and rules_.lone_joker_last:
        stock = []
    state = GameState.from_position([hand, *others, leader], stock, players - 1, rules=rules_)
    if rng.random() < 0.8:
        leads = [m for m in state.legal_moves() if m is not PASS]
        state = state.apply(players - 1, leads[rng.randrange(len(leads))])
    else:
        state = GameState.from_position([hand, *others, leader], stock, 0, rules=rules_)
    if state.is_terminal:
        return
    moves = check_legal_moves(state)
    for move in moves:
        state.apply(state.to_move, move)
    # any cards of the hand are either a legal action or refused with a stable code
    seat = state.to_move
    cards = rng.sample(state.hand(seat), rng.randint(1, state.hand_count(seat)))
    try:
        resolved = state.resolve(seat, Play(cards))
    except IllegalMoveError as exc:
        assert exc.code in CODES
    else:
        assert action_key(resolved) in {action_key(m) for m in moves}


def check_game(end: GameState, start: GameState) -> None:
    assert end.is_terminal and end.legal_moves() == []
    cards = [c for s in range(end.players) for c in end.hand(s)]
    cards += list(end.stock_cards())
    played = [c for _, m in end.history if isinstance(m, Play) for c in m.cards]
    assert sorted(cards + played) == sorted(
        [c for s in range(start.players) for c in start.hand(s)] + list(start.stock_cards())
    )
    result = settle(end, base=3)
    assert sum(result.payments) == 0
    if end.winner is None:
        assert result.payments == (0,) * end.players
    assert sum(ENGINE.pay(result, [10**9] * end.players)) == 0
    data = json.loads(json.dumps(ENGINE.record_to_json(end, base=3)))
    assert data["rules"] == end.rules.to_dict()
    record = GameRecord.from_json(data)
    assert GameRecord.loads(record.dumps()) == record
    replay = record.replay()
    assert replay.ok and replay.state == end and replay.settlement == result


def play_out(state: GameState, policies: list[Any], *, check: bool = False) -> GameState:
    start = state
    while not state.is_terminal:
        seat = state.to_move
        assert seat is not None
        legal = check_legal_moves(state) if check else state.legal_moves()
        view = state.view_for(seat)
        assert view["rules"] == state.rules.to_dict() and "hand" in view
        json.dumps(view)
        timeout = ENGINE.timeout_action(state, seat)
        assert timeout in legal or state.is_legal(seat, timeout)
        move = policies[seat].choose(view, legal)
        assert move in legal
        state = state.apply(seat, move)
    check_game(state, start)
    return state


@SETTINGS
@given(rule_sets(), st.integers(0, 2**32 - 1))
def test_random_games_under_random_options(rules_: GandengyanRules, seed: int) -> None:
    state = GameState.deal(seed, rules=rules_)
    policies = [RandomPolicy(seed + s) for s in range(rules_.players)]
    play_out(state, policies)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_seeded_games_with_every_option_and_every_bot(players: int) -> None:
    everything = rules(players=players, **ALL_OPTIONS)
    bots = [SensiblePolicy(), GreedyPolicy(), RandomPolicy(players)]
    for seed in range(40):
        state = GameState.deal(seed, rules=everything)
        policies = [bots[(seat + seed) % 3] for seat in range(players)]
        play_out(state, policies)


def test_seeded_games_under_random_option_sets_with_the_oracle_at_every_step() -> None:
    rng = random.Random(20)
    for game in range(30):
        options = {name: value for name, value in ALL_OPTIONS.items() if rng.random() < 0.5}
        if "max_straight" in options:
            options["max_straight"] = rng.randint(2, 8)
        ruleset = rules(players=rng.randint(2, 6), **options)
        state = GameState.deal(game, rules=ruleset)
        policies = [RandomPolicy(game * 7 + s) for s in range(ruleset.players)]
        play_out(
            state, policies, check=max(state.hand_count(s) for s in range(ruleset.players)) < 9
        )


def test_the_sensible_bot_knows_a_lone_joker_never_goes_out() -> None:
    """Holding 5 and a joker under lone_joker_last false, the 5 is no way out."""
    state = lead("5s 9h 9d BJ", NO_LONE)
    move = SensiblePolicy().choose(state.view_for(0), state.legal_moves())
    assert move in state.legal_moves()
    view = state.view_for(0)
    assert view["rules"] == {"lone_joker_last": False}


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_house_rule_path_agrees_with_the_standard_one(players: int) -> None:
    """natural_over_wild changes nothing with one deck: the move generator's house-rule path
    must list the very moves of the standard one, in the same order, game after game."""
    standard = rules(players=players)
    ruled = rules(players=players, natural_over_wild=True)
    assert standard.standard_play and not ruled.standard_play
    for seed in range(40):
        a, b = GameState.deal(seed, rules=standard), GameState.deal(seed, rules=ruled)
        pick = random.Random(seed)
        while not a.is_terminal:
            moves = a.legal_moves()
            assert b.legal_moves() == moves
            move = moves[pick.randrange(len(moves))]
            a, b = a.apply(a.to_move, move), b.apply(b.to_move, move)
        assert b.is_terminal and b.winner == a.winner
