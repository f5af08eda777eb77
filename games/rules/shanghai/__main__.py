from ..cli import run_module
from .cli import main

run_module(lambda: main(prog="python -m games.rules.shanghai"))
