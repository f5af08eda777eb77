"""The game as a state machine: the deal (§8), the bidding (§9, §13), bomb limits (§11, §13),
the play, the end, and the views."""

from __future__ import annotations

import random

import pytest

from games.rules.errors import IllegalMoveError
from games.rules.shanghai import (
    BIG,
    NO_BID,
    PASS,
    SMALL,
    GameState,
    Phase,
    Play,
    deal_from_seed,
)
from games.rules.shanghai.cards import CARDS, format_cards, mask_of, parse_cards
from games.rules.shanghai.game import first_bidder_of
from tests.games.rules.shanghai.helpers import fixed_deal, follow_position, fresh, run


def test_deal_shape() -> None:
    for seed in range(20):
        deal = deal_from_seed(seed)
        cards = [c for hand in deal.hands for c in hand] + list(deal.bottom)
        assert [len(h) for h in deal.hands] == [25] * 4 and len(deal.bottom) == 8
        assert sorted(cards) == list(CARDS)
        assert deal.face_up in cards
        assert deal.first_bidder == first_bidder_of(deal.hands, deal.bottom, deal.face_up)
        assert deal_from_seed(seed) == deal
    assert deal_from_seed(1).hands != deal_from_seed(2).hands


def test_deal_follows_the_documented_procedure() -> None:
    seed = 12345
    rng = random.Random(seed)
    deck = list(CARDS)
    rng.shuffle(deck)
    face = deck.pop(rng.randrange(108))
    deck.insert(rng.randrange(108), face)
    stream = iter(deck)
    hands: list[list[object]] = [[], [], [], []]
    bottom = []
    for round_ in range(25):
        for seat in range(4):
            hands[seat].append(next(stream))
        if round_ < 8:
            bottom.append(next(stream))
    deal = deal_from_seed(seed)
    assert [list(h) for h in deal.hands] == hands and list(deal.bottom) == bottom
    assert deal.face_up == face and deal.next_seed == rng.getrandbits(63)


def test_face_up_card_in_the_bottom_gives_the_next_card_s_seat() -> None:
    seeds = [s for s in range(300) if deal_from_seed(s).face_up in deal_from_seed(s).bottom]
    assert seeds
    for seed in seeds:
        assert deal_from_seed(seed).first_bidder == 0
    holders = {deal_from_seed(s).first_bidder for s in range(60)}
    assert holders == {0, 1, 2, 3}


def test_small_then_passes() -> None:
    state = fresh(1)
    assert state.phase is Phase.BID and state.to_move == 1
    assert state.legal_actions(1) == [SMALL, BIG, NO_BID] and state.legal_actions(2) == []
    state = state.apply(1, SMALL)
    assert state.legal_actions(2) == [BIG, NO_BID]
    with pytest.raises(IllegalMoveError) as err:
        state.apply(2, SMALL)
    assert err.value.code == "wrong_bid"
    state = run(state, (2, "no-bid"), (3, "no-bid"), (0, "no-bid"))
    assert state.phase is Phase.PLAY and state.landlord == 1 and state.bid == "small"
    assert state.to_move == 1 and state.hand_count(1) == 33 and state.table is None
    assert state.bombs_left == (1, None, 1, 1)


def test_big_after_small_sets_the_bomb_limits() -> None:
    # §11: first passes, second 小地主, third 大地主: 1, 2, and no limit for the fourth.
    state = run(fresh(0), (0, "no-bid"), (1, "small"), (2, "big"))
    assert state.landlord == 2 and state.bid == "big" and state.to_move == 2
    assert state.bombs_left == (1, 2, None, None)
    assert state.view(3)["bombs_left"] == [1, 2, None, None]


def test_big_at_once_lets_every_farmer_bomb() -> None:
    state = fresh(2).apply(2, BIG)
    assert state.landlord == 2 and state.bombs_left == (None, None, None, None)


def test_last_bidder_small() -> None:
    state = run(fresh(3), (3, "no-bid"), (0, "no-bid"), (1, "no-bid"), (2, "small"))
    assert state.landlord == 2 and state.bombs_left == (1, 1, None, 1)


def test_pass_while_bidding_is_no_bid() -> None:
    state = fresh(0)
    assert state.resolve(0, PASS) == NO_BID
    assert state.apply(0, PASS).history == ((0, NO_BID),)
    with pytest.raises(IllegalMoveError) as err:
        state.apply(0, Play.parse("3s"))
    assert err.value.code == "wrong_phase"
    with pytest.raises(IllegalMoveError) as err:
        state.apply(1, SMALL)
    assert err.value.code == "not_your_turn"


def test_all_pass_redeals_from_the_seed() -> None:
    state = GameState.deal(3)
    first = state.to_move
    assert first is not None
    for k in range(4):
        state = state.apply((first + k) % 4, NO_BID)
    assert len(state.deals) == 2 and state.phase is Phase.BID
    redeal = deal_from_seed(deal_from_seed(3).next_seed)
    assert state.current_deal == redeal and state.to_move == redeal.first_bidder
    assert state.bids == () and state.view(None)["deal_number"] == 2
    assert [h["deal_number"] for h in state.view(None)["history"]] == [1, 1, 1, 1]


def test_bottom_is_shown_once_taken() -> None:
    state = fresh(0)
    assert state.view(0)["bottom"] is None
    state = run(state, (0, "small"), (1, "no-bid"), (2, "no-bid"), (3, "no-bid"))
    _, bottom = fixed_deal()
    assert state.view(2)["bottom"] == bottom.split()
    assert mask_of(parse_cards(bottom)) & ~state.hands[0] == 0


def test_three_passes_give_the_lead_back() -> None:
    state = GameState.play_position(["3s 4s 9s", "5s", "6s", "7s 8s"], landlord=0)
    state = state.apply_text(0, "3s")
    state = run(state, (1, "pass"), (2, "pass"), (3, "pass"))
    assert state.to_move == 0 and state.table is None
    with pytest.raises(IllegalMoveError) as err:
        state.apply(0, PASS)
    assert err.value.code == "leader_must_play"
    state = run(state, (0, "4s"), (1, "5s"))
    assert state.phase is Phase.OVER and state.winner == 1 and state.to_move is None


def test_a_farmer_s_bombs_are_limited() -> None:
    bomb1, bomb2, jokers = "5s 5h 5d 5c", "6s 6h 6d 6c", "BJ BJ RJ RJ"
    state = follow_position(f"{bomb1} {bomb2} {jokers} 9s", "3s", bombs_left=(None, 1, 1, 1))
    moves = [str(m) for m in state.legal_moves()]
    assert format_cards(parse_cards(bomb1)) in moves and format_cards(parse_cards(jokers)) in moves
    state = state.apply_text(1, bomb1)
    assert state.bombs_left[1] == 0 and state.bombs_played[1] == 1
    state = run(state, (2, "pass"), (3, "pass"), (0, "pass"))
    assert state.to_move == 1
    leads = state.legal_moves()
    assert all(not m.combo.is_bomb for m in leads if isinstance(m, Play))  # type: ignore[union-attr]
    for cards in (bomb2, jokers):
        with pytest.raises(IllegalMoveError) as err:
            state.apply_text(1, cards)
        assert err.value.code == "bomb_limit"


def test_the_four_joker_bomb_counts_as_a_bomb() -> None:
    state = follow_position("BJ BJ RJ RJ 6s 6h 6d 6c 9s", "3s", bombs_left=(None, 2, 1, 1))
    state = state.apply_text(1, "BJ BJ RJ RJ")
    assert state.bombs_left[1] == 1 and state.bombs_played[1] == 1


def test_the_landlord_bombs_freely() -> None:
    state = GameState.play_position(
        ["5s 5h 5d 5c 6s 6h 6d 6c 7s 7h 7d 7c 9s", "3s", "4s", "8s"], landlord=0
    )
    assert state.bombs_left == (None, 1, 1, 1)
    for bomb in ("5s 5h 5d 5c", "6s 6h 6d 6c", "7s 7h 7d 7c"):
        state = state.apply_text(0, bomb)
        state = run(state, (1, "pass"), (2, "pass"), (3, "pass"))
    assert state.bombs_played[0] == 3 and state.bombs_left[0] is None


def test_a_play_counts_as_the_seat_s_own_copies() -> None:
    state = GameState.play_position(["As.2 Ah.2 3s", "5s", "6s", "7s"], landlord=0)
    resolved = state.resolve(0, Play.parse("As Ah"))
    assert str(resolved) == "As.2 Ah.2"
    with pytest.raises(IllegalMoveError) as err:
        state.apply_text(0, "As As")
    assert err.value.code == "cards_not_in_hand"
    with pytest.raises(IllegalMoveError) as err:
        state.apply_text(0, "As 3s")
    assert err.value.code == "not_a_combination"


def test_does_not_beat() -> None:
    state = follow_position("4s 4h 9s 9h 9d", "5s 5h")
    with pytest.raises(IllegalMoveError) as err:
        state.apply_text(1, "4s 4h")
    assert err.value.code == "does_not_beat"
    with pytest.raises(IllegalMoveError):
        state.apply_text(1, "9s 9h 9d")


def test_views_hide_the_other_hands() -> None:
    state = GameState.deal(5)
    for seat in range(4):
        view = state.view(seat)
        assert view["hand"] == [str(c) for c in state.hand(seat)]
        text = repr(view)
        for other in range(4):
            if other != seat:
                assert "hands" not in view
        assert "seed" not in text and "next_seed" not in text
        assert view["bottom"] is None and view["hand_counts"] == [25, 25, 25, 25]
    spectator = state.view(None)
    assert "hand" not in spectator and spectator["face_up"] == str(state.current_deal.face_up)


def test_round_actions() -> None:
    state = GameState.play_position(["3s 4s 9s", "5s 6s Qs", "7s Ts", "8s Js"], landlord=0)
    assert state.round_actions == ()
    state = run(state, (0, "3s"), (1, "5s"), (2, "pass"))
    assert [(s, str(a)) for s, a in state.round_actions] == [(0, "3s.1"), (1, "5s.1"), (2, "pass")]
    state = run(state, (3, "pass"), (0, "pass"))
    assert state.round_actions == () and state.to_move == 1
    state = run(state, (1, "6s"), (2, "pass"))
    assert [(s, str(a)) for s, a in state.round_actions] == [(1, "6s.1"), (2, "pass")]
