"""Every combination of 斗地主 and its edges (spec §5): what each multiset of ranks is."""

from __future__ import annotations

import pytest

from games.rules.doudizhu.combos import (
    Combo,
    ComboKind,
    beats,
    classify,
    counts_of_ranks,
    format_counts,
    pack,
    unpack,
)

K = ComboKind

# (ranks, kind, compared rank symbol, length)
VALID = [
    ("5", K.SINGLE, "5", 1),
    ("RJ", K.SINGLE, "RJ", 1),
    ("2", K.SINGLE, "2", 1),
    ("4 4", K.PAIR, "4", 1),
    ("2 2", K.PAIR, "2", 1),
    ("J J J", K.TRIPLE, "J", 1),
    ("3 3 3 6", K.TRIPLE_SINGLE, "3", 1),
    ("3 3 3 BJ", K.TRIPLE_SINGLE, "3", 1),
    ("2 2 2 A", K.TRIPLE_SINGLE, "2", 1),
    ("4 4 4 9 9", K.TRIPLE_PAIR, "4", 1),
    ("4 4 4 2 2", K.TRIPLE_PAIR, "4", 1),
    ("4 5 6 7 8", K.STRAIGHT, "8", 5),
    ("7 8 9 T J Q K", K.STRAIGHT, "K", 7),
    ("3 4 5 6 7 8 9 T J Q K A", K.STRAIGHT, "A", 12),
    ("T J Q K A", K.STRAIGHT, "A", 5),
    ("3 3 4 4 5 5", K.PAIR_STRAIGHT, "5", 3),
    ("7 7 8 8 9 9 T T J J", K.PAIR_STRAIGHT, "J", 5),
    ("Q Q K K A A", K.PAIR_STRAIGHT, "A", 3),
    ("3 3 3 4 4 4", K.AIRPLANE, "4", 2),
    ("5 5 5 6 6 6 7 7 7 8 8 8", K.AIRPLANE, "8", 4),
    ("3 3 3 4 4 4 5 5 5 6 6 6", K.AIRPLANE, "6", 4),  # a chain of four, not three with wings
    ("K K K A A A", K.AIRPLANE, "A", 2),
    ("4 4 4 5 5 5 7 9", K.AIRPLANE_SINGLES, "5", 2),
    ("3 3 3 4 4 4 5 5", K.AIRPLANE_SINGLES, "4", 2),  # single wings may share a rank
    ("3 3 3 4 4 4 5 5 5 9 9 9", K.AIRPLANE_SINGLES, "5", 3),  # three wings of one rank
    ("3 3 3 4 4 4 BJ 9", K.AIRPLANE_SINGLES, "4", 2),
    ("3 3 3 4 4 4 2 2", K.AIRPLANE_SINGLES, "4", 2),
    ("Q Q Q K K K A A A 2 2 2", K.AIRPLANE_SINGLES, "A", 3),  # a 2 is never next to a chain
    ("3 3 3 4 4 4 5 5 5 7 7 9 9 J J", K.AIRPLANE_PAIRS, "5", 3),
    ("3 3 3 4 4 4 7 7 9 9", K.AIRPLANE_PAIRS, "4", 2),
    ("3 3 3 4 4 4 2 2 A A", K.AIRPLANE_PAIRS, "4", 2),
    ("5 5 5 5 3 8", K.FOUR_TWO_SINGLES, "5", 1),
    ("5 5 5 5 3 3", K.FOUR_TWO_SINGLES, "5", 1),  # the two may be a pair (欢乐斗地主)
    ("5 5 5 5 3 BJ", K.FOUR_TWO_SINGLES, "5", 1),
    ("2 2 2 2 3 4", K.FOUR_TWO_SINGLES, "2", 1),
    ("5 5 5 5 3 3 8 8", K.FOUR_TWO_PAIRS, "5", 1),
    ("7 7 7 7", K.BOMB, "7", 1),
    ("2 2 2 2", K.BOMB, "2", 1),
    ("BJ RJ", K.ROCKET, "RJ", 1),
]

INVALID = [
    "",
    "3 5",
    "3 3 3 3 5",  # a bomb with one card
    "3 3 3 3 4 4 4 4",  # four with two pairs of one rank: the kickers hold four of a kind
    "3 3 3 3 5 5 5 5",
    "3 3 3 3 BJ RJ",  # the rocket is never kickers
    "3 3 3 BJ RJ",
    "4 4 4 5 5 5 5 T",  # a wing of a triple's own rank
    "3 3 3 4 4 4 3 4",
    "3 3 3 4 4 4 4 5",
    "3 3 3 4 4 4 BJ RJ",  # both jokers as wings
    "3 3 3 4 4 4 6 6 6 6",  # 10 cards: wings of four of a kind are no pairs either
    "3 3 3 4 4 4 5 5 5 5 6 6",  # 12: a bomb among the wings
    "3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 9",  # 777 next to the chain is no wing
    "3 3 3 4 4 4 5 5 5 7 7 7 8 8 8",  # two airplanes are not one
    "J Q K A 2",  # no 2 in a chain
    "Q K A 2 BJ",
    "K K A A 2 2",
    "A A A 2 2 2",
    "3 4 5 6",  # too short
    "3 3 4 4",
    "3 3 3 5 5 5",  # not consecutive
    "3 3 3 3 5 5 5",
    "3 3 3 4 4 4 5",
    "5 5 5 5 3 8 9",
]


@pytest.mark.parametrize(("ranks", "kind", "rank", "length"), VALID, ids=[v[0] for v in VALID])
def test_valid_combination(ranks: str, kind: ComboKind, rank: str, length: int) -> None:
    combo = classify(counts_of_ranks(ranks))
    assert combo is not None
    assert combo.kind is kind
    assert combo.to_json() == {"kind": kind.value, "rank": rank, "length": length}
    assert combo.size == len(ranks.split())


@pytest.mark.parametrize("ranks", INVALID)
def test_not_a_combination(ranks: str) -> None:
    assert classify(counts_of_ranks(ranks)) is None


def test_one_deck_only_in_rank_notation() -> None:
    from games.rules.errors import NotationError

    with pytest.raises(NotationError):
        counts_of_ranks("BJ BJ")
    with pytest.raises(NotationError):
        counts_of_ranks("5 5 5 5 5")


def c(ranks: str) -> Combo:
    combo = classify(counts_of_ranks(ranks))
    assert combo is not None
    return combo


@pytest.mark.parametrize(
    ("play", "table", "expected"),
    [
        ("6", "5", True),
        ("2", "A", True),
        ("BJ", "2", True),
        ("RJ", "BJ", True),
        ("5", "5", False),
        ("9 9", "4 4", True),  # any higher, not only one
        ("4 4", "9 9", False),
        ("4 5 6 7 8", "3 4 5 6 7", True),
        ("4 5 6 7 8 9", "3 4 5 6 7", False),  # same kind, not the same length
        ("T J Q K A", "3 4 5 6 7", True),
        ("5 5 5 3", "4 4 4 A", True),  # the triple decides, not the kicker
        ("5 5 5 3", "4 4 4 A A", False),  # triple_single on triple_pair
        ("5 5 5 6 6 6 3 4", "3 3 3 4 4 4 A 2", True),
        ("5 5 5 6 6 6 3 4", "3 3 3 4 4 4 5 5 5 7 8 9", False),
        ("5 5 5 6 6 6 3 3 4 4", "3 3 3 4 4 4 5 6", False),  # pair wings on single wings
        ("6 6 6 6 3 4", "5 5 5 5 2 2", True),
        ("6 6 6 6 3 4", "5 5 5 5", False),  # four with two is no bomb
        ("3 3 3 3", "2 2 2 2 A K", True),
        ("3 3 3 3", "A", True),
        ("4 4 4 4", "3 3 3 3", True),
        ("3 3 3 3", "4 4 4 4", False),
        ("BJ RJ", "2 2 2 2", True),
        ("2 2 2 2", "BJ RJ", False),
        ("3", "BJ RJ", False),
    ],
)
def test_beats(play: str, table: str, expected: bool) -> None:
    assert beats(c(play), c(table)) is expected


def test_counts_round_trip() -> None:
    counts = counts_of_ranks("3 3 5 2 2 2 BJ RJ")
    assert unpack(pack(counts)) == counts
    assert format_counts(counts) == "3 3 5 2 2 2 BJ RJ"
    assert str(c("4 4 4 5 5 5 7 9")) == "airplane_singles 5 x2"
    assert str(c("BJ RJ")) == "rocket"
