"""Properties of the engine that hold in every position, checked with Hypothesis.

The positions come from ``strategies``: games dealt from a seed and played at random for a while,
and random explicit positions built from dense hands. The reference answers come from ``oracle``,
which follows the rules text by brute force.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from itertools import combinations_with_replacement
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from games.rules import AmbiguousPlayError, IllegalMoveError, format_cards, parse_cards
from games.rules.cards import CARDS, Card, Rank, mask_of
from games.rules.gandengyan import (
    PASS,
    GameRecord,
    GameState,
    Pass,
    Play,
    interpretations,
    parse_move,
    settle,
)
from games.rules.gandengyan.combos import Combo, ComboKind, beats
from games.rules.gandengyan.moves import move_from_json
from games.rules.gandengyan.records import Action
from tests.games.rules.gandengyan.oracle import (
    ALL_COMBOS,
    beats_by_definition,
    legal_actions_by_brute_force,
    lone_joker_meaning,
    meanings_by_definition,
)
from tests.games.rules.gandengyan.strategies import (
    action_key,
    card_lists,
    explicit_positions,
    hands,
    random_playout,
    seeded_states,
    seeds,
    states,
)

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MEDIUM = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
THOROUGH = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BOMB_FACTOR = {ComboKind.SOFT_BOMB: 2, ComboKind.HARD_BOMB: 4, ComboKind.ROCKET: 8}


def replayed(state: GameState) -> GameState:
    """The same position, rebuilt independently from its record."""
    result = GameRecord.from_state(state, base=400).replay()
    assert result.ok, result.error
    return result.state


def all_views(state: GameState) -> list[str]:
    seats: list[int | None] = [*range(state.players), None]
    return [json.dumps(state.view_for(seat), sort_keys=True) for seat in seats]


def ranks_of(cards: Any) -> tuple[Rank, ...]:
    return tuple(sorted(card.rank for card in cards))


# Legal moves --------------------------------------------------------------------------------------


@THOROUGH
@given(states())
def test_every_legal_move_applies(state: GameState) -> None:
    moves = state.legal_moves()
    if state.to_move is None:
        assert moves == []
        return
    seat = state.to_move
    keys = [action_key(m) for m in moves]
    assert len(set(keys)) == len(keys)
    assert (PASS in moves) == (state.table is not None)
    if state.table is not None:
        assert moves[0] is PASS
    hand = state.hands[seat]
    for move in moves:
        assert state.is_legal(seat, move)
        after = state.apply(seat, move)
        assert after.history == (*state.history, (seat, move))
        if isinstance(move, Play):
            assert move.mask & ~hand == 0
            assert after.hands[seat] == hand ^ move.mask
            assert after.table is not None and after.table.seat == seat
            combo = move.combo
            assert combo is not None
            if move.size == 1 and move.cards[0].is_joker:
                table = None if state.table is None else state.table.combo
                assert combo is lone_joker_meaning(table)
            else:
                assert combo in meanings_by_definition(ranks_of(move.cards))
            if state.table is not None:
                assert beats_by_definition(combo, state.table.combo)


@st.composite
def positions_and_actions(draw: st.DrawFn) -> tuple[GameState, Any]:
    """A position and an action for its player to move: a pass, a legal move with its cards
    swapped for others of the same ranks, or random cards of the hand (sometimes with a card the
    player does not hold) with no meaning, a possible meaning or any combination as meaning."""
    state = draw(states())
    seat = state.to_move if state.to_move is not None else 0
    hand = list(state.hand(seat))
    choice = draw(st.sampled_from(["pass", "legal", "legal", "relabel", "subset", "foreign"]))
    legal = [m for m in state.legal_moves() if isinstance(m, Play)]
    if choice == "pass" or not hand:
        return state, PASS
    if choice in ("legal", "relabel") and legal:
        move = draw(st.sampled_from(legal))
        cards = []
        for card in move.cards:
            same = [c for c in hand if c.rank is card.rank and c not in cards]
            cards.append(draw(st.sampled_from(same)))
        if choice == "relabel":  # the same cards with a meaning they may or may not have
            meanings = list(interpretations(move.mask))
            pool = st.sampled_from(meanings) if meanings else st.sampled_from(ALL_COMBOS)
            return state, Play(cards, draw(st.one_of(pool, st.sampled_from(ALL_COMBOS))))
        return state, Play(cards, move.combo if draw(st.booleans()) else None)
    cards = draw(st.lists(st.sampled_from(hand), min_size=1, max_size=min(len(hand), 8)))
    cards = list(dict.fromkeys(cards))
    if choice == "foreign":
        cards.append(draw(st.sampled_from([c for c in CARDS if c not in hand])))
    meanings = list(interpretations(mask_of(cards)))
    combo = draw(
        st.one_of(
            st.none(),
            st.sampled_from(meanings) if meanings else st.none(),
            st.sampled_from(ALL_COMBOS),
        )
    )
    return state, Play(cards, combo)


@THOROUGH
@given(positions_and_actions())
def test_an_action_applies_exactly_when_it_is_a_legal_action(case: tuple[GameState, Any]) -> None:
    state, move = case
    twin = replayed(state)
    views = all_views(state)
    keys = {action_key(m) for m in state.legal_moves()}
    seat = state.to_move
    expected: tuple[tuple[Rank, ...], Combo | None] | None
    if seat is None:
        expected = None
    elif isinstance(move, Pass):
        expected = action_key(move) if action_key(move) in keys else None
    elif set(move.cards) - set(state.hand(seat)):
        expected = None
    elif move.combo is not None:
        expected = action_key(move) if action_key(move) in keys else None
    else:
        # No meaning named: leading, the lowest one is taken; following, the one that beats.
        ranks = ranks_of(move.cards)
        candidates = sorted(
            (combo for r, combo in keys if r == ranks and combo is not None),
            key=lambda c: c.rank,
        )
        if state.table is not None:
            assert len(candidates) <= 1
        expected = (ranks, candidates[0]) if candidates else None
    if expected is None:
        with pytest.raises(IllegalMoveError) as error:
            state.apply(state.to_move, move)
        event(f"refused: {error.value.code}")
        assert not state.is_legal(state.to_move, move)
        assert state == twin
        assert all_views(state) == views
        assert state.legal_moves() == twin.legal_moves()
    else:
        assert seat is not None
        after = state.apply(seat, move)
        event("applied: " + ("lead" if state.table is None else "follow"))
        assert after.history[-1][0] == seat
        assert action_key(after.history[-1][1]) == expected
        if isinstance(move, Play):
            assert after.hands[seat] == state.hands[seat] ^ move.mask


@THOROUGH
@given(states(max_hand=12))
def test_legal_moves_equal_the_brute_force(state: GameState) -> None:
    seat = state.to_move
    if seat is None:
        assert state.legal_moves() == []
        return
    assert state.hand_count(seat) <= 12
    table = None if state.table is None else state.table.combo
    expected = legal_actions_by_brute_force(state.hand(seat), table, state.stock_count == 0)
    assert {action_key(m) for m in state.legal_moves()} == expected


@MEDIUM
@given(explicit_positions(max_hand=8))
def test_legal_moves_equal_the_brute_force_in_explicit_positions(state: GameState) -> None:
    seat = state.to_move
    assert seat is not None
    table = None if state.table is None else state.table.combo
    expected = legal_actions_by_brute_force(state.hand(seat), table, state.stock_count == 0)
    assert {action_key(m) for m in state.legal_moves()} == expected


# Combinations -------------------------------------------------------------------------------------


@MEDIUM
@given(hands(min_size=1, max_size=12))
def test_interpretations_are_the_meanings_by_definition(cards: list[Card]) -> None:
    found = interpretations(mask_of(cards))
    assert len(set(found)) == len(found)
    assert list(found) == sorted(found, key=lambda c: c.rank or 0)
    assert set(found) == meanings_by_definition(ranks_of(cards))


def test_interpretations_of_every_small_multiset_of_ranks() -> None:
    """Every multiset of up to five ranks that one deck can hold, jokers included."""
    first_card: dict[Rank, list[Card]] = {}
    for card in CARDS:
        first_card.setdefault(card.rank, []).append(card)
    checked = 0
    for size in range(1, 6):
        for ranks in combinations_with_replacement(list(first_card), size):
            counts = Counter(ranks)
            if any(n > len(first_card[r]) for r, n in counts.items()):
                continue
            cards = [c for r, n in counts.items() for c in first_card[r][:n]]
            assert set(interpretations(mask_of(cards))) == meanings_by_definition(ranks), ranks
            checked += 1
    assert checked > 10_000


def test_beats_is_the_rule_for_every_pair_of_combinations() -> None:
    assert len(ALL_COMBOS) == 174
    for play in ALL_COMBOS:
        for table in ALL_COMBOS:
            assert beats(play, table) == beats_by_definition(play, table), (play, table)


# Text forms ---------------------------------------------------------------------------------------


@st.composite
def messy_texts(draw: st.DrawFn, cards: list[Card]) -> str:
    """The cards written in any order and case, with 10 for T now and then."""
    words = []
    for card in draw(st.permutations(cards)):
        word = str(card)
        if word.startswith("T") and draw(st.booleans()):
            word = "10" + word[1:]
        word = "".join(ch.lower() if draw(st.booleans()) else ch.upper() for ch in word)
        words.append(word)
    return " ".join(words)


@FAST
@given(st.data(), card_lists(min_size=0, max_size=20))
def test_card_text_round_trips(data: st.DataObject, cards: list[Card]) -> None:
    canonical = format_cards(cards)
    assert parse_cards(canonical) == tuple(sorted(cards, key=lambda c: c.index))
    assert format_cards(parse_cards(canonical)) == canonical
    assert format_cards(parse_cards(data.draw(messy_texts(cards)))) == canonical
    assert not re.search(r"10|[a-z][A-Z0-9]|\b[2-9TJQKA][SHDC]\b", canonical)


@MEDIUM
@given(states())
def test_strict_resolve_asks_exactly_when_the_legal_moves_hold_several_meanings(
    state: GameState,
) -> None:
    """The meanings a strict resolve offers are those of the legal moves with the same cards,
    in the order ``legal_moves()`` lists them."""
    seat = state.to_move
    if seat is None:
        return
    by_mask: dict[int, list[Play]] = {}
    for move in state.legal_moves():
        if isinstance(move, Play):
            by_mask.setdefault(move.mask, []).append(move)
    for moves in by_mask.values():
        cards = Play(moves[0].cards)
        if len(moves) > 1:
            event("ambiguous")
            with pytest.raises(AmbiguousPlayError) as error:
                state.resolve(seat, cards, strict=True)
            assert error.value.meanings == tuple(m.combo.ranks_text() for m in moves)
            assert state.resolve(seat, cards) == moves[0]
        else:
            assert state.resolve(seat, cards, strict=True) == moves[0], format_cards(cards.cards)


@MEDIUM
@given(states())
def test_every_legal_move_round_trips_through_its_text(state: GameState) -> None:
    for move in state.legal_moves():
        text = str(move)
        assert state.resolve(state.to_move, parse_move(text)) == move
        assert move_from_json(move.to_json()) == move
        assert str(parse_move(text)) == text


@FAST
@given(states())
def test_parse_move_gives_back_every_legal_move(state: GameState) -> None:
    for move in state.legal_moves():
        assert parse_move(str(move)) == move


@MEDIUM
@given(st.data(), hands(min_size=1, max_size=8), st.one_of(st.none(), st.sampled_from(ALL_COMBOS)))
def test_move_text_is_canonical(
    data: st.DataObject, cards: list[Card], combo: Combo | None
) -> None:
    text = data.draw(messy_texts(cards))
    if combo is not None:
        ranks = list(combo.ranks_text().split())
        data.draw(st.randoms()).shuffle(ranks)
        text += " = " + " ".join(ranks)
    move = parse_move(text)
    meanings = meanings_by_definition(ranks_of(cards))
    assert isinstance(move, Play)
    if combo is not None:
        assert move.combo is combo
    elif len(meanings) == 1:  # cards with one meaning get it at once
        assert {move.combo} == meanings
    else:  # the position will decide
        assert move.combo is None
    canonical = format_cards(cards)
    if combo is not None and meanings != {combo}:
        canonical += " = " + " ".join(r.symbol for r in sorted(combo.ranks))
    assert str(move) == canonical
    assert str(parse_move(str(move))) == canonical
    assert parse_move(str(move)) == move
    assert str(parse_move(" PaSs ")) == "pass"


# Records, cards, the end of the game, settlement --------------------------------------------------


@MEDIUM
@given(states())
def test_records_round_trip_and_replay_to_the_same_state(state: GameState) -> None:
    record = GameRecord.from_state(state, base=400)
    result = record.replay()
    assert result.ok and result.applied == len(state.history)
    assert result.state == state
    again = GameRecord.loads(record.dumps())
    assert again.to_json() == record.to_json()
    result = again.replay()
    assert result.ok
    assert result.state == state
    if state.is_terminal:
        assert result.settlement == settle(state, base=400)
    else:
        assert result.settlement is None


@MEDIUM
@given(states())
def test_cards_are_conserved(state: GameState) -> None:
    start: list[int] = []
    for seat in range(state.players):
        start += [c.index for c in state.starting_hand(seat)]
    start += [c.index for c in state.starting_stock()]
    now: list[int] = []
    for seat in range(state.players):
        now += [c.index for c in state.hand(seat)]
    now += [c.index for c in state.stock_cards()]
    for _, move in state.history:
        if isinstance(move, Play):
            now += [c.index for c in move.cards]
    assert len(set(start)) == len(start)
    assert len(set(now)) == len(now)
    assert sorted(now) == sorted(start)
    # The stock is drawn from the top: what is left is the end of the starting stock.
    left = state.stock_cards()
    assert left == state.starting_stock()[len(state.starting_stock()) - len(left) :]


@FAST
@given(seeds)
def test_every_seeded_game_ends_and_settles_to_zero(seed: int) -> None:
    state = random_playout(GameState.deal(seed), random.Random(seed), max_steps=5000)
    assert state.is_terminal and state.to_move is None
    check_settlement(state)


@MEDIUM
@given(seeded_states(max_steps=400))
def test_settlement(state: GameState) -> None:
    if not state.is_terminal:
        with pytest.raises(ValueError):
            settle(state, base=400)
        return
    check_settlement(state)


def check_settlement(state: GameState) -> None:
    winner = state.winner
    assert winner is not None and state.hand_count(winner) == 0
    multiplier = 1
    for _, move in state.history:
        if isinstance(move, Play) and move.combo is not None:
            multiplier *= BOMB_FACTOR.get(move.combo.kind, 1)
    assert state.multiplier == multiplier
    played = {seat for seat, move in state.history if isinstance(move, Play)}
    for base in (1, 400, 80_000):
        result = settle(state, base=base)
        assert result.winner == winner and result.multiplier == multiplier
        assert sum(result.payments) == 0
        losses = 0
        for seat in range(state.players):
            if seat == winner:
                continue
            spring = seat not in played
            assert result.spring[seat] == spring
            pays = base * state.hand_count(seat) * multiplier * (2 if spring else 1)
            assert result.payments[seat] == -pays
            losses += pays
        assert result.payments[winner] == losses


# Views and turns ----------------------------------------------------------------------------------

TOKEN = re.compile(r"[0-9A-Za-z]+")


def value_tokens(data: Any) -> list[str]:
    """Every word inside the values of a JSON document (not its keys)."""
    if isinstance(data, dict):
        return [t for value in data.values() for t in value_tokens(value)]
    if isinstance(data, list):
        return [t for value in data for t in value_tokens(value)]
    if isinstance(data, str):
        return TOKEN.findall(data)
    return []


def key_tokens(data: Any) -> list[str]:
    if isinstance(data, dict):
        return [*data, *(t for value in data.values() for t in key_tokens(value))]
    if isinstance(data, list):
        return [t for value in data for t in key_tokens(value)]
    return []


@MEDIUM
@given(states())
def test_views_never_show_hidden_cards(state: GameState) -> None:
    stock = {str(c) for c in state.stock_cards()}
    for seat in [*range(state.players), None]:
        view = state.view_for(seat)
        text = json.dumps(view)
        assert json.loads(text) == view
        secret = set(stock)
        for other in range(state.players):
            if other != seat:
                secret |= {str(c) for c in state.hand(other)}
        # Word by word ("Ts" inside other text is no leak): the whole document as sent, and its
        # values whatever their case (the key "as" is not the ace of spades).
        assert not set(TOKEN.findall(text)) & secret
        values = {t.upper() for t in value_tokens(view)}
        assert not values & {s.upper() for s in secret}
        assert not set(key_tokens(view)) & secret
        if seat is None:
            assert "hand" not in view
        else:
            assert view["hand"] == [str(c) for c in state.hand(seat)]
        assert view["hand_counts"] == [state.hand_count(s) for s in range(state.players)]
        assert view["stock"] == state.stock_count


@FAST
@given(states())
def test_only_the_player_to_move_acts(state: GameState) -> None:
    record = GameRecord.from_state(state, base=400)
    moves = state.legal_moves()
    if state.to_move is None:
        assert moves == []
        for seat in range(state.players):
            with pytest.raises(IllegalMoveError) as error:
                state.apply(seat, PASS)
            assert error.value.code == "game_over"
        return
    if not moves:  # a leader holding one joker while the stock lasts: nothing to do
        return
    move = moves[-1]
    for seat in range(state.players):
        actions = (*record.actions, Action(seat, move))
        result = GameRecord(
            rules=record.rules,
            base=record.base,
            dealer=record.dealer,
            hands=record.hands,
            stock=record.stock,
            actions=actions,
        ).replay()
        if seat == state.to_move:
            assert result.ok
            assert result.state == state.apply(seat, move)
        else:
            assert result.error is not None and result.error.code == "not_your_turn"
            assert result.applied == len(state.history)
            with pytest.raises(IllegalMoveError) as error:
                state.apply(seat, move)
            assert error.value.code == "not_your_turn"
            assert result.error.message == f"action {len(state.history)}: {error.value.message}"
            assert result.state == state
