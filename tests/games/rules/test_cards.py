"""Cards and their text notation (rules §1)."""

from __future__ import annotations

import pytest

from games.rules.cards import (
    BLACK_JOKER,
    CARDS,
    RED_JOKER,
    Card,
    Rank,
    Suit,
    format_cards,
    format_ranks,
    parse_cards,
    parse_ranks,
)
from games.rules.errors import NotationError

RANK_SYMBOLS = ["3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2"]
SUIT_SYMBOLS = ["s", "h", "d", "c"]
#: The whole deck in canonical text order: rank first (3 .. A, 2), then suit s h d c, jokers last.
DECK_TEXT = [r + s for r in RANK_SYMBOLS for s in SUIT_SYMBOLS] + ["BJ", "RJ"]


# The deck ----------------------------------------------------------------------------------------


def test_deck_has_54_distinct_cards():
    assert len(CARDS) == 54
    assert len({str(card) for card in CARDS}) == 54
    assert [str(card) for card in CARDS] == DECK_TEXT


def test_deck_has_13_ranks_of_4_suits_and_two_jokers():
    suited = [card for card in CARDS if not card.is_joker]
    assert len(suited) == 52
    for rank in Rank:
        if rank.is_joker:
            continue
        assert sorted(card.suit for card in suited if card.rank is rank) == list(Suit)
    jokers = [card for card in CARDS if card.is_joker]
    assert jokers == [BLACK_JOKER, RED_JOKER]
    assert BLACK_JOKER.suit is None and RED_JOKER.suit is None


@pytest.mark.parametrize("text", DECK_TEXT)
def test_every_card_round_trips_through_its_notation(text):
    card = Card.parse(text)
    assert str(card) == text
    assert Card.parse(str(card)) is card
    assert parse_cards(text) == (card,)
    assert format_cards([card]) == text


def test_whole_deck_round_trips_as_one_string():
    text = " ".join(DECK_TEXT)
    cards = parse_cards(text)
    assert len(cards) == 54
    assert format_cards(cards) == text


# Rank values -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("symbol", "value"),
    [
        ("3", 3),
        ("4", 4),
        ("5", 5),
        ("6", 6),
        ("7", 7),
        ("8", 8),
        ("9", 9),
        ("T", 10),
        ("10", 10),
        ("J", 11),
        ("Q", 12),
        ("K", 13),
        ("A", 14),
        ("2", 16),
        ("BJ", 20),
        ("RJ", 21),
    ],
)
def test_rank_values(symbol, value):
    assert Rank.parse(symbol) == value
    assert int(Rank.parse(symbol)) == value


def test_two_is_worth_16_above_the_ace_and_below_the_jokers():
    assert Card.parse("2s").rank == 16
    assert Card.parse("As").rank < Card.parse("2s").rank < BLACK_JOKER.rank < RED_JOKER.rank
    assert BLACK_JOKER.rank == 20
    assert RED_JOKER.rank == 21


@pytest.mark.parametrize("text", DECK_TEXT)
def test_card_rank_matches_its_symbol(text):
    card = Card.parse(text)
    symbol = text if card.is_joker else text[:-1]
    assert card.rank is Rank.parse(symbol)


# Notation details --------------------------------------------------------------------------------


@pytest.mark.parametrize("suit", SUIT_SYMBOLS)
def test_ten_may_be_written_10_and_is_output_as_t(suit):
    card = Card.parse("10" + suit)
    assert card is Card.parse("T" + suit)
    assert str(card) == "T" + suit
    assert format_cards(parse_cards(f"10{suit}")) == f"T{suit}"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("ts", "Ts"),
        ("TS", "Ts"),
        ("tS", "Ts"),
        ("10H", "Th"),
        ("ah", "Ah"),
        ("AH", "Ah"),
        ("qd", "Qd"),
        ("2C", "2c"),
        ("bj", "BJ"),
        ("Bj", "BJ"),
        ("rj", "RJ"),
        ("rJ", "RJ"),
    ],
)
def test_parsing_is_case_insensitive(text, canonical):
    assert str(Card.parse(text)) == canonical
    assert format_cards(parse_cards(text)) == canonical


def test_parse_keeps_the_written_order_and_format_is_canonical():
    cards = parse_cards("RJ 2c 10d 3s BJ Ah 3c 3h")
    assert [str(card) for card in cards] == ["RJ", "2c", "Td", "3s", "BJ", "Ah", "3c", "3h"]
    assert format_cards(cards) == "3s 3h 3c Td Ah 2c BJ RJ"


def test_format_orders_suits_spades_hearts_diamonds_clubs():
    assert format_cards(parse_cards("7c 7d 7h 7s")) == "7s 7h 7d 7c"


def test_format_orders_by_rank_value_with_two_above_ace():
    assert format_cards(parse_cards("2s As Ks 3s")) == "3s Ks As 2s"


def test_cards_may_be_separated_by_any_whitespace():
    assert format_cards(parse_cards("  5s\t6h \n BJ ")) == "5s 6h BJ"


def test_empty_text_is_no_cards():
    assert parse_cards("") == ()
    assert parse_cards("   ") == ()
    assert format_cards([]) == ""


def test_cards_are_single_instances():
    assert Card.parse("Ts") is CARDS[28]
    assert Card(28) is CARDS[28]
    with pytest.raises(AttributeError):
        Card.parse("Ts").rank = Rank.ACE  # type: ignore[misc]


# Bad notation ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "1s",  # no rank 1
        "11s",  # no rank 11
        "0s",
        "Xs",
        "Cs",  # C is a suit, not a rank
        "5x",  # unknown suit
        "5",  # no suit
        "T",
        "10",
        "s5",  # suit first
        "5sh",
        "BJs",  # jokers have no suit
        "B",
        "J",
        "GJ",
        "joker",
        "5♠",
    ],
)
def test_unknown_card_notation_is_a_notation_error_naming_the_token(text):
    with pytest.raises(NotationError) as excinfo:
        Card.parse(text)
    assert repr(text) in str(excinfo.value)
    with pytest.raises(NotationError) as excinfo:
        parse_cards(f"3s {text} 4h")
    assert repr(text) in str(excinfo.value)


def test_empty_card_is_a_notation_error():
    with pytest.raises(NotationError, match="not a card"):
        Card.parse("")


@pytest.mark.parametrize(
    ("text", "twice"),
    [
        ("5s 5s", "5s"),
        ("5s 5S", "5s"),
        ("Ts 10s", "Ts"),
        ("3s BJ 4h bj", "BJ"),
        ("RJ 7c rj", "RJ"),
    ],
)
def test_a_card_listed_twice_is_a_notation_error(text, twice):
    with pytest.raises(NotationError) as excinfo:
        parse_cards(text)
    message = str(excinfo.value)
    assert twice in message
    assert "twice" in message


@pytest.mark.parametrize("value", [None, 5, ["5s"], ("5s",), b"5s"])
def test_cards_must_be_a_string(value):
    with pytest.raises(NotationError, match="string"):
        parse_cards(value)


def test_notation_error_is_a_value_error():
    assert issubclass(NotationError, ValueError)


# Ranks -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("4 5 6", (4, 5, 6)),
        ("6 4 5", (4, 5, 6)),
        ("5 5", (5, 5)),
        ("T J Q", (10, 11, 12)),
        ("10 t", (10, 10)),
        ("a 2", (14, 16)),
        ("2 A K", (13, 14, 16)),
        ("bj rj", (20, 21)),
        ("RJ BJ", (20, 21)),
        ("7", (7,)),
    ],
)
def test_parse_ranks_sorts_ascending_by_value(text, values):
    ranks = parse_ranks(text)
    assert tuple(int(rank) for rank in ranks) == values
    assert all(isinstance(rank, Rank) for rank in ranks)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("6 4 5", "4 5 6"),
        ("10 j q", "T J Q"),
        ("2 a", "A 2"),
        ("rj bj", "BJ RJ"),
        ("3 3 4 4", "3 3 4 4"),
    ],
)
def test_ranks_round_trip_to_canonical_text(text, canonical):
    assert format_ranks(parse_ranks(text)) == canonical
    assert format_ranks(parse_ranks(canonical)) == canonical


@pytest.mark.parametrize("token", ["1", "11", "X", "5s", "Ts", "B", "joker"])
def test_parse_ranks_rejects_unknown_ranks(token):
    with pytest.raises(NotationError) as excinfo:
        parse_ranks(f"4 {token} 6")
    assert repr(token) in str(excinfo.value)


@pytest.mark.parametrize("text", ["", "   "])
def test_parse_ranks_rejects_empty_text(text):
    with pytest.raises(NotationError, match="empty"):
        parse_ranks(text)


@pytest.mark.parametrize("value", [None, 4, ["4", "5", "6"]])
def test_ranks_must_be_a_string(value):
    with pytest.raises(NotationError, match="string"):
        parse_ranks(value)
