"""Classification and beating (§10, §11, §13), case by case and against the oracle's table of
every combination the rules define."""

from __future__ import annotations

import itertools

import pytest

from games.rules.errors import NotationError
from games.rules.shanghai.cards import format_cards, parse_cards
from games.rules.shanghai.combos import (
    Combo,
    ComboKind,
    beats,
    classify,
    counts_of_ranks,
)
from tests.games.rules.shanghai.oracle import READINGS, best
from tests.games.rules.shanghai.oracle import beats as oracle_beats

K = ComboKind


def of(text: str) -> Combo | None:
    return classify(counts_of_ranks(text))


@pytest.mark.parametrize(
    ("ranks", "kind", "rank", "length"),
    [
        ("5", K.SINGLE, "5", 1),
        ("RJ", K.SINGLE, "RJ", 1),
        ("Q Q", K.PAIR, "Q", 1),
        ("BJ BJ", K.PAIR, "BJ", 1),
        ("RJ RJ", K.PAIR, "RJ", 1),
        ("2 2 2", K.TRIPLE, "2", 1),
        ("K K K 3 3", K.FULL_HOUSE, "K", 1),
        ("3 3 3 BJ BJ", K.FULL_HOUSE, "3", 1),
        ("3 3 3 RJ RJ", K.FULL_HOUSE, "3", 1),
        ("3 4 5 6 7", K.STRAIGHT, "7", 5),
        ("A 2 3 4 5", K.STRAIGHT, "5", 5),
        ("2 3 4 5 6", K.STRAIGHT, "6", 5),
        ("T J Q K A", K.STRAIGHT, "A", 5),
        ("A 2 3 4 5 6 7 8 9 T J Q K", K.STRAIGHT, "A", 13),
        ("5 5 6 6 7 7", K.SISTER_PAIRS, "7", 3),
        ("A A 2 2 3 3", K.SISTER_PAIRS, "3", 3),
        ("Q Q K K A A", K.SISTER_PAIRS, "A", 3),
        ("4 4 4 5 5 5", K.AIRPLANE, "5", 2),
        ("A A A 2 2 2", K.AIRPLANE, "2", 2),
        ("2 2 2 3 3 3", K.AIRPLANE, "3", 2),
        ("K K K A A A", K.AIRPLANE, "A", 2),
        ("9 9 9 T T T 5 5 4 4", K.AIRPLANE_CANNONS, "T", 2),
        ("3 3 3 4 4 4 5 5 6 6", K.AIRPLANE_CANNONS, "4", 2),
        ("Q Q Q K K K A A A 2 2 3 3 4 4", K.AIRPLANE_CANNONS, "A", 3),
        ("J J J J", K.BOMB, "J", 4),
        ("5 5 5 5 5", K.BOMB, "5", 5),
        ("2 2 2 2 2 2 2 2", K.BOMB, "2", 8),
        ("BJ BJ RJ RJ", K.JOKER_BOMB, "RJ", 1),
    ],
)
def test_kinds(ranks: str, kind: ComboKind, rank: str, length: int) -> None:
    combo = of(ranks)
    assert combo is not None and combo.kind is kind
    assert combo.rank_symbol == rank and combo.length == length
    assert combo.size == len(ranks.split())


@pytest.mark.parametrize(
    "ranks",
    [
        "J Q K A 2",  # a 2 only just above a low A or at the bottom
        "K A 2 3 4",  # no wrap
        "Q K A 2 3",
        "3 4 5 6",  # a straight has 5 cards at least
        "3 3 4 4",  # sister pairs: 3 pairs at least
        "3 3 3 BJ RJ",  # a full house's joker pair is of one colour
        "BJ RJ",  # not a pair, not a bomb
        "BJ BJ RJ",
        "3 3 3 4",  # no 三带一
        "3 3 3 4 4 4 5 5",  # cannons: exactly as many pairs as triples
        "3 3 3 4 4 4 6 6 8 8",  # cannons: consecutive pairs
        "3 3 3 5 5 5 7 7 8 8",  # cannons: consecutive triples
        "3 3 3 4 4 4 4 4 5 5",  # cannons: on other ranks
        "3 4 5 6 7 BJ",  # jokers never in a chain
        "A A A 2 2 2 BJ BJ RJ RJ",
        "3 3 3 3 4 4 4 4",
    ],
)
def test_not_combinations(ranks: str) -> None:
    assert of(ranks) is None


def test_five_of_a_kind_is_a_bomb_not_a_full_house() -> None:
    combo = of("7 7 7 7 7")
    assert combo == Combo(K.BOMB, 4, 5)


def test_chain_order() -> None:
    a2345, s23456, s34567 = of("A 2 3 4 5"), of("2 3 4 5 6"), of("3 4 5 6 7")
    assert a2345 and s23456 and s34567
    assert beats(s23456, a2345) and beats(s34567, s23456) and not beats(a2345, s23456)
    tjqka = of("T J Q K A")
    assert tjqka and beats(tjqka, of("9 T J Q K"))  # type: ignore[arg-type]


def test_thirteen_card_straights_never_beat_each_other() -> None:
    one = of("A 2 3 4 5 6 7 8 9 T J Q K")
    assert one is not None and one.rank == 14
    assert not beats(one, one)
    twelve = of("2 3 4 5 6 7 8 9 T J Q K")
    assert twelve is not None and twelve.length == 12


def test_bombs() -> None:
    aaaa, b33333, b2222 = of("A A A A"), of("3 3 3 3 3"), of("2 2 2 2")
    jokers = of("BJ BJ RJ RJ")
    assert aaaa and b33333 and b2222 and jokers
    assert beats(b33333, aaaa) and beats(b2222, aaaa) and not beats(aaaa, b2222)
    assert beats(jokers, of("2 2 2 2 2 2 2 2"))  # type: ignore[arg-type]
    assert not beats(of("2 2 2 2 2 2 2 2"), jokers)  # type: ignore[arg-type]
    assert beats(aaaa, of("A A"))  # type: ignore[arg-type]
    assert beats(aaaa, of("A 2 3 4 5 6 7 8 9 T J Q K"))  # type: ignore[arg-type]


def test_beating_needs_same_kind_and_length() -> None:
    assert not beats(of("A A A"), of("T T"))  # type: ignore[arg-type]
    assert not beats(of("4 5 6 7 8"), of("3 4 5 6 7 8"))  # type: ignore[arg-type]
    assert beats(of("K K K 3 3"), of("3 3 3 K K"))  # type: ignore[arg-type]
    assert beats(of("2 2 2 3 3"), of("A A A BJ BJ"))  # type: ignore[arg-type]
    assert beats(of("2"), of("A")) and beats(of("BJ"), of("2"))  # type: ignore[arg-type]
    assert beats(of("RJ RJ"), of("BJ BJ")) and beats(of("BJ BJ"), of("2 2"))  # type: ignore[arg-type]
    two = of("5 5 5 6 6 6 8 8 9 9")
    three = of("5 5 5 6 6 6 7 7 7 8 8 9 9 T T")
    assert two and three and not beats(three, two)


def test_every_combination_of_the_rules_is_classified_as_its_best_reading() -> None:
    for key in READINGS:
        combo = classify(key)
        kind, rank, length = best(key)  # type: ignore[misc]
        assert combo is not None, key
        assert (combo.kind.value, combo.rank, combo.length) == (kind, rank, length), key


def test_nothing_else_is_a_combination() -> None:
    # Every multiset of up to 6 cards over a few ranks, jokers included.
    ranks = [0, 1, 2, 10, 11, 12, 13, 14]
    for size in range(1, 7):
        for chosen in itertools.combinations_with_replacement(ranks, size):
            counts = [0] * 15
            for r in chosen:
                counts[r] += 1
            if counts[13] > 2 or counts[14] > 2:
                continue
            found = classify(counts)
            expected = best(tuple(counts))
            assert (found is None) == (expected is None), chosen


def test_beats_agrees_with_the_oracle() -> None:
    keys = list(READINGS)[::7]
    for a in keys:
        for b in keys[::5]:
            ca, cb = classify(a), classify(b)
            assert ca is not None and cb is not None
            assert beats(ca, cb) == oracle_beats(best(a), best(b)), (a, b)  # type: ignore[arg-type]


def test_combo_json() -> None:
    assert of("A 2 3 4 5").to_json() == {"kind": "straight", "rank": "5", "length": 5}  # type: ignore[union-attr]
    assert of("6 6 6 6 6").to_json() == {"kind": "bomb", "rank": "6", "length": 5}  # type: ignore[union-attr]
    assert str(of("BJ BJ RJ RJ")) == "joker_bomb"


def test_card_notation() -> None:
    assert format_cards(parse_cards("As As 10h BJ rj.2")) == "Th.1 As.1 As.2 BJ.1 RJ.2"
    assert format_cards(parse_cards("As As.1")) == "As.1 As.2"
    for bad in ("As As As", "As.1 As.1", "As.3", "1s", "As.x"):
        with pytest.raises(NotationError):
            parse_cards(bad)
    with pytest.raises(NotationError):
        counts_of_ranks("3 3 3 3 3 3 3 3 3")
