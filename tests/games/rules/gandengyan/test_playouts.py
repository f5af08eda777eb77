"""Seeded random playouts, with the rules' invariants checked after every action.

Each game is dealt from its seed and played to the end by players that pick uniformly among the
legal actions (their choices seeded too), so a failure names the seed that reproduces it.
"""

from __future__ import annotations

import random

import pytest

from games.rules.cards import CARDS, cards_from_mask
from games.rules.gandengyan import PASS, GameRecord, GameState, GandengyanRules, Play, settle
from games.rules.gandengyan import simulate as simulate_module
from games.rules.gandengyan.combos import ComboKind
from games.rules.gandengyan.simulate import simulate

GAMES = 300
BOMB_FACTOR = {ComboKind.SOFT_BOMB: 2, ComboKind.HARD_BOMB: 4, ComboKind.ROCKET: 8}


def check_deal(state: GameState, seed: int) -> None:
    dealer = state.dealer
    assert state.to_move == dealer and state.leader == dealer
    assert [state.hand_count(s) for s in range(3)] == [6 if s == dealer else 5 for s in range(3)], (
        seed
    )
    assert state.stock_count == 38
    cards = [c for s in range(3) for c in state.hand(s)] + list(state.stock_cards())
    assert sorted(cards) == list(CARDS)
    assert state.table is None and state.multiplier == 1 and state.winner is None


def check_step(state: GameState, move: object, after: GameState) -> None:
    """One action's effects, as the rules describe them."""
    seat = state.to_move
    assert seat is not None
    assert after.history == (*state.history, (seat, move))
    assert after.stock_count <= state.stock_count
    if move is PASS:
        assert state.table is not None
        assert after.multiplier == state.multiplier
        if state.passes == 0:  # the first of two passes: the round goes on
            assert after.hands == state.hands
            assert after.stock_count == state.stock_count
            assert after.table == state.table and after.passes == 1
            assert after.to_move == (seat + 1) % 3
        else:  # two passes in a row: the round ends, everyone draws from the round winner on
            winner = state.table.seat
            assert winner == (seat + 1) % 3
            drawn = state.stock_cards()[:3]
            expected = list(state.hands)
            for offset, card in enumerate(drawn):
                expected[(winner + offset) % 3] |= card.bit
            assert list(after.hands) == expected
            assert after.stock_count == state.stock_count - len(drawn)
            assert after.table is None and after.passes == 0
            assert after.to_move == winner and after.leader == winner
        assert after.winner is None
        return
    assert isinstance(move, Play) and move.combo is not None
    assert move.mask & ~state.hands[seat] == 0
    for other in range(3):
        if other == seat:
            assert after.hands[seat] == state.hands[seat] ^ move.mask
        else:
            assert after.hands[other] == state.hands[other]
    assert after.stock_count == state.stock_count
    assert after.table is not None and after.table.seat == seat and after.table.play == move
    assert after.multiplier == state.multiplier * BOMB_FACTOR.get(move.combo.kind, 1)
    assert after.passes == 0
    if after.hands[seat] == 0:  # the last card: the game ends at once, nobody draws
        assert after.winner == seat and after.to_move is None and after.is_terminal
        assert after.legal_moves() == []
    else:
        assert after.winner is None and after.to_move == (seat + 1) % 3


def playout(seed: int) -> GameState:
    """One whole game from ``seed``, checking every position and action on the way."""
    rng = random.Random(seed)
    state = GameState.deal(seed)
    check_deal(state, seed)
    multiplier = 1
    while not state.is_terminal:
        moves = state.legal_moves()
        assert moves, f"seed {seed}: the player to move has no legal action"
        assert (PASS in moves) == (state.table is not None)
        assert state.is_legal(state.to_move, PASS) == (state.table is not None)
        assert 0 not in state.hands
        move = moves[rng.randrange(len(moves))]
        after = state.apply(state.to_move, move)
        check_step(state, move, after)
        if isinstance(move, Play) and move.combo is not None:
            multiplier *= BOMB_FACTOR.get(move.combo.kind, 1)
        assert after.multiplier == multiplier
        assert after.is_terminal == (0 in after.hands)
        state = after
        assert len(state.history) < 2000, f"seed {seed}: the game does not end"
    return state


def check_end(state: GameState, seed: int) -> None:
    winner = state.winner
    assert winner is not None and state.hand_count(winner) == 0
    assert [s for s in range(3) if state.hand_count(s) == 0] == [winner]
    last_seat, last_move = state.history[-1]
    assert last_seat == winner and isinstance(last_move, Play)
    result = settle(state, base=400)
    assert sum(result.payments) == 0, seed
    losers = [s for s in range(3) if s != winner]
    assert result.payments[winner] == -sum(result.payments[s] for s in losers)
    for s in losers:
        assert result.payments[s] < 0
    # Hands, stock and the cards played make up the deck, each card once.
    played = [c for _, m in state.history if isinstance(m, Play) for c in m.cards]
    held = [c for s in range(3) for c in cards_from_mask(state.hands[s])]
    assert sorted(played + held + list(state.stock_cards())) == list(CARDS)


@pytest.mark.parametrize("first", range(0, GAMES, 100))
def test_random_playouts_keep_the_rules(first: int) -> None:
    for seed in range(first, first + 100):
        state = playout(seed)
        check_end(state, seed)


def test_the_same_seed_plays_the_same_game() -> None:
    for seed in (0, 1, 2, 7, 1234, 2**31):
        first = playout(seed)
        again = playout(seed)
        assert first == again
        assert GameState.deal(seed) == GameState.deal(seed)
        result = GameRecord.from_state(first, base=400, seed=seed).replay()
        assert result.ok and result.state == first
        assert result.settlement == settle(first, base=400)
        loaded = GameRecord.loads(GameRecord.from_state(first, base=400, seed=seed).dumps())
        assert loaded.replay().state == first


def test_different_seeds_deal_differently() -> None:
    deals = {tuple(GameState.deal(seed).hands) for seed in range(50)}
    assert len(deals) == 50


def test_simulate_reports_consistent_statistics(monkeypatch: pytest.MonkeyPatch) -> None:
    finals: list[GameState] = []
    real_settle = simulate_module.settle

    def recording_settle(state: GameState, *, base: int) -> object:
        finals.append(state)
        return real_settle(state, base=base)

    monkeypatch.setattr(simulate_module, "settle", recording_settle)
    games, seed = 40, 123
    report = simulate(games, seed)
    assert len(finals) == games
    # Game i is dealt from seed + i and is a legal game to its end.
    for i, final in enumerate(finals):
        start = GameState.deal(seed + i)
        assert [final.starting_hand(s) for s in range(3)] == [start.hand(s) for s in range(3)]
        assert final.starting_stock() == start.stock_cards()
        assert final.is_terminal
        assert GameRecord.from_state(final, base=1).replay().state == final
    plays = [m for f in finals for _, m in f.history if isinstance(m, Play)]
    bombs = [m for m in plays if m.combo is not None and m.combo.kind in BOMB_FACTOR]
    assert report.games == games
    assert report.actions == sum(len(f.history) for f in finals)
    assert report.legal_calls == report.actions
    assert report.bombs == len(bombs)
    assert report.rockets == sum(
        m.combo is not None and m.combo.kind is ComboKind.ROCKET for m in bombs
    )
    assert report.rockets <= games  # one pair of jokers per deck
    assert report.stock_ran_out == sum(f.stock_count == 0 for f in finals)
    assert list(report.wins_by_seat) == [sum(f.winner == s for f in finals) for s in range(3)]
    assert report.follow20_median_us is None
    assert report.legal_median_us > 0 and report.seconds > 0
    data = report.to_json()
    assert data["games"] == games
    assert data["legal_calls"] == report.actions
    assert data["actions_per_game"] == round(report.actions / games, 2)
    assert data["bombs_per_game"] == round(report.bombs / games, 3)
    assert data["wins_by_seat"] == list(report.wins_by_seat)
    assert data["stock_ran_out"] == report.stock_ran_out
    assert f"games                {games} in" in report.to_text()
    # The same seed gives the same games, whatever the timings.
    monkeypatch.setattr(simulate_module, "settle", real_settle)
    again = simulate(games, seed)
    for name in ("actions", "legal_calls", "bombs", "rockets", "stock_ran_out", "wins_by_seat"):
        assert getattr(again, name) == getattr(report, name)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_simulate_under_every_house_rule(players: int) -> None:
    rules = GandengyanRules.from_dict(
        {
            "players": players,
            "twos_jump_pairs": True,
            "twos_top_bombs": True,
            "pair_straights": False,
            "max_straight": 5,
            "max_pair_straight": 4,
            "lone_joker_last": False,
            "natural_over_wild": True,
            "bombs_any_higher": True,
            "joker_not_two": True,
        }
    )
    report = simulate(60, players, rules=rules, follow20=5)
    assert report.games == 60 and len(report.wins_by_seat) == players
    assert sum(report.wins_by_seat) + report.no_winner == 60
    assert report.follow20_median_us is not None
    again = simulate(60, players, rules=rules)
    assert (again.actions, again.wins_by_seat, again.bombs) == (
        report.actions,
        report.wins_by_seat,
        report.bombs,
    )


def test_simulate_with_no_games_and_with_the_follow_benchmark() -> None:
    empty = simulate(0, 5)
    assert (empty.games, empty.actions, empty.legal_calls, empty.bombs) == (0, 0, 0, 0)
    assert empty.wins_by_seat == (0, 0, 0)
    assert empty.to_json()["actions_per_game"] == 0
    timed = simulate(2, 5, follow20=3)
    assert timed.follow20_median_us is not None and timed.follow20_median_us > 0
    assert "20-card hand" in timed.to_text()
