"""Bots think in processes of their own (``games.thinking``): the choice made there is the one
made here, the Hint button's choice is prepared without blocking the event loop, and with no
thinking processes the caller's thread chooses."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings

from games import thinking
from games.bots import SearchPolicy, choose_for
from games.presentation import presentation_for
from games.rules import IllegalMoveError
from games.rules.doudizhu import ENGINE as DOUDIZHU
from games.rules.gandengyan import ENGINE as GANDENGYAN
from games.rules.gandengyan import GameState
from games.rules.shanghai import ENGINE as SHANGHAI


class WhereChosen:
    """A policy that answers with its first legal action and notes which process chose."""

    name = "where"

    def choose(self, state_view: dict[str, Any], legal: Sequence[Any]) -> Any:
        return (os.getpid(), legal[0])


@pytest.fixture
def one_thinking_process() -> Iterator[None]:
    with override_settings(THINKING_PROCESSES=1):
        yield
    thinking.shutdown()


def positions(engine: Any, games: int, seed: int) -> Iterator[Any]:
    """Positions of seeded random games of ``engine``, every fourth action."""
    rng = random.Random(seed)
    for number in range(games):
        options = engine.default_options
        state = engine.deal(
            seed * 1000 + number, players=engine.seat_count(options), options=options
        )
        count = 0
        while not state.is_terminal and count < 200:
            seat = state.to_move
            if count % 4 == 0:
                yield state
            state = state.apply(seat, rng.choice(list(state.legal_actions(seat))))
            count += 1


@pytest.mark.parametrize("engine", [GANDENGYAN, DOUDIZHU, SHANGHAI], ids=lambda e: e.key)
def test_a_thinking_process_chooses_as_the_caller_would(
    engine: Any, one_thinking_process: None
) -> None:
    checked = 0
    for state in positions(engine, games=3, seed=5):
        assert thinking.choose(engine, state) == choose_for(state, engine.bot_policy())
        checked += 1
    assert checked > 20


def test_the_choice_is_made_in_another_process(one_thinking_process: None) -> None:
    state = GameState.from_position(["3s 4h 5d 9c", "6s 7s 8d", "Qs Kd"], stock="", dealer=0)
    # The policy's answer names the process that made it, and is refused for it: the refusal
    # tells which process chose.
    with pytest.raises(IllegalMoveError, match="not a legal move") as refused:
        thinking.choose(GANDENGYAN, state, WhereChosen())
    chosen_by = int(re.search(r"chose \((\d+),", str(refused.value)).group(1))  # type: ignore[union-attr]
    assert chosen_by != os.getpid()


def test_a_search_policy_is_sent_with_its_seed(one_thinking_process: None) -> None:
    state = GameState.from_position(
        ["3s 4h 5d 9c Jd", "6s 7s 8d Kh", "Qs Kd 4c"], stock="", dealer=0
    )
    here = choose_for(state, SearchPolicy(9, budget_ms=None))
    assert thinking.choose(GANDENGYAN, state, SearchPolicy(9, budget_ms=None)) == here


def test_a_hint_prepared_on_the_loop_is_not_chosen_again(
    one_thinking_process: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = GameState.from_position(["3s 4h 5d 9c", "6s 7s 8d", "Qs Kd"], stock="", dealer=0)
    state = state.apply(0, state.legal_moves()[0])
    expected = choose_for(state, GANDENGYAN.bot_policy())

    async def prepare() -> None:
        await thinking.prepare_hint(GANDENGYAN, state)

    asyncio.run(prepare())

    def chosen_here(*args: Any) -> Any:
        raise AssertionError("the hint was chosen again")

    monkeypatch.setattr(thinking, "_choose_here", chosen_here)
    assert thinking.hint_choice(GANDENGYAN, state) == expected


@pytest.mark.parametrize("engine", [GANDENGYAN, DOUDIZHU, SHANGHAI], ids=lambda e: e.key)
@override_settings(THINKING_PROCESSES=0)
def test_the_hint_is_prepared_exactly_where_the_frames_offer_it(engine: Any) -> None:
    # The move path asks for the bot's choice only where the Hint button's list starts with it:
    # elsewhere (bids, 加倍, a hand that cannot beat the table) the hints never consult it.
    presentation = presentation_for(engine.key)
    wanted = unwanted = 0
    for seed in range(6):
        rng = random.Random(seed)
        options = engine.default_options
        state = engine.deal(seed, players=engine.seat_count(options), options=options)
        while not state.is_terminal:
            seat = state.to_move
            thinking._hints.clear()
            presentation.hints(state, seat)
            consulted = any(kept[1] is state for kept in thinking._hints.values())
            assert presentation.wants_bot_choice(state) == consulted
            wanted += consulted
            unwanted += not consulted
            state = state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert wanted > 10 and unwanted > 10


def test_without_thinking_processes_the_caller_chooses() -> None:
    state = GameState.from_position(["3s 4h 5d 9c", "6s 7s 8d", "Qs Kd"], stock="", dealer=0)
    with override_settings(THINKING_PROCESSES=0):
        assert thinking._thinking_pool() is None
        assert thinking.choose(GANDENGYAN, state) == choose_for(state, GANDENGYAN.bot_policy())

        async def prepare() -> None:
            await thinking.prepare_hint(GANDENGYAN, state)  # nothing to prepare it in

        asyncio.run(prepare())
        assert thinking.hint_choice(GANDENGYAN, state) == choose_for(state, GANDENGYAN.bot_policy())


def test_a_killed_thinking_process_costs_no_choice(one_thinking_process: None) -> None:
    state = GameState.from_position(["3s 4h 5d 9c", "6s 7s 8d", "Qs Kd"], stock="", dealer=0)
    expected = choose_for(state, GANDENGYAN.bot_policy())
    assert thinking.choose(GANDENGYAN, state) == expected
    pool = thinking._thinking_pool()
    assert pool is not None
    for pid in list(pool._processes):  # type: ignore[attr-defined]
        os.kill(pid, signal.SIGKILL)
    assert thinking.choose(GANDENGYAN, state) == expected  # made by the caller this time
    assert thinking.choose(GANDENGYAN, state) == expected  # and by new processes after
    assert thinking._thinking_pool() is not pool


def test_the_loops_thinking_process_is_replaced_when_it_dies(
    one_thinking_process: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = GameState.from_position(["4s 5h 6d Tc", "7s 8s 9d", "Js Ad"], stock="", dealer=0)
    first = start.apply(0, start.legal_moves()[0])
    second = first.apply(1, first.legal_moves()[-1])
    pids = []

    async def run() -> None:
        await thinking.prepare_hint(GANDENGYAN, first)
        thinker = thinking._loop_thinkers[asyncio.get_running_loop()]
        assert thinker.process is not None
        pids.append(thinker.process.pid)
        thinker.process.kill()
        await thinker.process.wait()
        await thinking.prepare_hint(GANDENGYAN, second)  # in a new process
        assert thinker.process is not None
        pids.append(thinker.process.pid)
        thinker.process.stdin.close()  # type: ignore[union-attr]
        await thinker.process.wait()

    asyncio.run(run())
    assert len(set(pids)) == 2 and os.getpid() not in pids

    def chosen_here(*args: Any) -> Any:
        raise AssertionError("the hint was chosen again")

    monkeypatch.setattr(thinking, "_choose_here", chosen_here)
    for state in (first, second):
        assert thinking.hint_choice(GANDENGYAN, state) == choose_for(state, GANDENGYAN.bot_policy())


PARENT = """
import os, sys, time
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gandengyan.settings")
import django
django.setup()
from games import thinking
from games.rules.gandengyan import ENGINE, GameState
state = GameState.from_position(["3s 4h", "6s 7s", "Qs Kd"], stock="", dealer=0)
thinking.choose(ENGINE, state)
print(" ".join(str(pid) for pid in thinking._thinking_pool()._processes), flush=True)
time.sleep(60)
"""


def test_a_thinking_process_ends_when_its_worker_is_killed() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT],
        cwd=settings.BASE_DIR,
        env={**os.environ, "THINKING_PROCESSES": "1"},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        children = [int(pid) for pid in parent.stdout.readline().split()]
        assert children and all(_alive(pid) for pid in children)
    finally:
        parent.kill()  # no chance to stop its pool
        parent.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in children)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
