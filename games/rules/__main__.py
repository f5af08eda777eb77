import sys

from .cli import choose_game, run_module
from .doudizhu import cli as doudizhu_cli
from .gandengyan import cli as gandengyan_cli
from .shanghai import cli as shanghai_cli

MAINS = {
    "gandengyan": gandengyan_cli.main,
    "doudizhu": doudizhu_cli.main,
    "shanghai": shanghai_cli.main,
}

game, argv = choose_game(sys.argv[1:], MAINS, default="gandengyan")
run_module(lambda: MAINS[game](argv))
