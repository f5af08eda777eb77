import os
import sys

from .doudizhu import cli as doudizhu_cli
from .gandengyan.cli import main

argv = sys.argv[1:]
if argv[:1] == ["simulate"]:
    # ``--game gandengyan`` (or none) is 干瞪眼's simulation, which knows no ``--game``.
    for at, arg in enumerate(argv):
        if arg == "--game=gandengyan":
            argv = argv[:at] + argv[at + 1 :]
            break
        if arg == "--game" and argv[at + 1 : at + 2] == ["gandengyan"]:
            argv = argv[:at] + argv[at + 2 :]
            break
try:
    status = doudizhu_cli.main(argv) if doudizhu_cli.wants(argv) else main(argv)
    sys.stdout.flush()
except BrokenPipeError:  # the reader went away (e.g. piped into head): not an error of ours
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    status = 0
sys.exit(status)
