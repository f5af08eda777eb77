"""Public pages about players: the leaderboards (排行榜) and a player's page."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.selectors import player_get_public

from .engines import engines
from .selectors import Board, leaderboard, player_game_stats, player_recent_games


@require_http_methods(["GET", "HEAD"])
def leaderboard_page(request: HttpRequest) -> HttpResponse:
    """One board of one game: ``?game=<key>&board=coins|winrate``; absent, the site's first
    game and its coins board; a 404 when either names none."""
    game = request.GET.get("game") or next(iter(engines()))
    if game not in engines():
        raise Http404(_("There is no game %(key)s here.") % {"key": game})
    try:
        board = Board(request.GET.get("board") or Board.COINS)
    except ValueError:
        raise Http404(_("There is no such leaderboard.")) from None
    return render(
        request,
        "games/leaderboard.html",
        {
            "board": leaderboard(game=game, board=board, viewer=request.user),
            "games": [(key, str(engine.title)) for key, engine in engines().items()],
            "boards": [(Board.COINS, _("Coins this week")), (Board.WIN_RATE, _("Win rate"))],
        },
    )


@require_http_methods(["GET", "HEAD"])
def player_page(request: HttpRequest, username: str) -> HttpResponse:
    """A player's public page: name, avatar, games and results; never their coins."""
    player = player_get_public(username=username)
    if player is None:
        raise Http404(_("There is no player %(name)s.") % {"name": username})
    return render(
        request,
        "games/player.html",
        {
            "player": player,
            "stats": player_game_stats(user=player),
            "recent": player_recent_games(user=player, viewer=request.user),
        },
    )
