"""Pages of one game for the players who played it: its record, its seed, disputes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from . import selectors, services
from .models import Game
from .presentation import game_templates, presentation_for

if TYPE_CHECKING:
    from accounts.http import AuthenticatedHttpRequest


class DisputeForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("What went wrong?"),
        max_length=services.DISPUTE_REASON_MAX,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=gettext_lazy(
            "Staff will replay the game from its record and answer you here. At most 2,000 "
            "characters."
        ),
    )


@login_required
def game_detail(request: AuthenticatedHttpRequest, game_id: int) -> HttpResponse:
    game = selectors.game_get_for_viewer(user=request.user, game_id=game_id)
    if game is None:
        raise Http404
    return _render_detail(request, game, DisputeForm())


@login_required
def game_record_download(request: AuthenticatedHttpRequest, game_id: int) -> HttpResponse:
    """The game's record in its engine's format, as a file, once the game is over: it holds
    the starting hands and the seed, which stay secret while it is played."""
    game = selectors.game_get_for_viewer(user=request.user, game_id=game_id)
    if game is None or not game.is_over:
        raise Http404
    text = json.dumps(selectors.game_record(game=game), ensure_ascii=False, indent=2) + "\n"
    response = HttpResponse(text, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{game.game}-game-{game.pk}.json"'
    return response


@login_required
@require_POST
def dispute_open(request: AuthenticatedHttpRequest, game_id: int) -> HttpResponse:
    game = selectors.game_get_for_viewer(user=request.user, game_id=game_id)
    if game is None:
        raise Http404
    form = DisputeForm(request.POST)
    if form.is_valid():
        try:
            services.dispute_open(user=request.user, game=game, reason=form.cleaned_data["reason"])
        except services.DisputeRefused as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(
                request, _("Your dispute was sent. Staff will look at the game and answer here.")
            )
            return redirect("games:game", game_id=game.pk)
    return _render_detail(request, game, form, status=400)


def _render_detail(
    request: AuthenticatedHttpRequest, game: Game, form: DisputeForm, *, status: int = 200
) -> HttpResponse:
    players = selectors.game_players(game=game)
    my_seat = next((p.seat for p in players if p.user_id == request.user.pk), None)
    over = game.is_over
    state = selectors.game_state(game=game)
    presentation = presentation_for(game.game)
    seats = []
    for player in players:
        seats.append(
            {
                "seat": player.seat,
                "player": player,
                "name": player.user.get_username() if player.user else _("Bot"),
                "is_bot": player.is_bot,
                "is_you": player.seat == my_seat,
                "is_dealer": presentation.marks_dealer and player.seat == game.dealer,
                "is_winner": player.seat == game.winner,
                "is_to_move": not over and player.seat == presentation.seat_to_move(state),
                # Hands are shown only after the end; until then a player sees only their own.
                "view": state.view(player.seat, history=False) if over else None,
            }
        )
    names = {seat["seat"]: seat["name"] for seat in seats}
    actions = [
        {
            "number": event.number,
            "seat": event.seat,
            "name": names.get(event.seat, ""),
            "action": event.action,
            "text": json.dumps(event.action, ensure_ascii=False),
        }
        for event in selectors.game_actions(game=game)
    ]
    record_json = None
    if over:
        record_json = json.dumps(selectors.game_record(game=game), ensure_ascii=False, indent=2)
    my_disputes = (
        list(selectors.disputes_of_player(game=game, user_id=request.user.pk))
        if my_seat is not None
        else []
    )
    context = {
        "game": game,
        "room": game.table.room,
        "seats": seats,
        "my_seat": my_seat,
        "over": over,
        "view": None if over else state.view(my_seat),
        "public": state.view(None, history=False),
        "actions": actions,
        "seed": game.seed if over else None,
        "record_json": record_json,
        # The form is offered once the game is over; a refused attempt still shows its error.
        "form": form if my_seat is not None and (over or form.errors) else None,
        "my_disputes": my_disputes,
    }
    presentation.game_page(context)
    templates = game_templates(game.game, "games/game_detail.html", folder="games")
    return render(request, templates, context, status=status)
