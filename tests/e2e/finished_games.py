"""Games played to the end outside the browser, for the pages that show a finished game."""

from __future__ import annotations

import random

from accounts.models import User
from accounts.services import wallet_create
from games import selectors, services
from games.models import Game, Room, Table
from tests.e2e import browser
from tests.games.helpers import play_doudizhu, play_shanghai


def finished_game(player: User, *, seed: int) -> Game:
    """A game of 新手场 that ``player`` played to the end against two other people, with moves
    drawn from ``seed``.

    The opponents are people, not bots: the live server's table runner plays every bot seat it
    finds, and would race this loop for the bots' turns. The game is played off Playwright's
    event loop, so the services can broadcast after each commit as they would in a request.
    """
    return browser.off_the_loop(_play_to_the_end, player, seed=seed)


def _play_to_the_end(player: User, *, seed: int) -> Game:
    opponents = []
    for name in ("opponent-a", "opponent-b"):
        user = User.objects.create_user(username=f"{name}-{seed}")
        wallet_create(user=user)
        opponents.append(user)
    table = Table.objects.create(room=Room.objects.get(code="novice"))
    game = services.game_start(table=table, players=[player, *opponents], seed=seed)
    rng = random.Random(seed)
    state = selectors.game_state(game=game)
    while not state.is_terminal:
        move = rng.choice(state.legal_moves())
        services.game_act(game=game, seat=state.to_move, action=dict(move.to_json()))
        state = state.apply(state.to_move, move)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.settled_at is not None
    return game


def finished_doudizhu_game(player: User, *, seed: int) -> Game:
    """A game of 斗地主's 新手场 that ``player`` played to the end against two other people,
    through every stage: a deal thrown in after three 不叫, 明牌, 抢地主, 加倍, the play
    (``tests.games.helpers.play_doudizhu``). The class that uses it gives the deal's clock
    (``DEAL_STAGE_SECONDS``) time enough that the live server's runner never deals meanwhile."""
    return browser.off_the_loop(_play_doudizhu_to_the_end, player, seed=seed)


def _play_doudizhu_to_the_end(player: User, *, seed: int) -> Game:
    opponents = []
    for name in ("dizhu-a", "dizhu-b"):
        user = User.objects.create_user(username=f"{name}-{seed}")
        wallet_create(user=user)
        opponents.append(user)
    table = Table.objects.create(room=Room.objects.get(code="ddz-novice"))
    game = services.game_start(table=table, players=[player, *opponents], seed=seed)
    play_doudizhu(game)
    assert game.status == Game.Status.FINISHED and game.settled_at is not None
    return game


def finished_shanghai_game(player: User, *, seed: int) -> Game:
    """A game of 上海斗地主's 新手场 that ``player`` played to the end against three other people:
    a deal thrown in after four 不叫, 小地主 topped by 大地主, the play
    (``tests.games.helpers.play_shanghai``)."""
    return browser.off_the_loop(_play_shanghai_to_the_end, player, seed=seed)


def _play_shanghai_to_the_end(player: User, *, seed: int) -> Game:
    opponents = []
    for name in ("shang-a", "shang-b", "shang-c"):
        user = User.objects.create_user(username=f"{name}-{seed}")
        wallet_create(user=user)
        opponents.append(user)
    table = Table.objects.create(room=Room.objects.get(code="sh-novice"))
    game = services.game_start(table=table, players=[player, *opponents], seed=seed)
    play_shanghai(game)
    assert game.status == Game.Status.FINISHED and game.settled_at is not None
    return game
