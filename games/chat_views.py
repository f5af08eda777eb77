"""The table's people panel: the other players, to mute or to report. The quick phrases
themselves travel over the table's websocket (``games.consumers``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from . import services
from .models import PlayerReport, Table
from .selectors import muted_ids, table_get_for_user, table_people

if TYPE_CHECKING:
    from accounts.http import AuthenticatedHttpRequest


def _table_or_404(request: AuthenticatedHttpRequest, table_id: int) -> Table:
    try:
        table, _seat = table_get_for_user(user=request.user, table_id=table_id)
    except Table.DoesNotExist:
        raise Http404("no such table") from None
    return table


def _people(
    request: AuthenticatedHttpRequest, table: Table, *, said: str = "", error: str = ""
) -> HttpResponse:
    """The panel (htmx), else back to the table with the outcome as a message."""
    if request.headers.get("HX-Request") != "true":
        if error:
            messages.error(request, error)
        elif said:
            messages.success(request, said)
        return redirect("games:table", table_id=table.pk)
    context = {
        "table": table,
        "people": table_people(table=table, user_id=request.user.pk),
        "muted": muted_ids(user_id=request.user.pk),
        "reasons": PlayerReport.Reason.choices,
        "said": said,
        "error": error,
    }
    return render(request, "games/table_people.html", context, status=400 if error else 200)


@require_GET
@login_required
def table_people_panel(request: AuthenticatedHttpRequest, table_id: int) -> HttpResponse:
    """The other players at the table, each with Mute and Report."""
    return _people(request, _table_or_404(request, table_id))


@require_POST
@login_required
def player_mute(request: AuthenticatedHttpRequest, table_id: int) -> HttpResponse:
    """Mute (``on=1``) or unmute (``on=0``) the phrases of ``player``."""
    table = _table_or_404(request, table_id)
    player, on = request.POST.get("player", ""), request.POST.get("on")
    if on not in ("0", "1"):
        return _people(request, table, error=_("Say on=1 or on=0."))
    try:
        if on == "1":
            services.player_mute(user=request.user, muted_id=player, table=table)
        else:
            services.player_unmute(user=request.user, muted_id=player)
    except services.ChatRefused as refused:
        return _people(request, table, error=refused.message)
    said = _("Muted: you no longer see their phrases.") if on == "1" else _("Unmuted.")
    return _people(request, table, said=said)


@require_POST
@login_required
def player_report(request: AuthenticatedHttpRequest, table_id: int) -> HttpResponse:
    """Report ``player`` at this table to staff, with a ``reason`` and optional ``text``."""
    table = _table_or_404(request, table_id)
    try:
        services.player_report(
            reporter=request.user,
            reported_id=request.POST.get("player", ""),
            table=table,
            reason=request.POST.get("reason", ""),
            text=request.POST.get("text", ""),
        )
    except services.ChatRefused as refused:
        return _people(request, table, error=refused.message)
    return _people(request, table, said=_("Thank you: staff will look at your report."))
