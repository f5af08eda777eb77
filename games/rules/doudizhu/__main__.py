import os
import sys

from .cli import main

try:
    status = main(prog="python -m games.rules.doudizhu")
    sys.stdout.flush()
except BrokenPipeError:  # the reader went away (e.g. piped into head): not an error of ours
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    status = 0
sys.exit(status)
