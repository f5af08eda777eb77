"""Game flow through ``GameState``: seats and deal (rules §2), rounds, passing and drawing (§3),
the meaning of a play (§4) and jokers played alone (§6)."""

from __future__ import annotations

import random

import pytest

from games.rules.cards import CARDS, format_cards, parse_cards, parse_ranks
from games.rules.errors import AmbiguousPlayError, IllegalMoveError
from games.rules.gandengyan import GameState, Phase, deal_from_seed
from games.rules.gandengyan.combos import Combo, ComboKind, combo_from_ranks
from games.rules.gandengyan.moves import PASS, Move, Play, parse_move


def combo(ranks: str) -> Combo:
    return combo_from_ranks(parse_ranks(ranks))


def play(cards: str, meaning: str | None = None) -> Play:
    return Play(parse_cards(cards), None if meaning is None else combo(meaning))


def act(action: str | tuple[str, str]) -> Move:
    if action == "pass":
        return PASS
    if isinstance(action, tuple):
        return play(*action)
    return play(action)


def run(state: GameState, *actions: str | tuple[str, str]) -> GameState:
    """Apply actions in order: ``"pass"``, ``"cards"`` or ``("cards", "meaning")``."""
    for action in actions:
        state = state.apply(state.to_move, act(action))
    return state


def position(hands: list[str], stock: str = "", dealer: int = 0) -> GameState:
    return GameState.from_position(hands, stock, dealer)


def hands_of(state: GameState) -> list[str]:
    return [format_cards(state.hand(seat)) for seat in range(state.players)]


def code_of(state: GameState, move: Move, seat: int | None = None) -> str:
    """The code of the error ``move`` raises, made by ``seat`` (the seat to move by default)."""
    with pytest.raises(IllegalMoveError) as excinfo:
        state.apply(state.to_move if seat is None else seat, move)
    return excinfo.value.code


# §2 Seats, deal, dealer -------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_dealer_leads_the_first_round(dealer):
    state = position(["3s 4s", "5s 6s", "7s 8s"], "9s", dealer=dealer)
    assert state.to_move == dealer
    assert state.dealer == dealer
    assert state.table is None
    assert state.leader == dealer
    assert state.phase is Phase.PLAY


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_play_passes_from_seat_s_to_seat_s_plus_1_mod_3(dealer):
    state = position(["3s 9s", "4s 9h", "5s 9d"], dealer=dealer)
    first = "345"[dealer] + "s"
    state = state.apply(dealer, play(first))
    assert state.to_move == (dealer + 1) % 3
    state = state.apply((dealer + 1) % 3, PASS)
    assert state.to_move == (dealer + 2) % 3


@pytest.mark.parametrize("seed", range(20))
def test_deal_gives_the_dealer_6_the_others_5_and_leaves_38_in_the_stock(seed):
    state = GameState.deal(seed)
    counts = [state.hand_count(seat) for seat in range(3)]
    assert counts[state.dealer] == 6
    assert sorted(counts) == [5, 5, 6]
    assert state.stock_count == 38
    every = [*state.stock_cards(), *(c for seat in range(3) for c in state.hand(seat))]
    assert sorted(every) == list(CARDS)
    assert state.to_move == state.dealer
    assert state.table is None
    assert state.multiplier == 1


def test_deal_is_deterministic_per_seed():
    for seed in (0, 1, 12345):
        one, two = GameState.deal(seed), GameState.deal(seed)
        assert one == two
        assert one.view_for(None) == two.view_for(None)
        assert one.stock_cards() == two.stock_cards()
    assert GameState.deal(1) != GameState.deal(2)


def _documented_deal(seed: int, dealer: int | None = None):
    """The algorithm ``deal_from_seed`` documents, written out again."""
    rng = random.Random(seed)
    deck = list(CARDS)
    rng.shuffle(deck)
    if dealer is None:
        dealer = rng.randrange(3)
    hands = [None, None, None]
    hands[dealer] = tuple(deck[0:6])
    hands[(dealer + 1) % 3] = tuple(deck[6:11])
    hands[(dealer + 2) % 3] = tuple(deck[11:16])
    return tuple(hands), tuple(deck[16:]), dealer


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 42, 2024, 10**12])
def test_deal_follows_the_documented_algorithm(seed):
    assert deal_from_seed(seed) == _documented_deal(seed)
    hands, stock, dealer = _documented_deal(seed)
    state = GameState.deal(seed)
    assert state.dealer == dealer
    for seat in range(3):
        assert set(state.hand(seat)) == set(hands[seat])
    assert state.stock_cards() == stock
    assert state == GameState.from_position(hands, stock, dealer)


def test_deal_of_seed_42_is_the_documented_example():
    hands, stock, dealer = deal_from_seed(42)
    assert dealer == 2
    assert [" ".join(str(c) for c in hand) for hand in hands] == [
        "7s Tc Ts 5h 5c",
        "8c Th 2h Jh 3c",
        "Qc 8h As Td 7c 2s",
    ]
    assert [str(c) for c in stock[:5]] == ["8s", "Ah", "4s", "RJ", "5d"]
    assert len(stock) == 38


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_deal_with_a_given_dealer_keeps_the_shuffle(dealer):
    assert deal_from_seed(7, dealer=dealer) == _documented_deal(7, dealer)
    state = GameState.deal(7, dealer=dealer)
    assert state.dealer == dealer == state.to_move
    assert state.hand_count(dealer) == 6


def test_first_dealer_is_picked_at_random_from_the_seed():
    dealers = {GameState.deal(seed).dealer for seed in range(60)}
    assert dealers == {0, 1, 2}


@pytest.mark.parametrize("seed", [-1, 1.5, "3", None, True])
def test_deal_refuses_a_seed_that_is_not_a_non_negative_integer(seed):
    with pytest.raises(ValueError):
        deal_from_seed(seed)


# §3 Leading and passing ----------------------------------------------------------------------


def test_leader_may_not_pass():
    state = position(["3s 4s", "5s 6s", "7s 8s"])
    assert code_of(state, PASS) == "leader_must_play"
    assert PASS not in state.legal_moves()


def test_leader_of_a_later_round_may_not_pass():
    state = run(position(["3s 4s 9c", "5s 6s", "7s 8s"]), "3s", "pass", "pass")
    assert state.table is None and state.to_move == 0
    assert code_of(state, PASS) == "leader_must_play"


def test_leader_may_lead_any_combination():
    hand = "3s 4h 5d 5c 9s 9h 9d BJ"
    state = position([hand, "6s 6h", "7s 7h"])
    for cards, meaning in [
        ("9s", "9"),
        ("5d 5c", "5 5"),
        ("3s 4h 5d", "3 4 5"),
        ("9s 9h 9d", "9 9 9"),
        ("9s 9h 9d BJ", "9 9 9 9"),
        ("5d BJ", "5 5"),
    ]:
        assert state.apply(0, play(cards)).table.combo is combo(meaning)


def test_passing_is_allowed_even_for_a_player_who_could_beat():
    state = run(position(["4s 9c", "5h 5d", "7s 8s"]), "4s")
    assert state.is_legal(1, play("5h"))
    assert PASS in state.legal_moves()
    after = state.apply(1, PASS)
    assert after.to_move == 2
    assert after.table == state.table
    assert after.hands == state.hands


def test_round_goes_on_after_a_single_pass():
    state = run(position(["4s 9c", "5h 6h", "7s 8s"]), "4s", "pass")
    assert state.table is not None and state.table.seat == 0
    assert state.to_move == 2


def test_round_ends_after_two_consecutive_passes_and_its_winner_leads():
    state = run(position(["4s 9c", "5h 6h", "7s 8s"]), "4s", "pass", "pass")
    assert state.table is None
    assert state.to_move == 0
    assert state.leader == 0
    assert state.passes == 0


def test_passes_must_follow_one_another_since_the_last_play():
    state = run(position(["4s 9c Kc", "6h Jh", "5s 8s"]), "4s", "pass", "5s", "pass")
    # seat 1 passed before seat 2 played: only one pass since the last play
    assert state.table.seat == 2
    assert state.to_move == 1
    state = state.apply(1, PASS)
    assert state.table is None
    assert state.to_move == 2  # the last play wins the round


def test_a_play_beating_the_table_takes_the_round_from_the_leader():
    state = run(position(["4s 9c", "5h Jh", "6s 8s"]), "4s", "5h", "6s", "pass", "pass")
    assert state.table is None
    assert state.to_move == 2


# §3 Drawing -----------------------------------------------------------------------------------


def test_draws_start_with_the_round_winner_in_seat_order_until_the_stock_runs_out():
    state = position(["3s Ts", "4s Js", "5s Qs"], stock="6h 7h 8h 9d", dealer=1)
    state = run(state, "4s", "5s", "pass")
    assert state.stock_count == 4  # nothing drawn during a round
    state = state.apply(1, PASS)  # seat 2 won the round
    assert hands_of(state) == ["3s 7h Ts", "8h Js", "6h Qs"]
    assert state.stock_count == 1
    assert [str(c) for c in state.stock_cards()] == ["9d"]
    assert state.to_move == 2 and state.table is None

    state = run(state, "6h", "7h", "8h", "pass", "pass")  # seat 1 won the round
    assert hands_of(state) == ["3s Ts", "9d Js", "Qs"]  # only seat 1 could draw
    assert state.stock_count == 0
    assert state.to_move == 1

    state = run(state, "9d", "pass", "Ts", "pass", "pass")  # seat 0 won, stock empty
    assert hands_of(state) == ["3s", "Js", "Qs"]
    assert state.stock_count == 0
    assert state.to_move == 0


@pytest.mark.parametrize(
    ("actions", "expected"),
    [
        # seat 0 wins the round: 3s to seat 0, 4h to seat 1, 5s to seat 2
        (("4d", "pass", "pass"), ["3s 9c", "4h 5h Jh", "5s 6s 8s"]),
        # seat 1 wins: 3s to seat 1, 4h to seat 2, 5s to seat 0
        (("4d", "5h", "pass", "pass"), ["5s 9c", "3s Jh", "4h 6s 8s"]),
        # seat 2 wins: 3s to seat 2, 4h to seat 0, 5s to seat 1
        (("4d", "5h", "6s", "pass", "pass"), ["4h 9c", "5s Jh", "3s 8s"]),
    ],
)
def test_round_winner_draws_first_then_the_next_seats_in_order(actions, expected):
    state = run(position(["4d 9c", "5h Jh", "6s 8s"], stock="3s 4h 5s 7c"), *actions)
    assert hands_of(state) == expected
    assert [str(c) for c in state.stock_cards()] == ["7c"]


def test_no_draws_when_the_stock_is_empty():
    state = run(position(["4s 9c", "5h Jh", "6s 8s"], stock=""), "4s", "5h", "pass", "pass")
    assert hands_of(state) == ["9c", "Jh", "6s 8s"]
    assert state.to_move == 1
    assert state.stock_count == 0


def test_stock_of_two_gives_the_round_winner_and_the_next_seat_one_card_each():
    state = position(["4d 9c", "5h Jh", "6s 8s"], stock="Kd Ad")
    state = run(state, "4d", "5h", "pass", "pass")  # seat 1 wins the round
    assert hands_of(state) == ["9c", "Jh Kd", "6s 8s Ad"]
    assert state.stock_count == 0


# §3 The end of the game -----------------------------------------------------------------------


def test_game_ends_at_once_when_the_last_card_is_played():
    state = run(position(["4s 9c", "5h", "6s 8s"], stock="Kd Kh Ks"), "4s")
    end = state.apply(1, play("5h"))
    assert end.winner == 1
    assert end.to_move is None
    assert end.phase is Phase.OVER
    assert end.is_terminal
    # nobody draws, not even after the round it ended
    assert end.stock_count == 3
    assert hands_of(end) == ["9c", "", "6s 8s"]
    assert end.legal_moves() == []


def test_dealer_who_leads_the_last_card_wins_at_once():
    end = position(["7c", "5h 6h", "8s 9s"], stock="Kd").apply(0, play("7c"))
    assert end.winner == 0
    assert end.to_move is None
    assert end.stock_count == 1


@pytest.mark.parametrize("move", [PASS, play("9c"), play("6s"), play("6s 8s"), play("Kd")])
def test_no_action_after_the_end_of_the_game(move):
    end = run(position(["4s 9c", "5h", "6s 8s"], stock="Kd"), "4s", "5h")
    assert code_of(end, move) == "game_over"
    assert all(code_of(end, move, seat) == "game_over" for seat in range(3))
    assert not any(end.is_legal(seat, move) for seat in range(3))


# Illegal actions --------------------------------------------------------------------------------


def test_playing_cards_not_in_hand_is_refused():
    state = position(["4s 9c", "5h 6h", "6s 8s"], stock="Kd")
    assert code_of(state, play("5h")) == "cards_not_in_hand"  # seat 1's card
    assert code_of(state, play("Kd")) == "cards_not_in_hand"  # in the stock
    assert code_of(state, play("4s 4h")) == "cards_not_in_hand"  # one of two missing
    assert code_of(state, play("BJ")) == "cards_not_in_hand"


@pytest.mark.parametrize("cards", ["4s 9c", "4s 5s", "4s 5s 7s", "4s 4h 5s", "4s 5s BJ RJ"])
def test_playing_what_is_not_a_combination_is_refused(cards):
    state = position(["4s 4h 5s 7s 9c BJ RJ", "5h 6h", "6s 8s"])
    assert code_of(state, play(cards)) == "not_a_combination"


@pytest.mark.parametrize("meaning", ["6 7 8", "3 4 5", "5 5", "5 5 5", "5 5 6 6", "4 5 6 7"])
def test_naming_a_meaning_the_cards_cannot_have_is_refused(meaning):
    state = position(["5s 6h BJ 9c", "5h 6d", "6s 8s"])
    assert code_of(state, play("5s 6h BJ", meaning)) == "meaning_not_possible"


def test_naming_a_meaning_that_does_not_beat_is_refused_without_fallback():
    state = run(position(["5d 6d 7d 3c", "6s 7h BJ 9c", "Ks Kh"]), "5d 6d 7d")
    assert state.table.combo is combo("5 6 7")
    # 6-7-8 would beat, but the player named 5-6-7
    assert code_of(state, play("6s 7h BJ", "5 6 7")) == "does_not_beat"
    assert state.apply(1, play("6s 7h BJ", "6 7 8")).table.combo is combo("6 7 8")


def test_not_beating_the_table_is_refused():
    state = run(position(["5d 3c", "7h 9c", "Ks Kh"]), "5d")
    assert code_of(state, play("7h")) == "does_not_beat"


# §4 The meaning of a play -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "meaning"),
    [
        ("5s 6h BJ", "4 5 6"),
        ("9s Th RJ", "8 9 T"),
        ("4s 5h 6d 7c BJ", "3 4 5 6 7"),
        ("3s 4h BJ", "3 4 5"),
        ("Qs Kh BJ", "J Q K"),
    ],
)
def test_leading_without_a_meaning_takes_the_lowest(cards, meaning):
    state = position([cards + " 9c", "5c 6c", "7s 8s"])
    assert state.apply(0, play(cards)).table.combo is combo(meaning)
    assert state.resolve(0, play(cards)).combo is combo(meaning)


def test_leader_may_name_the_other_meaning():
    state = position(["5s 6h BJ 9c", "5c 6c", "7s 8s"])
    assert state.apply(0, play("5s 6h BJ", "5 6 7")).table.combo is combo("5 6 7")
    assert state.apply(0, play("5s 6h BJ", "4 5 6")).table.combo is combo("4 5 6")


@pytest.mark.parametrize(
    ("hand", "cards", "meanings"),
    [
        ("5s 6h BJ 9c", "5s 6h BJ", ("4 5 6", "5 6 7")),
        ("5s 5h 6s BJ 9c", "5h 6s BJ", ("4 5 6", "5 6 7")),  # not the lowest suits: asked too
        ("Qs Kh BJ 9c", "Qs Kh BJ", ("J Q K", "Q K A")),
        ("4s 5h 6d 7c BJ", "4s 5h 6d 7c BJ", ("3 4 5 6 7", "4 5 6 7 8")),
    ],
)
def test_strict_resolve_asks_which_meaning_of_an_ambiguous_lead(hand, cards, meanings):
    state = position([hand, "5c 6c", "7s 8s"])
    with pytest.raises(AmbiguousPlayError) as excinfo:
        state.resolve(0, play(cards), strict=True)
    error = excinfo.value
    assert isinstance(error, IllegalMoveError)
    assert error.code == "choose_meaning"
    assert error.message == "these cards can be played in more than one way"
    assert error.meanings == meanings
    # Naming one of them is enough; the rules' own choice is still the lowest.
    for meaning in meanings:
        assert state.resolve(0, play(cards, meaning), strict=True).combo is combo(meaning)
    assert state.resolve(0, play(cards)).combo is combo(meanings[0])
    assert state.apply(0, play(cards)).table.combo is combo(meanings[0])


def test_strict_resolve_lets_plays_of_one_meaning_through():
    state = position(["5s 5h 6h 7h BJ 9c", "5c 6c", "7s 8s"])
    for cards in ["5s", "5s 5h", "5h BJ", "5s 6h 7h", "5s 5h BJ"]:
        assert state.resolve(0, play(cards), strict=True) == state.resolve(0, play(cards))
    following = run(position(["5d 6d 7d 3c", "6s 7h BJ 9c", "Ks Kh"]), "5d 6d 7d")
    # 5-6-7 or 6-7-8, but only 6-7-8 beats the table: nothing to ask
    assert following.resolve(1, play("6s 7h BJ"), strict=True).combo is combo("6 7 8")


def test_strict_resolve_checks_the_turn_and_the_cards_first():
    state = position(["5s 6h BJ 9c", "5c 6c", "7s 8s"])
    assert code_of(state, play("5s 6h BJ"), seat=1) == "not_your_turn"
    with pytest.raises(IllegalMoveError) as excinfo:
        state.resolve(1, play("5s 6h BJ"), strict=True)
    assert excinfo.value.code == "not_your_turn"
    with pytest.raises(IllegalMoveError) as excinfo:
        state.resolve(0, play("5s 6h RJ"), strict=True)
    assert excinfo.value.code == "cards_not_in_hand"


def test_following_without_a_meaning_takes_the_one_that_beats():
    # 6-7 + joker is 5-6-7 or 6-7-8; on 5-6-7 only 6-7-8 beats, the higher of the two
    state = run(position(["5d 6d 7d 3c", "6s 7h BJ 9c", "Ks Kh"]), "5d 6d 7d")
    assert state.apply(1, play("6s 7h BJ")).table.combo is combo("6 7 8")
    # on 4-5-6 only 5-6-7 beats, the lower of the two
    state = run(position(["4d 5d 6d 3c", "6s 7h BJ 9c", "Ks Kh"]), "4d 5d 6d")
    assert state.apply(1, play("6s 7h BJ")).table.combo is combo("5 6 7")


def test_following_with_a_play_none_of_whose_meanings_beats_is_refused():
    state = run(position(["8d 9d Td 3c", "6s 7h BJ 9c", "Ks Kh"]), "8d 9d Td")
    assert code_of(state, play("6s 7h BJ")) == "does_not_beat"


def test_legal_moves_name_the_meaning_that_beats():
    state = run(
        position(["3s 4h 5d 6c 7s 8h", "9s 9h Tc Jd Qs", "5s 6h Ks 2d BJ"], "Ad 6s 7h"),
        "3s 4h 5d",
        "pass",
    )
    assert state.legal_moves() == [PASS, play("5s 6h BJ", "4 5 6")]


# §6 Jokers played alone ------------------------------------------------------------------------


@pytest.mark.parametrize("joker", ["BJ", "RJ"])
def test_lone_joker_is_refused_while_the_stock_is_not_empty(joker):
    following = run(position(["4s 9c", joker, "7s 8s"], stock="Kd"), "4s")
    assert code_of(following, play(joker)) == "lone_joker"
    assert following.legal_moves() == [PASS]


@pytest.mark.parametrize("joker", ["BJ", "RJ"])
def test_lone_joker_is_refused_when_it_is_not_the_last_card(joker):
    leading = position([f"9c {joker}", "5h 6h", "7s 8s"])
    assert code_of(leading, play(joker)) == "lone_joker"
    assert all(move.mask != parse_cards(joker)[0].bit for move in leading.legal_moves())
    following = run(position(["4s 9c", f"Kc {joker}", "7s 8s"]), "4s")
    assert code_of(following, play(joker)) == "lone_joker"


def test_one_of_two_jokers_is_refused_alone_even_with_an_empty_stock():
    state = position(["BJ RJ", "5h 6h", "7s 8s"])
    assert code_of(state, play("BJ")) == "lone_joker"
    assert code_of(state, play("RJ")) == "lone_joker"
    assert [str(move) for move in state.legal_moves()] == ["BJ RJ"]


@pytest.mark.parametrize("joker", ["BJ", "RJ"])
def test_lone_last_joker_with_an_empty_stock_may_lead_and_ends_the_game(joker):
    state = run(position(["4s 9c", "5h Jh", "6s " + joker]), "4s", "5h", "6s", "pass", "pass")
    assert state.to_move == 2 and state.table is None and state.hand_count(2) == 1
    assert len(state.legal_moves()) == 1
    end = state.apply(2, play(joker))
    assert end.winner == 2
    assert end.to_move is None
    assert end.table.combo.kind is ComboKind.SINGLE


@pytest.mark.parametrize(
    ("table", "meaning"),
    [("3s", "4"), ("5s", "6"), ("Ts", "J"), ("Ks", "A"), ("As", "2")],
)
def test_lone_last_joker_follows_a_single_as_one_higher(table, meaning):
    state = run(position([f"{table} 9c", "RJ", "7s 8s"]), table)
    assert state.legal_moves() == [PASS, play("RJ", meaning)]
    end = state.apply(1, play("RJ"))
    assert end.table.combo is combo(meaning)
    assert end.winner == 1
    assert end.to_move is None


def test_lone_last_joker_cannot_follow_a_single_2():
    state = run(position(["2s 9c", "BJ", "7s 8s"]), "2s")
    assert code_of(state, play("BJ")) == "does_not_beat"
    assert state.legal_moves() == [PASS]


@pytest.mark.parametrize("table", ["5s 5h", "5s 6h 7d", "5s 5h 5d", "5s 5h 6s 6h"])
def test_lone_last_joker_cannot_follow_anything_but_a_single(table):
    state = run(position([f"{table} 9c", "BJ", "Ks Kh"]), table)
    assert code_of(state, play("BJ")) == "does_not_beat"
    assert state.legal_moves() == [PASS]


def test_lone_joker_becomes_playable_once_the_stock_runs_out():
    # seat 1 holds a joker; the last stock card goes to seat 0, then seat 1 leads it alone
    state = position(["4s 9c", "5h BJ", "6s"], stock="Kd")
    state = run(state, "4s", "5h", "pass")
    state = state.apply(0, PASS)  # seat 1 wins the round and draws Kd
    assert hands_of(state)[1] == "Kd BJ"
    assert state.stock_count == 0
    assert code_of(state, play("BJ")) == "lone_joker"  # not the last card
    state = run(state, "Kd", "pass", "pass")
    assert hands_of(state)[1] == "BJ"
    end = state.apply(1, play("BJ"))
    assert end.winner == 1


# Rejected actions change nothing ---------------------------------------------------------------


def _leading():
    return position(["5s 6h BJ 9c 9d", "4h 5h", "6s 8s"], stock="Kd Kh")


def _following():
    return run(position(["5d 6d 7d 3c", "6s 7h BJ 9c", "Ks Kh"], stock="2c"), "5d 6d 7d")


def _over():
    return run(position(["4s 9c", "5h", "6s 8s"], stock="Kd"), "4s", "5h")


def _joker_with_stock():
    return run(position(["4s 9c", "BJ", "7s 8s"], stock="Kd"), "4s")


REJECTED = [
    (_leading, PASS, "leader_must_play"),
    (_leading, play("4h"), "cards_not_in_hand"),
    (_leading, play("Kd"), "cards_not_in_hand"),
    (_leading, play("5s 9c"), "not_a_combination"),
    (_leading, play("5s 6h BJ", "6 7 8"), "meaning_not_possible"),
    (_leading, play("BJ"), "lone_joker"),
    (_following, play("6s 7h BJ", "5 6 7"), "does_not_beat"),
    (_following, play("9c"), "does_not_beat"),
    (_following, play("3c"), "cards_not_in_hand"),
    (_over, PASS, "game_over"),
    (_over, play("9c"), "game_over"),
    (_joker_with_stock, play("BJ"), "lone_joker"),
]


# Whose turn it is ---------------------------------------------------------------------------


@pytest.mark.parametrize("build", [_leading, _following, _joker_with_stock])
def test_a_seat_that_is_not_to_move_is_refused_and_nothing_changes(build):
    state = build()
    twin = build()
    views = [state.view_for(seat) for seat in (None, 0, 1, 2)]
    for seat in range(3):
        if seat == state.to_move:
            continue
        for move in [PASS, *state.legal_moves()]:
            with pytest.raises(IllegalMoveError) as excinfo:
                state.apply(seat, move)
            assert excinfo.value.code == "not_your_turn"
            assert excinfo.value.message == (
                f"seat {seat} acted, but it is seat {state.to_move}'s turn"
            )
            assert not state.is_legal(seat, move)
    assert state == twin
    assert [state.view_for(seat) for seat in (None, 0, 1, 2)] == views


@pytest.mark.parametrize("seat", [True, 1.0, "1", None, -1, 3])
def test_a_seat_that_is_not_a_seat_number_is_not_to_move(seat):
    state = run(position(["4s 9c", "5h 5d", "7s 8s"]), "4s")
    assert state.to_move == 1
    with pytest.raises(IllegalMoveError) as excinfo:
        state.apply(seat, PASS)
    assert excinfo.value.code == "not_your_turn"


def test_the_turn_is_checked_before_the_move():
    state = _leading()
    assert code_of(state, play("4h"), seat=1) == "not_your_turn"
    assert code_of(state, PASS, seat=2) == "not_your_turn"


@pytest.mark.parametrize(("build", "move", "code"), REJECTED)
def test_rejected_action_leaves_the_state_unchanged(build, move, code):
    state = build()
    twin = build()
    views = [state.view_for(seat) for seat in (None, 0, 1, 2)]
    legal = state.legal_moves()
    assert code_of(state, move) == code
    assert state == twin
    assert [state.view_for(seat) for seat in (None, 0, 1, 2)] == views
    assert state.legal_moves() == legal
    assert not state.is_legal(state.to_move, move)


def test_apply_returns_a_new_state_and_leaves_the_old_one_as_it_was():
    state = position(["4s 9c", "5h Jh", "6s 8s"], stock="Kd")
    twin = position(["4s 9c", "5h Jh", "6s 8s"], stock="Kd")
    after = state.apply(0, play("4s"))
    assert after is not state
    assert state == twin
    assert after != state
    with pytest.raises(AttributeError):
        state.to_move = 2  # type: ignore[misc]


# Move text --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["pass", "5s 6h BJ = 4 5 6", "As", "As Ah", "Ks As", "Qs Ks As", "ks as qs", "Ks As BJ"],
)
def test_move_text_round_trips(text):
    move = parse_move(text)
    assert str(parse_move(str(move))) == str(move)
    if text != "pass":
        assert move.cards == tuple(sorted(parse_cards(text.partition("=")[0])))


def test_every_legal_move_text_round_trips():
    state = position(["9s Ts Js Qs Ks Ah Ad 2s 2h BJ", "3c 4c", "5c 6c"])
    for move in state.legal_moves():
        again = parse_move(str(move))
        assert str(again) == str(move)
        assert state.resolve(0, again) == move, str(move)
