"""Views (``view(seat)``): a seat's own hand and nothing hidden of the others; public counts,
bids, the bottom once taken, every seat's bombs left, the table."""

from __future__ import annotations

import json

from games.rules.shanghai import GameState
from games.rules.shanghai.cards import format_cards
from tests.games.rules.shanghai.helpers import fixed_deal, fresh, run


def test_view_while_bidding() -> None:
    state = run(fresh(1), (1, "small"))
    view = state.view(2)
    hands, _ = fixed_deal()
    assert view["phase"] == "bid" and view["to_move"] == 2 and view["seat"] == 2
    assert " ".join(view["hand"]) == format_cards(state.hand(2))
    assert sorted(view["hand"]) == sorted(hands[2].split())
    assert view["hand_counts"] == [25, 25, 25, 25]
    assert view["bids"] == [{"seat": 1, "bid": "small"}]
    assert view["landlord"] is None and view["bid"] is None and view["bottom"] is None
    assert view["bombs_left"] == [None, None, None, None]
    assert view["history"] == [{"seat": 1, "deal_number": 1, "bid": "small"}]
    assert state.view(2, history=False)["history"] == []
    assert json.loads(json.dumps(view)) == view


def test_view_in_play() -> None:
    state = run(fresh(0), (0, "no-bid"), (1, "small"), (2, "big"))
    state = state.apply(2, state.legal_moves()[0])
    view = state.view(None)
    assert "hand" not in view and view["phase"] == "play"
    assert view["landlord"] == 2 and view["bid"] == "big"
    assert view["hand_counts"] == [25, 25, 32, 25]
    assert view["bombs_left"] == [1, 2, None, None] and view["bombs_played"] == [0, 0, 0, 0]
    assert view["table"]["seat"] == 2 and view["table"]["kind"] == "single"
    assert len(view["bottom"]) == 8 and view["plays_made"] == [0, 0, 1, 0]


def test_a_view_never_holds_another_seat_s_cards() -> None:
    state = GameState.deal(11)
    for seat in range(4):
        text = json.dumps(state.view(seat))
        for other in range(4):
            if other == seat:
                continue
            for card in state.hand(other):
                if card != state.current_deal.face_up:
                    assert f'"{card}"' not in text
        for card in state.bottom:
            if card != state.current_deal.face_up:
                assert f'"{card}"' not in text
