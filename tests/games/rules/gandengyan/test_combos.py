"""Combinations (rules §4) and what beats what (rules §5).

``meanings("5s 6h BJ")`` lists what a set of cards can mean, as text (``"straight 4 5 6"``);
``combo("4 5 6")`` is the combination that represents those ranks.
"""

from __future__ import annotations

import pytest

from games.rules.cards import CARDS, Rank, mask_of, parse_cards, parse_ranks
from games.rules.errors import IllegalMoveError, NotationError
from games.rules.gandengyan import GameState
from games.rules.gandengyan.combos import (
    HARD_BOMB,
    PAIR,
    PAIR_STRAIGHT,
    ROCKET,
    SINGLE,
    SOFT_BOMB,
    STRAIGHT,
    Combo,
    ComboKind,
    beats,
    combo_from_ranks,
    interpretations,
    next_rank,
)
from games.rules.gandengyan.moves import Play

SUITED = [rank for rank in Rank if not rank.is_joker]
STRAIGHT_RANKS = [rank for rank in SUITED if rank <= Rank.ACE]  # 3 .. A


def meanings(text: str) -> list[str]:
    return [str(c) for c in interpretations(mask_of(parse_cards(text)))]


def combo(ranks: str) -> Combo:
    return combo_from_ranks(parse_ranks(ranks))


def all_combos() -> list[Combo]:
    return [
        *SINGLE.values(),
        *PAIR.values(),
        *STRAIGHT.values(),
        *PAIR_STRAIGHT.values(),
        *SOFT_BOMB.values(),
        *HARD_BOMB.values(),
        ROCKET,
    ]


NORMAL = [c for c in all_combos() if c.bomb_class == 0]


# §4 The kinds, natural and with a wildcard ------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("3s", "single 3"),
        ("Th", "single T"),
        ("Ad", "single A"),
        ("2c", "single 2"),
    ],
)
def test_single_is_any_one_card_but_a_joker(cards, expected):
    assert meanings(cards) == [expected]


@pytest.mark.parametrize("cards", ["BJ", "RJ"])
def test_a_lone_joker_is_not_a_combination_by_itself(cards):
    assert meanings(cards) == []


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("5s 5h", "pair 5 5"),
        ("As Ac", "pair A A"),
        ("2h 2d", "pair 2 2"),
        ("5s BJ", "pair 5 5"),
        ("Kd RJ", "pair K K"),
        ("3c BJ", "pair 3 3"),
    ],
)
def test_pair_is_two_cards_of_one_rank_2_included(cards, expected):
    assert meanings(cards) == [expected]


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("3s 4h 5d", ["straight 3 4 5"]),
        ("9s Th Jd Qc", ["straight 9 T J Q"]),
        ("Qs Kh Ad", ["straight Q K A"]),
        (
            "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As",
            ["straight 3 4 5 6 7 8 9 T J Q K A"],
        ),
        ("5s 7h BJ", ["straight 5 6 7"]),  # the joker fills the gap
        ("3s 4h BJ", ["straight 3 4 5"]),  # nothing below 3
        ("Qs As RJ", ["straight Q K A"]),
        ("4h 5h 6h 8h RJ", ["straight 4 5 6 7 8"]),
        (
            "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks BJ",
            ["straight 3 4 5 6 7 8 9 T J Q K A"],
        ),
    ],
)
def test_straight_is_3_to_12_consecutive_ranks_inside_3_to_ace(cards, expected):
    assert meanings(cards) == expected


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("5s 5h 6d 6c", ["pair_straight 5 5 6 6"]),
        ("Qs Qh Ks Kh As Ah", ["pair_straight Q Q K K A A"]),
        ("3s 3h 4s 4h 5s 5h 6s 6h", ["pair_straight 3 3 4 4 5 5 6 6"]),
        ("5s 5h 6d BJ", ["pair_straight 5 5 6 6"]),
        ("3s 4s 4h RJ", ["pair_straight 3 3 4 4"]),
        ("Ks Kh As BJ", ["pair_straight K K A A"]),
        ("7s 7h 8s BJ 9s 9h", ["pair_straight 7 7 8 8 9 9"]),
    ],
)
def test_pair_straight_is_two_or_more_consecutive_pairs_inside_3_to_ace(cards, expected):
    assert meanings(cards) == expected


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("7s 7h 7d", "soft_bomb 7 7 7"),
        ("2s 2h 2c", "soft_bomb 2 2 2"),
        ("7s 7h BJ", "soft_bomb 7 7 7"),
        ("2s 2h RJ", "soft_bomb 2 2 2"),
        ("As Ad RJ", "soft_bomb A A A"),
    ],
)
def test_soft_bomb_is_three_of_a_rank_2_included(cards, expected):
    assert meanings(cards) == [expected]


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("7s 7h 7d 7c", "hard_bomb 7 7 7 7"),
        ("2s 2h 2d 2c", "hard_bomb 2 2 2 2"),
        ("7s 7h 7d RJ", "hard_bomb 7 7 7 7"),
        ("2s 2h 2d BJ", "hard_bomb 2 2 2 2"),
        ("3h 3d 3c BJ", "hard_bomb 3 3 3 3"),
    ],
)
def test_hard_bomb_is_four_of_a_rank_2_included(cards, expected):
    assert meanings(cards) == [expected]


@pytest.mark.parametrize("cards", ["BJ RJ", "RJ BJ", "rj bj"])
def test_rocket_is_the_black_and_the_red_joker(cards):
    assert interpretations(mask_of(parse_cards(cards))) == (ROCKET,)
    assert ROCKET.kind is ComboKind.ROCKET
    assert ROCKET.ranks_text() == "BJ RJ"


def test_kind_of_each_combination_table_entry():
    assert combo("7").kind is ComboKind.SINGLE
    assert combo("7 7").kind is ComboKind.PAIR
    assert combo("7 8 9").kind is ComboKind.STRAIGHT
    assert combo("7 7 8 8").kind is ComboKind.PAIR_STRAIGHT
    assert combo("7 7 7").kind is ComboKind.SOFT_BOMB
    assert combo("7 7 7 7").kind is ComboKind.HARD_BOMB
    assert combo("BJ RJ") is ROCKET


def test_rank_of_a_combination_is_its_lowest_rank():
    assert combo("7").rank is Rank.SEVEN
    assert combo("2 2").rank is Rank.TWO
    assert combo("9 T J Q").rank is Rank.NINE
    assert combo("Q Q K K A A").rank is Rank.QUEEN
    assert combo("A A A").rank is Rank.ACE
    assert combo("2 2 2 2").rank is Rank.TWO
    assert ROCKET.rank is None


def test_straight_lengths_are_3_to_12():
    lengths = {c.length for c in STRAIGHT.values()}
    assert lengths == set(range(3, 13))


def test_pair_straight_lengths_are_even_from_4_to_24():
    lengths = {c.length for c in PAIR_STRAIGHT.values()}
    assert lengths == set(range(4, 25, 2))


# §4 The listed wildcard examples -----------------------------------------------------------------


def test_example_5s_bj_is_a_pair_of_5s():
    assert meanings("5s BJ") == ["pair 5 5"]


def test_example_2h_rj_is_a_pair_of_2s():
    assert meanings("2h RJ") == ["pair 2 2"]


def test_example_5s_6h_bj_is_straight_4_5_6_or_5_6_7():
    assert meanings("5s 6h BJ") == ["straight 4 5 6", "straight 5 6 7"]


def test_example_7s_7h_bj_is_a_soft_bomb_of_7s():
    assert meanings("7s 7h BJ") == ["soft_bomb 7 7 7"]


def test_example_7s_7h_7d_rj_is_a_hard_bomb_of_7s():
    assert meanings("7s 7h 7d RJ") == ["hard_bomb 7 7 7 7"]


def test_example_5s_5h_6d_bj_is_the_pair_straight_5_5_6_6():
    assert meanings("5s 5h 6d BJ") == ["pair_straight 5 5 6 6"]


def test_example_in_the_record_section_can_be_played_as_4_5_6():
    assert combo("4 5 6") in interpretations(mask_of(parse_cards("5s 6h BJ")))


def test_interpretations_are_listed_lowest_rank_first():
    assert meanings("9s Th RJ") == ["straight 8 9 T", "straight 9 T J"]
    assert meanings("4s 5h 6d 7c BJ") == ["straight 3 4 5 6 7", "straight 4 5 6 7 8"]


def test_either_joker_is_a_wildcard():
    for text in ["5s {j}", "5s 6h {j}", "7s 7h {j}", "7s 7h 7d {j}", "5s 5h 6d {j}"]:
        assert meanings(text.format(j="BJ")) == meanings(text.format(j="RJ"))


# §4 A wildcard combination is worth exactly the natural one -----------------------------------


@pytest.mark.parametrize(
    ("wild", "natural"),
    [
        ("5s BJ", "5s 5h"),
        ("2h RJ", "2s 2h"),
        ("5s 7h BJ", "5s 6s 7h"),
        ("5s 5h 6d BJ", "5s 5h 6d 6c"),
        ("7s 7h BJ", "7s 7h 7d"),
        ("7s 7h 7d RJ", "7s 7h 7d 7c"),
    ],
)
def test_wildcard_combination_is_worth_the_same_as_the_natural_one(wild, natural):
    (wild_combo,) = interpretations(mask_of(parse_cards(wild)))
    (natural_combo,) = interpretations(mask_of(parse_cards(natural)))
    assert wild_combo is natural_combo
    for other in all_combos():
        assert beats(wild_combo, other) == beats(natural_combo, other)
        assert beats(other, wild_combo) == beats(other, natural_combo)


def test_natural_and_wildcard_bombs_of_one_rank_are_equal_so_neither_beats_the_other():
    for rank in SUITED:
        assert not beats(SOFT_BOMB[rank], SOFT_BOMB[rank])
        assert not beats(HARD_BOMB[rank], HARD_BOMB[rank])
    # In play: a natural soft bomb of 8s beats a wildcard one of 7s, and the other way round.
    state = follow("7s 7h BJ", "8s 8h 8d")
    assert state.apply(1, play("8s 8h 8d")).table.combo is SOFT_BOMB[Rank.EIGHT]
    state = follow("7s 7h 7d", "8s 8h RJ")
    assert state.apply(1, play("8s 8h RJ")).table.combo is SOFT_BOMB[Rank.EIGHT]


# §4 What is not a combination -----------------------------------------------------------------


@pytest.mark.parametrize("cards", ["5s BJ RJ", "5s 6h BJ RJ", "7s 7h BJ RJ", "5s 5h 6d BJ RJ"])
def test_at_most_one_joker_per_combination_except_the_rocket(cards):
    assert meanings(cards) == []


def test_the_two_jokers_are_always_the_rocket_never_a_pair():
    found = interpretations(mask_of(parse_cards("BJ RJ")))
    assert found == (ROCKET,)
    assert all(c.kind is not ComboKind.PAIR for c in found)
    with pytest.raises(NotationError):
        combo_from_ranks(parse_ranks("BJ BJ"))


@pytest.mark.parametrize(
    "cards", ["7s 7h 7d 7c BJ", "2s 2h 2d 2c RJ", "3s 3h 3d 3c BJ", "7s 7h 7d 7c BJ RJ"]
)
def test_four_of_a_kind_plus_a_joker_is_not_a_combination(cards):
    assert meanings(cards) == []


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("Qs Ks As BJ", ["straight J Q K A"]),  # not Q K A 2
        ("Ks As BJ", ["straight Q K A"]),  # not K A 2
        ("Ks As Kh BJ", ["pair_straight K K A A"]),  # not K K A A 2 2
        ("As 2s BJ", []),  # not A 2 + anything
        ("As Ah BJ", ["soft_bomb A A A"]),
    ],
)
def test_joker_never_stands_for_a_2_in_a_straight_or_pair_straight(cards, expected):
    assert meanings(cards) == expected


@pytest.mark.parametrize(
    "cards",
    [
        "Ks As 2s",
        "Qs Ks As 2s",
        "2s 3s 4s",
        "2s 3s 4s 5s",
        "As 2s 3s",
        "Ks Kh As Ah 2s 2h",
        "As Ah 2s 2h",
        "2s 2h 3s 3h",
        "Ks 2s BJ",
        "2s 3s BJ",
    ],
)
def test_straights_and_pair_straights_never_contain_a_2(cards):
    assert meanings(cards) == []


@pytest.mark.parametrize(
    "cards",
    [
        "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s",
        "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As BJ",
        "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s BJ",
    ],
)
def test_there_is_no_13_card_straight(cards):
    assert meanings(cards) == []


@pytest.mark.parametrize(
    "cards",
    [
        "5s 8h BJ",  # 6 and 7 missing
        "5s 6h 9d BJ",  # 7 and 8 missing
        "5s 7h 9d BJ",  # 6 and 8 missing
        "3s 4s 6s 8s RJ",
    ],
)
def test_one_joker_fills_at_most_one_missing_rank_of_a_straight(cards):
    assert meanings(cards) == []


@pytest.mark.parametrize(
    "cards",
    [
        "5s 6s 6h 7s BJ",  # two single ranks + joker
        "5s 6s 7s 7h BJ",
        "5s 6s BJ 7s 7h 8s",
        "5s 5h 7s 7h BJ",  # the joker cannot stand for a whole missing pair
        "5s 5h 6s 6h BJ",  # odd number of cards
    ],
)
def test_a_pair_straight_needs_every_pair_but_one_card(cards):
    assert meanings(cards) == []


@pytest.mark.parametrize(
    "cards",
    [
        "5s 6h",  # two ranks, no straight of 2
        "5s 5h 6s",
        "5s 5h 6s 6h 6d",
        "5s 5h 5d 6s",
        "5s 5h 5d 6s 6h 6d",  # no triple straight
        "5s 7h",
        "5s 5h 7s 7h",  # a pair straight needs consecutive ranks
        "3s 4s 6s",
    ],
)
def test_other_shapes_are_not_combinations(cards):
    assert meanings(cards) == []


@pytest.mark.parametrize("ranks", ["4 6", "5 5 6", "A 2 3", "K A 2", "BJ", "5 BJ", "2 2 2 2 2"])
def test_combo_from_ranks_rejects_what_is_not_a_combination(ranks):
    with pytest.raises(NotationError, match="not a combination"):
        combo_from_ranks(parse_ranks(ranks))


# §5 What beats what ------------------------------------------------------------------------------


def test_rocket_beats_everything():
    for table in all_combos():
        if table is not ROCKET:
            assert beats(ROCKET, table), table


def test_nothing_beats_a_rocket():
    for play in all_combos():
        assert not beats(play, ROCKET), play


def test_hard_bomb_beats_every_soft_bomb_and_every_normal_combination():
    for bomb in HARD_BOMB.values():
        for table in [*SOFT_BOMB.values(), *NORMAL]:
            assert beats(bomb, table), (bomb, table)


@pytest.mark.parametrize(
    ("play", "table", "expected"),
    [
        ("8 8 8 8", "7 7 7 7", True),
        ("4 4 4 4", "3 3 3 3", True),
        ("A A A A", "K K K K", True),
        ("9 9 9 9", "7 7 7 7", False),  # no skipping
        ("7 7 7 7", "7 7 7 7", False),
        ("6 6 6 6", "7 7 7 7", False),
        ("2 2 2 2", "A A A A", False),  # nothing is one higher than an A
        ("2 2 2 2", "K K K K", False),
        ("3 3 3 3", "2 2 2 2", False),
        ("A A A A", "2 2 2 2", False),
    ],
)
def test_hard_bomb_beats_a_hard_bomb_only_exactly_one_higher(play, table, expected):
    assert beats(combo(play), combo(table)) is expected


def test_hard_bomb_beats_hard_bombs_exactly_one_rank_higher_and_no_other():
    for play in HARD_BOMB.values():
        for table in HARD_BOMB.values():
            expected = table.rank < Rank.ACE and play.rank == table.rank + 1
            assert beats(play, table) is expected, (play, table)


def test_soft_bomb_beats_every_normal_combination():
    for bomb in SOFT_BOMB.values():
        for table in NORMAL:
            assert beats(bomb, table), (bomb, table)


def test_soft_bomb_never_beats_a_hard_bomb_or_a_rocket():
    for bomb in SOFT_BOMB.values():
        for table in [*HARD_BOMB.values(), ROCKET]:
            assert not beats(bomb, table), (bomb, table)


@pytest.mark.parametrize(
    ("play", "table", "expected"),
    [
        ("8 8 8", "7 7 7", True),
        ("A A A", "K K K", True),
        ("9 9 9", "7 7 7", False),  # no skipping
        ("7 7 7", "7 7 7", False),
        ("6 6 6", "7 7 7", False),
        ("2 2 2", "A A A", False),  # nothing is one higher than an A
        ("3 3 3", "2 2 2", False),
    ],
)
def test_soft_bomb_beats_a_soft_bomb_only_exactly_one_higher(play, table, expected):
    assert beats(combo(play), combo(table)) is expected


def test_soft_bomb_beats_soft_bombs_exactly_one_rank_higher_and_no_other():
    for play in SOFT_BOMB.values():
        for table in SOFT_BOMB.values():
            expected = table.rank < Rank.ACE and play.rank == table.rank + 1
            assert beats(play, table) is expected, (play, table)


def test_no_normal_combination_beats_a_bomb():
    for play in NORMAL:
        for table in [*SOFT_BOMB.values(), *HARD_BOMB.values(), ROCKET]:
            assert not beats(play, table), (play, table)


@pytest.mark.parametrize(
    ("play", "table", "expected"),
    [
        ("5", "4", True),
        ("6", "4", False),  # no skipping: on a single 4 only a single 5
        ("4", "4", False),
        ("3", "4", False),
        ("A", "K", True),
        ("K", "Q", True),
        ("T", "9", True),
        ("J", "T", True),
        ("5 5", "4 4", True),
        ("6 6", "4 4", False),
        ("4 4", "4 4", False),
        ("3 3", "4 4", False),
        ("A A", "K K", True),
        ("4 5 6", "3 4 5", True),
        ("5 6 7", "3 4 5", False),
        ("3 4 5", "4 5 6", False),
        ("4 5 6 7", "3 4 5 6", True),
        ("4 5 6 7", "3 4 5", False),  # same kind, other length
        ("4 5 6", "3 4 5 6", False),
        ("4 4 5 5", "3 3 4 4", True),
        ("5 5 6 6", "3 3 4 4", False),
        ("4 4 5 5 6 6", "3 3 4 4", False),
        ("4 4 5 5", "3 3 4 4 5 5", False),
        ("4 4 5 5 6 6", "3 3 4 4 5 5", True),
        ("5 5", "4", False),  # other kind
        ("5", "4 4", False),
        ("4 5 6 7", "3 3 4 4", False),
        ("4 4 5 5", "3 4 5 6", False),
    ],
)
def test_normal_combination_beats_only_same_kind_same_length_exactly_one_higher(
    play, table, expected
):
    assert beats(combo(play), combo(table)) is expected


def test_normal_beats_by_definition_on_every_pair_of_normal_combinations():
    for play in NORMAL:
        for table in NORMAL:
            if play.kind is ComboKind.SINGLE and play.rank is Rank.TWO:
                expected = table.kind is ComboKind.SINGLE and table.rank is not Rank.TWO
            else:
                expected = (
                    play.kind is table.kind
                    and play.length == table.length
                    and table.rank < Rank.ACE
                    and play.rank == table.rank + 1
                )
            assert beats(play, table) is expected, (play, table)


@pytest.mark.parametrize("table", STRAIGHT_RANKS)
def test_single_2_beats_any_single_but_a_2(table):
    assert beats(SINGLE[Rank.TWO], SINGLE[table])


def test_single_2_does_not_beat_a_single_2():
    assert not beats(SINGLE[Rank.TWO], SINGLE[Rank.TWO])


def test_only_a_bomb_or_rocket_beats_a_single_2():
    for play in all_combos():
        assert beats(play, SINGLE[Rank.TWO]) is play.is_bomb, play


def test_the_single_2_exception_is_for_singles_only():
    for rank in STRAIGHT_RANKS:
        assert not beats(PAIR[Rank.TWO], PAIR[rank])
        assert not beats(SOFT_BOMB[Rank.TWO], SOFT_BOMB[rank])
        assert not beats(HARD_BOMB[Rank.TWO], HARD_BOMB[rank])
    assert not beats(SINGLE[Rank.TWO], PAIR[Rank.THREE])


def test_nothing_is_one_higher_than_an_ace():
    assert next_rank(Rank.ACE) is None
    assert next_rank(Rank.TWO) is None
    assert next_rank(Rank.KING) is Rank.ACE
    assert next_rank(Rank.THREE) is Rank.FOUR
    assert next_rank(Rank.NINE) is Rank.TEN


def test_single_ace_is_beaten_only_by_a_single_2_or_a_bomb():
    beaters = {c for c in all_combos() if beats(c, SINGLE[Rank.ACE])}
    assert beaters == {SINGLE[Rank.TWO]} | {c for c in all_combos() if c.is_bomb}


@pytest.mark.parametrize("rank", [Rank.ACE, Rank.TWO])
def test_pair_of_aces_or_2s_is_beaten_only_by_a_bomb(rank):
    beaters = {c for c in all_combos() if beats(c, PAIR[rank])}
    assert beaters == {c for c in all_combos() if c.is_bomb}


@pytest.mark.parametrize("rank", [Rank.ACE, Rank.TWO])
def test_soft_bomb_of_aces_or_2s_is_beaten_only_by_a_higher_class(rank):
    beaters = {c for c in all_combos() if beats(c, SOFT_BOMB[rank])}
    assert beaters == {*HARD_BOMB.values(), ROCKET}


@pytest.mark.parametrize("rank", [Rank.ACE, Rank.TWO])
def test_hard_bomb_of_aces_or_2s_is_beaten_only_by_the_rocket(rank):
    beaters = {c for c in all_combos() if beats(c, HARD_BOMB[rank])}
    assert beaters == {ROCKET}


def test_straight_ending_at_ace_is_beaten_by_no_straight_only_by_a_bomb():
    ending_at_ace = [c for c in STRAIGHT.values() if c.ranks[-1] is Rank.ACE]
    assert len(ending_at_ace) == 10  # lengths 3..12
    for table in ending_at_ace:
        beaters = {c for c in all_combos() if beats(c, table)}
        assert beaters == {c for c in all_combos() if c.is_bomb}, table


def test_pair_straight_ending_at_ace_is_beaten_by_no_pair_straight_only_by_a_bomb():
    ending_at_ace = [c for c in PAIR_STRAIGHT.values() if c.ranks[-1] is Rank.ACE]
    assert len(ending_at_ace) == 11  # 2..12 pairs
    for table in ending_at_ace:
        beaters = {c for c in all_combos() if beats(c, table)}
        assert beaters == {c for c in all_combos() if c.is_bomb}, table


def test_each_normal_combination_below_ace_has_exactly_one_normal_answer_besides_2s():
    # "Exactly one higher": the only normal answer is the same shape moved up one rank.
    for table in NORMAL:
        answers = [
            c
            for c in NORMAL
            if beats(c, table) and not (c.kind is ComboKind.SINGLE and c.rank is Rank.TWO)
        ]
        top = table.ranks[-1]
        if top >= Rank.ACE:
            assert answers == [], table
        else:
            assert len(answers) == 1, table
            (answer,) = answers
            assert answer.ranks == tuple(Rank(r + 1) for r in table.ranks), table


# §4 + §5 through the game: legal and illegal plays on the table ---------------------------------


def follow(table_cards: str, hand: str) -> GameState:
    """Seat 0 leads ``table_cards`` (and keeps one card); seat 1 holds ``hand`` and is to move."""
    used = {str(card) for card in parse_cards(f"{table_cards} {hand}")}
    spare = [str(card) for card in CARDS if not card.is_joker and str(card) not in used]
    state = GameState.from_position(
        [f"{table_cards} {spare[0]}", hand, " ".join(spare[1:4])], stock="", dealer=0
    )
    return state.apply(0, play(table_cards))


def play(cards: str) -> Play:
    return Play(parse_cards(cards))


@pytest.mark.parametrize(
    ("table", "hand", "cards", "meaning"),
    [
        ("4s", "5h 9c", "5h", "5"),
        ("As", "2h 9c", "2h", "2"),
        ("4s", "2h 9c", "2h", "2"),
        ("4s 4h", "5s BJ 9c", "5s BJ", "5 5"),
        ("4s 4h", "5s 5d 9c", "5s 5d", "5 5"),
        ("3s 4h 5d", "5s 6h BJ", "5s 6h BJ", "4 5 6"),
        ("3s 4h 5d 6d", "4s 5h 7c BJ", "4s 5h 7c BJ", "4 5 6 7"),
        ("3s 3h 4s 4h", "4d 5s 5h BJ", "4d 5s 5h BJ", "4 4 5 5"),
        ("As Ah", "7s 7h BJ", "7s 7h BJ", "7 7 7"),
        ("2s 2h", "9s 9h 9d", "9s 9h 9d", "9 9 9"),
        ("Qs Ks As", "3s 3h 3d 3c", "3s 3h 3d 3c", "3 3 3 3"),
        ("7s 7h 7d", "8s 8h RJ", "8s 8h RJ", "8 8 8"),
        ("7s 7h 7d", "3s 3h 3d RJ", "3s 3h 3d RJ", "3 3 3 3"),
        ("7s 7h 7d 7c", "8s 8h 8d BJ", "8s 8h 8d BJ", "8 8 8 8"),
        ("2s 2h 2d 2c", "BJ RJ 5s", "BJ RJ", "BJ RJ"),
    ],
)
def test_legal_follow_is_accepted_with_the_meaning_that_beats(table, hand, cards, meaning):
    state = follow(table, hand)
    after = state.apply(1, play(cards))
    assert after.table.seat == 1
    assert after.table.combo is combo(meaning)
    assert any(
        getattr(move, "combo", None) is combo(meaning) and move.mask == after.table.play.mask
        for move in state.legal_moves()
    )


@pytest.mark.parametrize(
    ("table", "hand", "cards", "code"),
    [
        ("4s", "6h 9c", "6h", "does_not_beat"),  # no skipping
        ("4s", "4h 9c", "4h", "does_not_beat"),
        ("4s", "3h 9c", "3h", "does_not_beat"),
        ("2s", "2h 9c", "2h", "does_not_beat"),
        ("As", "Kh 9c", "Kh", "does_not_beat"),
        ("4s 4h", "6s 6h 9c", "6s 6h", "does_not_beat"),
        ("4s 4h", "2s 2h 9c", "2s 2h", "does_not_beat"),  # no jump for a pair of 2s
        ("As Ah", "2s 2h 9c", "2s 2h", "does_not_beat"),
        ("4s", "5h 5d 9c", "5h 5d", "does_not_beat"),  # other kind
        ("3s 4h 5d", "4s 5h 6c 7c", "4s 5h 6c 7c", "does_not_beat"),  # other length
        ("3s 4h 5d", "5s 6h 7c", "5s 6h 7c", "does_not_beat"),
        ("Qs Ks As", "Kh Ah 2c", "Kh Ah 2c", "not_a_combination"),
        ("Qs Ks As", "Kh Ah BJ", "Kh Ah BJ", "does_not_beat"),  # K A 2 is no straight
        ("7s 7h 7d", "9s 9h 9d", "9s 9h 9d", "does_not_beat"),
        ("7s 7h 7d", "6s 6h 6d", "6s 6h 6d", "does_not_beat"),
        ("As Ah Ad", "2s 2h 2d", "2s 2h 2d", "does_not_beat"),
        ("7s 7h 7d 7c", "9s 9h 9d 9c", "9s 9h 9d 9c", "does_not_beat"),
        ("7s 7h 7d 7c", "8s 8h 8d", "8s 8h 8d", "does_not_beat"),  # soft on hard
        ("BJ RJ", "2s 2h 2d 2c", "2s 2h 2d 2c", "does_not_beat"),
        ("5s 5h 5d", "6s 7h 8d", "6s 7h 8d", "does_not_beat"),  # normal on a bomb
    ],
)
def test_illegal_follow_is_refused(table, hand, cards, code):
    state = follow(table, hand)
    with pytest.raises(IllegalMoveError) as excinfo:
        state.apply(1, play(cards))
    assert excinfo.value.code == code
    move = play(cards)
    assert not any(getattr(m, "mask", None) == move.mask for m in state.legal_moves())
