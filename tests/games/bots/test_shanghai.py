"""The 上海斗地主 bots: registered as the engine's bot and by name, only ever legal (bomb limits
included), bidding by hand strength, going out when they can, leaving a partner's winning play
alone, keeping the last allowed bomb, deterministic; and the arena."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from contextlib import redirect_stdout
from typing import Any

import pytest

from games.bots import (
    Policy,
    ShanghaiGreedyPolicy,
    ShanghaiPolicy,
    ShanghaiRandomPolicy,
    choose_for,
    make_policy,
)
from games.bots.__main__ import main
from games.bots.shanghai import BIG_AT, SMALL_AT, counts_of_hand, hand_cost, hand_strength
from games.bots.shanghai_arena import format_role_report, full_duel, play_game, role_duel
from games.rules.shanghai import (
    BIG,
    ENGINE,
    NO_BID,
    PASS,
    SMALL,
    Action,
    ComboKind,
    GameState,
    Play,
)
from games.rules.shanghai.cards import CARDS, parse_cards
from games.rules.shanghai.simulate import play_phase_start

BOT = ShanghaiPolicy()

# Hands of 25 for the bidding: nothing above a K; three 2s, three jokers and two As; bombs of
# four 9s and four 2s, three jokers and an A.
WEAK = "3s 4h 5d 7c 8s 9h Tc Jd Qs Kh 3d 4c 6h 7d 8c 9s Jh Qd Kc 5s 6d Ts Js Qh 9d"
DECENT = "3s 4h 5d 7c 8s 9h Tc Jd Qs Kh 3d 4c 6h 7d 8c 9s 2h 2d 2c BJ BJ RJ As Ad Ts"
STRONG = "3s 4h 5d 7c 8s 9h 9c 9d 9s Kh 3d 4c 6h 7d 2c 2s 2h 2d BJ RJ RJ Ad Ts Js Qh"


class Spy:
    def __init__(self, inner: Policy[Action]) -> None:
        self.inner = inner
        self.name = inner.name
        self.views: list[dict[str, Any]] = []

    def choose(self, state_view: dict[str, Any], legal: Sequence[Action]) -> Action:
        self.views.append(state_view)
        return self.inner.choose(state_view, legal)


def choose(state: GameState) -> str:
    return str(choose_for(state, BOT))


def bidding(hand: str, seat: int, first_bidder: int) -> GameState:
    """A deal at its first bid, ``seat`` holding ``hand`` and the rest of the cards dealt in
    order to the other seats and the bottom."""
    mine = parse_cards(hand)
    rest = [card for card in CARDS if card not in set(mine)]
    hands: list[Any] = []
    for s in range(4):
        if s == seat:
            hands.append(mine)
        else:
            hands.append(rest[:25])
            rest = rest[25:]
    return GameState.from_position(hands, rest, first_bidder)


def plays_of(state: GameState) -> list[str]:
    return [str(action) for _, action in state.history if isinstance(action, Play)]


# Registration ----------------------------------------------------------------------------------


def test_the_engine_and_make_policy_give_the_shanghai_bots() -> None:
    assert isinstance(ENGINE.bot_policy(), ShanghaiPolicy)
    assert isinstance(make_policy("sensible", game="shanghai"), ShanghaiPolicy)
    assert isinstance(make_policy("greedy", game="shanghai"), ShanghaiGreedyPolicy)
    assert isinstance(make_policy("random", seed=3, game="shanghai"), ShanghaiRandomPolicy)
    for policy in (BOT, ShanghaiGreedyPolicy(), ShanghaiRandomPolicy(1)):
        assert isinstance(policy, Policy)
    with pytest.raises(ValueError, match="no bot is called"):
        make_policy("clever", game="shanghai")


def test_the_bot_is_shown_only_its_seats_view() -> None:
    spies = [Spy(BOT) for _ in range(4)]
    end = play_game(ENGINE.deal(5, players=4, options=ENGINE.default_options), spies)
    assert end.is_terminal
    for seat, spy in enumerate(spies):
        assert spy.views
        for view in spy.views:
            assert view["seat"] == seat and "hands" not in view
            json.dumps(view)  # plain data: nothing that could carry the state along


# Legality --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["random", "greedy", "sensible"])
def test_whole_games_with_bidding_end_with_only_legal_actions(name: str) -> None:
    bids = set()
    for seed in range(12):
        seats = [make_policy(name, seed=seed * 4 + s, game="shanghai") for s in range(4)]
        end = play_game(ENGINE.deal(seed, players=4, options=ENGINE.default_options), seats)
        settlement = ENGINE.settle(end, base=1)
        assert end.is_terminal and sum(settlement.payments) == 0
        bids.add(settlement.bid)
    if name != "greedy":
        assert bids == {"small", "big"}  # the bomb limits of both kinds of bidding were met


def test_the_bot_is_legal_in_bomb_limited_seats_and_keeps_within_them() -> None:
    """Seeded playouts from the first lead, with every kind of allowance: none left, one, two,
    no limit, against every other policy; ``choose_for`` refuses any illegal answer."""
    allowances = [(None, 0, 1, 2), (None, 1, 1, 1), (None, None, 0, 2), (None, 2, 2, None)]
    for seed in range(16):
        start = play_phase_start(100 + seed)
        landlord = start.landlord
        assert landlord is not None
        hands = [start.hand(s) for s in range(4)]
        allowed = allowances[seed % 4]
        limits = allowed[-landlord:] + allowed[:-landlord]  # the landlord's entry is None
        state = GameState.play_position(hands, landlord=landlord, level=2, bombs_left=limits)
        other = make_policy(("random", "greedy", "sensible")[seed % 3], seed=seed, game="shanghai")
        seats: list[Policy[Action]] = [BOT if (s + seed) % 2 else other for s in range(4)]
        end = play_game(state, seats)
        for seat in range(4):
            limit = limits[seat]
            assert limit is None or end.bombs_played[seat] <= limit


def test_random_playouts_from_odd_positions_stay_legal() -> None:
    for seed in range(40):
        state = play_phase_start(500 + seed)
        rng = ShanghaiRandomPolicy(seed)
        steps = 0
        while not state.is_terminal:
            seat = state.to_move
            assert seat is not None
            # Mostly random moves, the bot's now and then: it meets many odd positions.
            policy: Policy[Action] = BOT if steps % 3 == seed % 3 else rng
            state = state.apply(seat, choose_for(state, policy))
            steps += 1


# Bidding ---------------------------------------------------------------------------------------


def test_the_hands_rate_as_the_bids_need() -> None:
    assert hand_strength(counts_of_hand(WEAK.split())) < SMALL_AT
    assert SMALL_AT <= hand_strength(counts_of_hand(DECENT.split())) < BIG_AT
    assert hand_strength(counts_of_hand(STRONG.split())) >= BIG_AT


def test_it_bids_by_the_strength_of_its_hand() -> None:
    assert choose_for(bidding(WEAK, 0, 0), BOT) == NO_BID
    assert choose_for(bidding(DECENT, 0, 0), BOT) == SMALL
    assert choose_for(bidding(STRONG, 0, 0), BOT) == BIG
    # After another seat's 小地主 only 大地主 is left: the decent hand passes, the strong takes it.
    for hand, answer in ((DECENT, NO_BID), (STRONG, BIG), (WEAK, NO_BID)):
        state = bidding(hand, 1, 0)
        state = state.apply(0, SMALL)
        assert choose_for(state, BOT) == answer


# Play ------------------------------------------------------------------------------------------


def test_it_goes_out_at_once_when_it_can() -> None:
    # Leading, the whole hand is a full house (呼路), a straight, sister pairs.
    for hand in ("3s 3h 3d 9s 9h", "5s 6h 7d 8c 9s Th", "As 2s 3h 4d 5c", "4s 4h 5s 5h 6d 6c"):
        state = GameState.play_position([hand, "Ks", "Kh", "Kd"], landlord=0)
        assert choose(state) == str(Play.parse(hand))
    # Following, with its last bomb as a farmer on a small pair: out is out.
    state = GameState.play_position(
        ["3s 3h Qs Qh Jd 9c", "7s 7h 7d 7c", "Ks Kh", "Kd Kc"], landlord=0
    )
    assert choose(state.apply_text(0, "3s 3h")) == "7s.1 7h.1 7d.1 7c.1"
    # A partner's play is overtaken when that empties the hand.
    state = GameState.play_position(["3s 4s 2s Kd Qd", "8s 9s Qh", "Ks", "5d 6d"], landlord=0)
    assert choose(state.apply_text(0, "3s").apply_text(1, "8s")) == "Ks.1"


def test_a_farmer_does_not_beat_its_partners_winning_play() -> None:
    state = GameState.play_position(
        ["3s 4s 2s Kd Qd Jd", "8s 9s Qh", "Ks As 2h 6d", "4d 5d"], landlord=0
    )
    assert choose(state.apply_text(0, "3s").apply_text(1, "Qh")) == "pass"
    state = GameState.play_position(
        ["3s 3h 2s Kd 9d 9c", "8s 8h 9s", "Ks Kh As 2h", "4d 5d"], landlord=0
    )
    assert choose(state.apply_text(0, "3s 3h").apply_text(1, "8s 8h")) == "pass"
    # The third farmer too, when the second passed and the first still holds the trick.
    state = GameState.play_position(
        ["3s 4s 2s Kd Qd Jd", "8s 9s Qh", "6d 7d", "Ks As 2h 6c"], landlord=0
    )
    state = state.apply_text(0, "3s").apply_text(1, "Qh").apply(2, PASS)
    assert choose(state) == "pass"


def test_it_beats_the_landlord() -> None:
    # A farmer answers the landlord's lone card with a lone card of its own.
    state = GameState.play_position(
        ["3s 4h 6d 8c Ts Qh Kd 5s 7h 9d", "9s Jc 4c 4d", "6s", "7s"], landlord=0
    )
    assert choose(state.apply_text(0, "3s")) == "9s.1"


def test_it_keeps_its_last_bomb_for_when_it_matters() -> None:
    hands = ["9s 9h 3s 4h 6d 8c Ts Qh Kd Jh", "5s 5h 5d 5c 3d 4c 6c 7c 8d Jd", "6s", "7s"]
    # The landlord far from out: the last allowed bomb stays; with two left, it stays too.
    for allowance in (1, 2):
        state = GameState.play_position(hands, landlord=0, bombs_left=(None, allowance, 1, 1))
        assert choose(state.apply_text(0, "9s 9h")) == "pass"
    # The landlord with three cards left after its pair: now the last bomb goes.
    hands[0] = "9s 9h 3s 4h Qh"
    state = GameState.play_position(hands, landlord=0, bombs_left=(None, 1, 1, 1))
    assert choose(state.apply_text(0, "9s 9h")) == "5s.1 5h.1 5d.1 5c.1"
    # With five cards left, only a farmer with bombs to spare spends one.
    hands[0] = "9s 9h 3s 4h 6d 8c Qh"
    state = GameState.play_position(hands, landlord=0, bombs_left=(None, 1, 1, 1))
    assert choose(state.apply_text(0, "9s 9h")) == "pass"
    state = GameState.play_position(hands, landlord=0, bombs_left=(None, 2, 1, 1))
    assert choose(state.apply_text(0, "9s 9h")) == "5s.1 5h.1 5d.1 5c.1"


def test_it_leads_its_weakest_combinations_and_keeps_bombs() -> None:
    # A low straight goes whole before the lone high cards; the bomb stays.
    state = GameState.play_position(
        ["3s 4h 5d 6c 7s 9s 9h 9d 9c Kd Qd", "Ks", "As", "Qs"], landlord=0
    )
    assert choose(state) == "3s.1 4h.1 5d.1 6c.1 7s.1"
    # Sister pairs and a full house before a lone K.
    state = GameState.play_position(["5s 5h 6s 6h 7s 7h Kd", "3s", "4s", "8s"], landlord=0)
    assert choose(state) == "5s.1 5h.1 6s.1 6h.1 7s.1 7h.1"
    state = GameState.play_position(["4s 4h 4d Ts Th Ac 2d", "3s", "5s", "8s"], landlord=0)
    play = choose_for(state, BOT)
    assert isinstance(play, Play) and play.combo is not None
    assert play.combo.kind is ComboKind.FULL_HOUSE
    # Leading with a bomb in hand and small cards: a small card, not the bomb.
    state = GameState.play_position(["3s 5h 8s 8h 8d 8c Jd", "4s 6h 7h", "Ks", "Qs"], landlord=0)
    play = choose_for(state, BOT)
    assert isinstance(play, Play) and play.combo is not None and not play.combo.is_bomb


def test_it_feeds_a_partner_about_to_go_out() -> None:
    # Seat 1, a farmer, wins the lead; seat 2, its partner, holds one card: rather than its
    # sister pairs, seat 1 leads the single the partner can go out on.
    state = GameState.play_position(
        ["Ks Kh Kd Qs Qh 4d", "4s 4h 5s 5h 6s 6h Jd Td", "As", "Ts Jh Qd"], landlord=0
    )
    state = state.apply_text(0, "4d").apply_text(1, "Td").apply(2, PASS).apply(3, PASS)
    state = state.apply(0, PASS)
    assert state.to_move == 1 and state.table is None
    assert choose(state) == "Jd.1"
    # With the partner on three cards, the sister pairs go first.
    state = GameState.play_position(
        ["Ks Kh Kd Qs Qh 4d", "4s 4h 5s 5h 6s 6h Jd Td", "As Ac Ad", "Ts Jh Qd"], landlord=0
    )
    state = state.apply_text(0, "4d").apply_text(1, "Td").apply(2, PASS).apply(3, PASS)
    state = state.apply(0, PASS)
    assert choose(state) == "4s.1 4h.1 5s.1 5h.1 6s.1 6h.1"


def cost(text: str) -> float:
    return hand_cost(counts_of_hand(text.split()))


def test_hand_cost_counts_plays() -> None:
    assert cost("3s 4h 5d 6c 7s") == 1
    assert cost("3s 3h 3d 4s 4h 4d 9s 9h Ts Th") == 1  # 飞机大炮
    assert cost("3s 5h 7d 9c Js") == 5
    assert cost("7s 7h 7d 7c") < 0  # a bomb is an asset


# Determinism and the arena ---------------------------------------------------------------------


def test_games_between_bots_replay_identically() -> None:
    for seed in (3, 4):
        start = ENGINE.deal(seed, players=4, options=ENGINE.default_options)
        seats = [[BOT, ShanghaiRandomPolicy(seed), ShanghaiGreedyPolicy(), BOT] for _ in "ab"]
        seats[1][1] = ShanghaiRandomPolicy(seed)
        one, two = (play_game(start, policies) for policies in seats)
        assert one.history == two.history
        # The same view always gives the same choice.
        state = play_phase_start(seed)
        seat = state.to_move
        assert seat is not None
        legal = state.legal_actions(seat)
        assert ShanghaiPolicy().choose(state.view(seat), legal) == BOT.choose(
            state.view(seat), legal
        )


def test_the_arena_plays_each_role_and_repeats_itself() -> None:
    report = role_duel("sensible", "random", deals=3, seed=2)
    assert [row.role for row in report.rows] == ["landlord", "farmers", "baseline"]
    assert all(row.games == 3 and 0 <= row.wins <= 3 for row in report.rows)
    assert report.times  # the bot's moves were timed
    again = role_duel("sensible", "random", deals=3, seed=2)
    assert format_role_report(report, timing=False) == format_role_report(again, timing=False)
    full = full_duel("sensible", "greedy", deals=2, seed=2)
    assert [row.games for row in full.rows] == [8, 8]
    assert abs(full.row("full baseline").points_mean) < 1e-9  # zero-sum over the four seats
    assert "whole games" in format_role_report(full)


def test_the_arena_command() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        main(["arena", "--game", "shanghai", "--games", "6", "--against", "greedy", "--no-timing"])
    text = out.getvalue()
    assert "shanghai-sensible landlord vs 3 greedy" in text
    assert "shanghai-sensible in one seat vs 3 greedy" in text
    assert "time per" not in text


def test_the_sensible_bot_beats_the_plain_players_in_both_roles() -> None:
    for opponent in ("random", "greedy"):
        report = role_duel("sensible", opponent, deals=20, seed=11)
        baseline = report.row("baseline").win_rate
        assert report.row("landlord").win_rate > max(baseline, 0.7)
        assert report.row("farmers").win_rate > max(1 - baseline, 0.6)
