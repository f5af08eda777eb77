"""What each seat sees: its own hand, the others' counts, 明牌 hands to everyone, the bottom
once the landlord has it; never a seed, a hidden hand or a later deal."""

from __future__ import annotations

import json

import pytest

from games.rules.doudizhu import ENGINE, DealOn, GameState
from tests.games.rules.doudizhu.helpers import HANDS, fresh, run, to_play


def cards_in(view: dict[str, object]) -> set[str]:
    """Every card token that appears anywhere in a view."""
    text = json.dumps(view)
    tokens = text.replace('"', " ").replace(",", " ").replace("[", " ").replace("]", " ").split()
    return {t for t in tokens if len(t) == 2 and t[0] in "3456789TJQKA2" and t[1] in "shdc"}


def test_during_the_deal_a_seat_sees_the_cards_shown_so_far() -> None:
    state = fresh(0).apply(0, DealOn(5))
    view = state.view(1)
    assert view["phase"] == "deal" and view["dealt"] == 5
    assert view["hand_counts"] == [5, 5, 5]
    assert sorted(view["hand"]) == sorted(HANDS[1].split()[:5])
    assert view["bottom"] is None and view["shown"] == {}
    assert cards_in(view) == set(HANDS[1].split()[:5])


def test_a_shown_hand_is_public_from_its_declaration() -> None:
    state = run(fresh(0), (0, "deal 3"), (2, "show"))
    for seat in (None, 0, 1):
        assert state.view(seat)["shown"] == {"2": HANDS[2].split()[:3]}
    assert state.to_move == 2  # the first to show bids first, and the deal goes on in its name
    state = state.apply(2, DealOn(17))
    assert state.view(None)["shown"]["2"] == HANDS[2].split()
    assert state.view(None)["shows"] == [{"seat": 2, "show": "deal", "step": 3}]


def test_the_bottom_is_hidden_until_the_landlord_takes_it() -> None:
    state = run(fresh(0), (0, "deal 17"), (0, "call"))
    assert state.view(0)["bottom"] is None
    assert not {"Ac"} & cards_in(state.view(0))
    state = run(state, (1, "no-rob"), (2, "no-rob"))
    for seat in (None, 0, 1, 2):
        assert state.view(seat)["bottom"] == ["Ac", "BJ", "RJ"]
    assert state.view(0)["hand_counts"] == [20, 17, 17]
    assert "Ac" in state.view(0)["hand"]


@pytest.mark.parametrize("seat", [None, 0, 1, 2])
def test_nobody_sees_another_hand(seat: int | None) -> None:
    state = to_play(0).apply_text(0, "3s")
    view = state.view(seat)
    own = {card for card in view.get("hand", []) if card not in ("BJ", "RJ")}
    assert cards_in(view) == own | {"3s", "Ac"}  # the play and the bottom are public
    if seat is None:
        assert "hand" not in view


def test_no_seed_and_no_later_deal_in_any_view() -> None:
    state = ENGINE.deal(123456789, players=3, options=ENGINE.default_options)
    deal = state.current_deal
    for seat in (None, 0, 1, 2):
        text = json.dumps(state.view(seat))
        assert str(deal.seed) not in text and str(deal.next_seed) not in text
        assert "seed" not in text


def test_views_are_json_and_history_can_be_left_out() -> None:
    state = to_play(1)
    view = state.view(1)
    assert json.loads(json.dumps(view)) == view
    assert len(view["history"]) == state.log_length
    assert view["history"][0] == {"seat": 1, "deal_number": 1, "deal": 17}
    assert state.view(1, history=False)["history"] == []
    with pytest.raises(ValueError):
        state.view(3)


def test_the_history_numbers_the_deals() -> None:
    state = GameState.deal(5)
    first = state.to_move
    state = state.apply(first, DealOn(17))  # type: ignore[arg-type]
    for _ in range(3):
        state = state.apply_text(state.to_move, "no-call")  # type: ignore[arg-type]
    history = state.view(None)["history"]
    assert [entry["deal_number"] for entry in history] == [1, 1, 1, 1]
    state = state.apply(state.to_move, DealOn(2))  # type: ignore[arg-type]
    assert state.view(None)["history"][-1]["deal_number"] == 2
