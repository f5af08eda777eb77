"""Pages of a player's own account: profile, coins, relief."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.selectors import games_watched_by

from .charts import balance_chart
from .models import User
from .selectors import (
    balance_history,
    disputes_of_user,
    games_page,
    ledger_page,
    relief_status,
    wallet_get_for_user,
)
from .services import ReliefRefused, user_set_sounds
from .services import relief_claim as relief_claim_service


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)
    return user


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    """The signed-in player's own page; it shows nobody else's data."""
    user = _user(request)
    now = timezone.now()
    wallet = wallet_get_for_user(user=user)
    context = {
        "wallet": wallet,
        "balance": wallet.balance if wallet is not None else 0,
        "chart": balance_chart(balance_history(user=user), end=now),
        "ledger": ledger_page(user=user, page=request.GET.get("page")),
        "games": games_page(user=user, page=request.GET.get("games_page")),
        "disputes": disputes_of_user(user=user),
        "watched": games_watched_by(user=user),
        "relief": relief_status(wallet=wallet, now=now),
    }
    return render(request, "accounts/profile.html", context)


@login_required
@require_POST
def relief_claim(request: HttpRequest) -> HttpResponse:
    """Claim relief coins (救济金), then back to the profile with a message either way."""
    try:
        entry = relief_claim_service(user=_user(request))
    except ReliefRefused as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(
            request,
            _("You received %(amount)s relief coins. Good luck!") % {"amount": f"{entry.amount:,}"},
        )
    return redirect("accounts:profile")


@login_required
@require_POST
def sounds_set(request: HttpRequest) -> HttpResponse:
    """Turn the table's sounds on (``on=1``) or off (``on=0``): JSON for the table's button,
    else back to ``next`` (the page the form was on)."""
    on = request.POST.get("on")
    if on not in ("0", "1"):
        return HttpResponseBadRequest(_("Say on=1 or on=0."), content_type="text/plain")
    user = _user(request)
    user_set_sounds(user=user, on=on == "1")
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"sounds_on": user.sounds_on})
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "accounts:profile"
    return redirect(target)
