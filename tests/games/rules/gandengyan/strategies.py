"""Hypothesis strategies and position builders for the 干瞪眼 engine's tests.

Cards and hands (plain random ones, and dense ones drawn from a few neighbouring ranks plus the
jokers, where pairs, straights and bombs are common), combinations, explicit positions (a hand to
lead with, or to answer a lead with) and game states reached by random legal play from a seeded
deal.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from hypothesis import strategies as st

from games.rules import parse_cards
from games.rules.cards import BLACK_JOKER, CARDS, RED_JOKER, Card, Rank, format_cards
from games.rules.gandengyan import GameState, Move, Pass, Play, parse_move
from games.rules.gandengyan.combos import Combo
from tests.games.rules.gandengyan.oracle import ALL_COMBOS

NATURAL_CARDS: tuple[Card, ...] = CARDS[:52]
JOKER_CARDS: tuple[Card, ...] = (BLACK_JOKER, RED_JOKER)
SUITED_RANKS: tuple[Rank, ...] = tuple(r for r in Rank if not r.is_joker)

ActionKey = tuple[tuple[Rank, ...], "Combo | None"]


# Distinct actions ---------------------------------------------------------------------------------


def action_key(move: Move) -> ActionKey:
    """What makes two actions the same: the ranks used (jokers told apart) and the meaning."""
    if isinstance(move, Pass):
        return ((), None)
    assert isinstance(move, Play)
    return (tuple(sorted(card.rank for card in move.cards)), move.combo)


# Position builders --------------------------------------------------------------------------------


def _fillers(used: set[Card], count: int) -> list[Card]:
    """The lowest natural cards that nobody uses yet."""
    free = [card for card in NATURAL_CARDS if card not in used]
    assert len(free) >= count, "not enough cards left for the other seats"
    return free[:count]


def lead_position(hand: str | Sequence[Card], *, stock_empty: bool) -> GameState:
    """Seat 0 leads with ``hand``; seats 1 and 2 hold one filler card each; the stock holds one
    filler card unless it is empty."""
    cards = list(parse_cards_text(hand))
    fill = _fillers(set(cards), 3)
    stock = [] if stock_empty else [fill[2]]
    return GameState.from_position([cards, [fill[0]], [fill[1]]], stock, dealer=0)


def follow_position(
    hand: str | Sequence[Card],
    table: str,
    *,
    stock_empty: bool,
    meaning: str | None = None,
) -> GameState:
    """Seat 2 (the dealer) leads ``table`` (with the meaning ``meaning`` if given) out of a hand
    with one more card, and seat 0 is to answer it with ``hand``; seat 1 holds one filler card."""
    cards = list(parse_cards_text(hand))
    played = list(parse_cards_text(table))
    fill = _fillers(set(cards) | set(played), 3)
    stock = [] if stock_empty else [fill[2]]
    state = GameState.from_position([cards, [fill[0]], [*played, fill[1]]], stock, dealer=2)
    text = format_cards(played) + (f" = {meaning}" if meaning else "")
    state = state.apply(2, parse_move(text))
    assert state.to_move == 0 and state.table is not None
    return state


def parse_cards_text(cards: str | Sequence[Card]) -> tuple[Card, ...]:
    return parse_cards(cards) if isinstance(cards, str) else tuple(cards)


def random_playout(
    state: GameState,
    rng: random.Random,
    max_steps: int | None = None,
    stop: Callable[[GameState], bool] | None = None,
) -> GameState:
    """Play uniformly random legal moves until the game ends or ``max_steps`` actions were made.

    With ``stop``, play also ends before a move that would lead to a state where ``stop`` holds:
    the state returned is the last one where it did not."""
    steps = 0
    while state.to_move is not None and (max_steps is None or steps < max_steps):
        moves = state.legal_moves()
        after = state.apply(state.to_move, moves[rng.randrange(len(moves))])
        if stop is not None and stop(after):
            break
        state = after
        steps += 1
    return state


# Strategies ---------------------------------------------------------------------------------------

seeds = st.integers(min_value=0, max_value=2**32 - 1)


def cards() -> st.SearchStrategy[Card]:
    return st.sampled_from(CARDS)


def card_lists(min_size: int = 0, max_size: int = 54) -> st.SearchStrategy[list[Card]]:
    """Distinct cards of the deck, in a random order."""
    return st.lists(cards(), min_size=min_size, max_size=max_size, unique=True)


@st.composite
def dense_card_lists(draw: st.DrawFn, min_size: int = 1, max_size: int = 12) -> list[Card]:
    """Distinct cards drawn from a window of 2 to 6 neighbouring ranks (the 2 included), with the
    jokers often in: the hands where pairs, straights, pair straights and bombs happen."""
    width = draw(st.integers(2, 6))
    start = draw(st.integers(0, len(SUITED_RANKS) - width))
    ranks = set(SUITED_RANKS[start : start + width])
    if draw(st.booleans()):
        ranks.add(Rank.TWO)
    pool = [card for card in NATURAL_CARDS if card.rank in ranks]
    pool += [joker for joker in JOKER_CARDS if draw(st.booleans())]
    max_size = min(max_size, len(pool))
    min_size = min(min_size, max_size)
    return draw(st.lists(st.sampled_from(pool), min_size=min_size, max_size=max_size, unique=True))


def hands(min_size: int = 1, max_size: int = 12) -> st.SearchStrategy[list[Card]]:
    return st.one_of(
        card_lists(min_size=min_size, max_size=max_size),
        dense_card_lists(min_size=min_size, max_size=max_size),
    )


def combos() -> st.SearchStrategy[Combo]:
    return st.sampled_from(ALL_COMBOS)


@st.composite
def explicit_positions(draw: st.DrawFn, max_hand: int = 12) -> GameState:
    """A random explicit position: some seat leads, or answers a lead from the seat before it.

    The mover's and the leader's cards come from one dense pool, so that the lead is often
    something the mover can beat; the third seat and the stock (possibly empty) get random cards.
    """
    both = draw(dense_card_lists(min_size=2, max_size=max_hand + 6))
    split = draw(st.integers(1, min(max_hand, len(both) - 1)))
    mover_cards, leader_cards = both[:split], both[split:]
    rest = [card for card in CARDS if card not in both]
    rest = draw(st.permutations(rest))
    third_size = draw(st.integers(1, 5))
    stock_size = draw(st.sampled_from([0, 0, 1, 2, 5, 12]))
    third = rest[:third_size]
    stock = rest[third_size : third_size + stock_size]
    mover = draw(st.integers(0, 2))
    leader = (mover - 1) % 3
    hands_by_seat: list[list[Card]] = [[], [], []]
    hands_by_seat[mover] = mover_cards
    hands_by_seat[leader] = leader_cards
    hands_by_seat[(mover + 1) % 3] = third
    following = draw(st.booleans())  # the seat before the mover has led
    dealer = leader if following else mover
    if len(hands_by_seat[dealer]) == 1 and hands_by_seat[dealer][0].is_joker:
        stock = []  # nobody can lead with a lone joker while the stock lasts
    state = GameState.from_position(hands_by_seat, stock, dealer=dealer)
    if following:
        leads = [m for m in state.legal_moves() if m.mask != state.hands[leader]]
        if leads:  # a lead that does not end the game
            return state.apply(leader, draw(st.sampled_from(leads)))
        state = GameState.from_position(hands_by_seat, [], dealer=mover)
    return state


def _hand_limit(max_hand: int | None) -> Callable[[GameState], bool] | None:
    if max_hand is None:
        return None

    def over(state: GameState) -> bool:
        return state.to_move is not None and state.hand_count(state.to_move) > max_hand

    return over


@st.composite
def seeded_states(draw: st.DrawFn, max_steps: int = 250, max_hand: int | None = None) -> GameState:
    """A state reached by random legal play from a seeded deal (possibly the end of the game).

    With ``max_hand``, play stops before the player to move would hold more cards than that."""
    seed = draw(seeds)
    steps = draw(st.one_of(st.integers(0, 60), st.integers(0, max_steps)))  # a game lasts ~75
    rng = random.Random(seed ^ 0x5EED)
    return random_playout(GameState.deal(seed), rng, steps, _hand_limit(max_hand))


@st.composite
def played_positions(draw: st.DrawFn, max_hand: int = 12) -> GameState:
    """A random explicit position, then a few random legal actions from it."""
    state = draw(explicit_positions(max_hand=max_hand))
    steps = draw(st.integers(0, 12))
    rng = random.Random(draw(seeds))
    return random_playout(state, rng, steps, _hand_limit(max_hand))


def states(max_hand: int | None = None) -> st.SearchStrategy[GameState]:
    """Seeded games played for a while, or random explicit positions, played on or not."""
    limit = 12 if max_hand is None else max_hand
    return st.one_of(
        seeded_states(max_hand=max_hand),
        explicit_positions(max_hand=limit),
        played_positions(max_hand=limit),
    )
