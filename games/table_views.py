"""Pages of a table: Play in a room, private tables and their invitations, the table itself
(live over ``games.consumers.TableConsumer``) and leaving it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import services
from .forms import TableRulesForm
from .frames import frame_context, render_frame, room_entry_refusal
from .models import BotLevel, Room, Table
from .phrases import EMOTES, PHRASES
from .presentation import presentation_for
from .selectors import table_current_game, table_get_for_user
from .views import player_balance, room_page, rules_phrases

if TYPE_CHECKING:
    from accounts.http import AuthenticatedHttpRequest


def _room_or_404(code: str) -> Room:
    return get_object_or_404(Room, code=code)


@require_POST
def room_play(request: HttpRequest, code: str) -> HttpResponse:
    """The "Play" button of a room: a seat at a table there, then the table."""
    room = _room_or_404(code)
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("games:room", args=[room.code]))
    balance = player_balance(request) or 0
    refusal = room_entry_refusal(room=room, balance=balance)
    if refusal is not None:
        messages.error(request, refusal)
        return redirect("games:room", code=room.code)
    try:
        table, _seat = services.table_play(user=request.user, room=room)
    except services.TableRefused as refused:
        messages.error(request, refused.message)
        return redirect("games:room", code=room.code)
    return redirect("games:table", table_id=table.pk)


@require_POST
@login_required
def room_private_table(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    """Open a private table in a room, to invite friends to by link, with the house rules
    and the bots' level chosen on the room page (``TableRulesForm``; without them, the room's):
    the room page again with the form's errors when its game cannot play them."""
    room = _room_or_404(code)
    rules = bot_level = None
    if TableRulesForm.CHOSEN in request.POST:
        form = TableRulesForm(request.POST, room=room)
        if not form.is_valid():
            return room_page(request, room.code, private_form=form)
        rules, bot_level = form.cleaned_data["rules"], form.cleaned_data["bot_level"] or None
    try:
        table = services.table_create_private(
            user=request.user, room=room, rules=rules, bot_level=bot_level
        )
    except services.TableRefused as refused:
        messages.error(request, refused.message)
        return redirect("games:room", code=room.code)
    return redirect("games:table", table_id=table.pk)


@require_GET
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """The table, live: the player's seat, or a spectator's view of a public table."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    try:
        table, seat = table_get_for_user(user=request.user, table_id=table_id)
    except Table.DoesNotExist:
        raise Http404("no such table") from None
    context = frame_context(table=table, seat=seat)
    if seat is None:
        game = table_current_game(table=table)
        if game is not None:
            services.game_watch_record(user=request.user, game=game)
    context["frame"] = render_frame(context)
    context["ws_url"] = f"/ws/tables/{table.pk}/"
    context["stylesheet"] = presentation_for(table.room.game).stylesheet
    context["phrases"], context["emotes"] = PHRASES, EMOTES
    return render(request, "games/table.html", context)


@require_http_methods(["GET", "HEAD", "POST"])
def table_join(request: HttpRequest, code: str) -> HttpResponse:
    """An invitation link: GET shows whose table it is, POST takes a seat at it."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    table = Table.objects.select_related("room", "created_by").filter(invite_code=code).first()
    if table is None or table.status == Table.Status.CLOSED:
        return render(request, "games/table_join.html", {"table": None}, status=404)
    if request.method == "POST":
        try:
            services.table_join_by_invite(user=request.user, code=code)
        except services.TableRefused as refused:
            messages.error(request, refused.message)
            return redirect("games:table_join", code=code)
        return redirect("games:table", table_id=table.pk)
    seated = table.seats.filter(user_id=request.user.pk).exists()
    if seated:
        return redirect("games:table", table_id=table.pk)
    free = table.seats.filter(user__isnull=True, is_bot=False).count()
    rules = rules_phrases(table.room.game, table.play_rules)
    bots = BotLevel(table.play_bot_level).label
    return render(
        request,
        "games/table_join.html",
        {"table": table, "free": free, "rules": rules, "bots": bots},
    )


@require_POST
@login_required
def table_leave(request: AuthenticatedHttpRequest, table_id: int) -> HttpResponse:
    """Leave the table: at once between games (to the lobby), or when the game ends."""
    table = get_object_or_404(Table, pk=table_id)
    try:
        left = services.table_leave(user=request.user, table=table)
    except services.TableRefused as refused:
        messages.error(request, refused.message)
        return redirect("games:table", table_id=table.pk)
    if left == services.Leave.AFTER_GAME:
        messages.info(request, _("You will leave the table when this game ends."))
        return redirect("games:table", table_id=table.pk)
    return redirect("games:home")
