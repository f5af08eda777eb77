"""Pages of one game for the players who played it: its record, its seed, disputes; and its
replay, for them, for those who watched it and for anyone holding its share link."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from . import selectors, services
from .frames.views import game_player_name
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
    the starting hands and the seed, which stay secret while it is played. For whoever may
    replay it."""
    game = selectors.game_get_for_replay(user=request.user, game_id=game_id)
    if game is None:
        raise Http404
    return _record_file(game)


def game_record_shared(request: HttpRequest, token: str) -> HttpResponse:
    """The record of the game a replay's share link names, for anyone holding the link, when
    it tells no one's coins (see ``record_is_shareable``)."""
    game = selectors.game_get_by_replay_token(token=token)
    if game is None:
        raise Http404
    record = selectors.game_record(game=game)
    if not record_is_shareable(record):
        raise Http404(_("This game's record is for its players and those who watched it."))
    return _record_file(game, record)


def record_is_shareable(record: dict[str, Any]) -> bool:
    """Whether a record may go to anyone holding a share link: not when it holds the seats'
    coins (斗地主's settlement and doubling threshold read them), which are the players' own."""
    return "coins" not in record


def _record_file(game: Game, record: dict[str, Any] | None = None) -> HttpResponse:
    record = selectors.game_record(game=game) if record is None else record
    text = json.dumps(record, ensure_ascii=False, indent=2) + "\n"
    response = HttpResponse(text, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{game.game}-game-{game.pk}.json"'
    return response


@login_required
def game_replay(request: AuthenticatedHttpRequest, game_id: int) -> HttpResponse:
    """The game step by step with every hand face up, once it is over: for its players, staff
    and those who watched it."""
    game = selectors.game_get_for_replay(user=request.user, game_id=game_id)
    if game is None:
        raise Http404
    return _render_replay(request, game, shared=False)


def game_replay_shared(request: HttpRequest, token: str) -> HttpResponse:
    """The replay a share link names, for anyone holding it, signed in or not."""
    game = selectors.game_get_by_replay_token(token=token)
    if game is None:
        raise Http404
    return _render_replay(request, game, shared=True)


def _render_replay(request: HttpRequest, game: Game, *, shared: bool) -> HttpResponse:
    """Every step goes into the page once (a JSON script) for the browser to step through; the
    step asked for (``?step=N``, the deal when absent or out of range) is rendered here too, so
    the page works without scripts. Names are the table's; no one's coins are shown."""
    frames = selectors.game_replay_frames(game=game)
    if not frames:
        raise Http404
    try:
        number = int(request.GET.get("step", "0"))
    except ValueError:
        number = 0
    last = len(frames) - 1
    number = min(max(number, 0), last)
    frame = frames[number]
    players = selectors.game_players(game=game)
    presentation = presentation_for(game.game)
    cards_html = presentation.cards_html
    names = [game_player_name(player, None) for player in players]
    user_id = request.user.pk if request.user.is_authenticated else None
    my_seat = next((p.seat for p in players if user_id and p.user_id == user_id), None)
    # The viewer's seat at the bottom, the others in the order of play from it, as at the table.
    bottom = my_seat if my_seat is not None else 0
    count = len(players)
    order = [(bottom + step) % count for step in range(1, count)] + [bottom]
    seats = [
        {
            "seat": seat,
            "name": names[seat],
            "is_you": seat == my_seat,
            "hand_html": cards_html(frame["hands"][seat]),
            "count": len(frame["hands"][seat].split()),
            "said": frame["said"][seat],
            "role": frame["roles"][seat],
            "to_move": frame["to_move"] == seat,
            "winner": frame["winner"] == seat,
        }
        for seat in order
    ]
    board = frame["board"]
    token = selectors.game_replay_token(game=game)
    share_url = request.build_absolute_uri(reverse("games:replay_shared", args=[token]))
    context = {
        "game": game,
        "room": game.table.room,
        "shared": shared,
        "names": names,
        "seats": seats,
        "frame": frame,
        "board": None
        if board is None
        else {**board, "name": names[board["seat"]], "html": cards_html(board["cards"])},
        "piles": [{**pile, "html": cards_html(pile["cards"])} for pile in frame["piles"]],
        "action_text": _step_text(frame, names),
        "steps": [{"number": f["number"], "text": _step_text(f, names)} for f in frames],
        "number": number,
        "last": last,
        "step_before": number - 1 if number > 0 else None,
        "step_after": number + 1 if number < last else None,
        "frames": frames,
        "all_cards": cards_html(presentation.deck_codes()),
        "share_url": share_url,
        "record_url": _record_url(game, token, shared=shared),
        "stylesheet": presentation.stylesheet,
    }
    return render(request, "games/replay.html", context)


def _record_url(game: Game, token: str, *, shared: bool) -> str | None:
    """Where the page offers the record: the game's own address to those who may replay it,
    the share link's to others, unless the record is not for them (None)."""
    if not shared:
        return reverse("games:game_record", args=[game.pk])
    if not record_is_shareable(selectors.game_record(game=game)):
        return None
    return reverse("games:record_shared", args=[token])


def _step_text(frame: dict[str, Any], names: list[str]) -> str:
    """What a step did, with who did it: "张三 出 3 3 3 4 4"; the deal's own words."""
    if frame["seat"] is None:
        return _("The cards are dealt.")
    return f"{names[frame['seat']]} {frame['text']}"


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
        # The rules it was dealt with, in short words.
        "rules": presentation.rules_phrases(game.rules),
    }
    presentation.game_page(context)
    templates = game_templates(game.game, "games/game_detail.html", folder="games")
    return render(request, templates, context, status=status)
