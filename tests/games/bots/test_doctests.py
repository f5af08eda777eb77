"""The examples in the bots' docstrings hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "games.bots.policy",
    "games.bots.simple",
    "games.bots.sensible",
    "games.bots.search",
    "games.bots.determinized",
    "games.bots.doudizhu_search",
    "games.bots.shanghai_search",
    "games.bots.arena",
    "games.bots.shanghai",
    "games.bots.shanghai_simple",
    "games.bots.shanghai_arena",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
