"""``legal_moves()`` is a read-only sequence that makes each play when read: it must behave as
the list of the same moves would."""

from __future__ import annotations

import random

from games.rules.doudizhu import PASS, Play
from games.rules.doudizhu.movegen import Moves, decode, encode, lead_plays
from games.rules.doudizhu.simulate import play_phase_start
from tests.games.rules.doudizhu.helpers import follow_position, lead_position


def test_reads_like_the_list_of_its_moves() -> None:
    for state in (
        lead_position("3s 3h 3d 4s 4h 4d 5c 9s"),
        follow_position("5s 5h 9s 9h 2s 2h BJ RJ", "8s 8h"),
    ):
        moves = state.legal_moves()
        listed = list(moves)
        assert isinstance(moves, Moves)
        assert moves == listed and listed == moves and moves == tuple(listed)
        assert len(moves) == len(listed) and bool(moves)
        assert [moves[i] for i in range(-len(listed), len(listed))] == listed + listed
        assert moves[1:3] == listed[1:3] and moves[::-1] == listed[::-1]
        assert all(move in moves for move in listed)
        assert moves.index(listed[-1]) == len(listed) - 1 and moves.count(listed[0]) == 1
        assert [PASS] + moves == [PASS, *listed] and moves + [] == listed
        assert repr(moves) == f"Moves({listed!r})"
    following = follow_position("5s 5h 9s 9h 2s 2h BJ RJ", "8s 8h").legal_moves()
    assert following[0] is PASS and PASS in following
    assert Play.parse("5s 5h") not in following and Play.parse("9h 9s") in following


def test_empty_outside_the_play() -> None:
    state = play_phase_start(1)
    moves = state.apply(0, state.legal_moves()[0]).legal_moves()
    assert moves  # the next seat answers
    assert not lead_position("3s").apply(0, Play.parse("3s")).legal_moves()
    assert lead_position("3s").apply(0, Play.parse("3s")).legal_moves() == []


def test_codes_round_trip() -> None:
    rng = random.Random(3)
    for seed in range(20):
        state = play_phase_start(seed)
        for play in lead_plays(state.hands[0]):
            code = encode(play)
            assert code is not None and decode(code) == play
        assert encode(Play.parse("3s 5h")) is None
        moves = state.legal_moves()
        pick = moves[rng.randrange(len(moves))]
        assert pick in moves and state.apply(0, pick).log_length == 1
