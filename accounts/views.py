"""Pages of a player's own account: profile, coins, relief, daily rewards; and the admin's
way in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from games.selectors import games_watched_by

from .charts import balance_chart
from .forms import IdentityForm
from .models import DEFAULT_AVATAR, Avatar, User
from .rewards import RewardRefused, check_in_claim, daily_task_claim
from .selectors import (
    balance_history,
    disputes_of_user,
    games_page,
    ledger_page,
    relief_status,
    rewards_status,
    wallet_get_for_user,
)
from .services import ReliefRefused, user_set_identity, user_set_phrases, user_set_sounds
from .services import relief_claim as relief_claim_service


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)
    return user


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    """The signed-in player's own page; it shows nobody else's data."""
    user = _user(request)
    form = IdentityForm(initial={"nickname": user.nickname, "avatar": user.avatar})
    return _render_profile(request, identity_form=form)


def _render_profile(
    request: HttpRequest, *, identity_form: IdentityForm, status: int = 200
) -> HttpResponse:
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
        "identity_form": identity_form,
        # The avatars to pick from, the default first: (value, label, static path).
        "avatars": [
            (value, label, f"avatars/{value or DEFAULT_AVATAR}.svg")
            for value, label in [("", _("Default")), *Avatar.choices]
        ],
        "rewards": None if user.is_house else rewards_status(user=user, now=now),
    }
    return render(request, "accounts/profile.html", context, status=status)


@login_required
@require_POST
def identity_set(request: HttpRequest) -> HttpResponse:
    """Set the nickname and avatar; on an error the profile again, the errors shown."""
    user = _user(request)
    form = IdentityForm(request.POST)
    if form.is_valid():
        try:
            user_set_identity(
                user=user,
                nickname=form.cleaned_data["nickname"],
                avatar=form.cleaned_data["avatar"],
            )
        except ValidationError as error:
            for field, field_errors in error.message_dict.items():
                form.add_error(field, field_errors)
        else:
            messages.success(request, _("Your nickname and avatar are saved."))
            return redirect(reverse("accounts:profile") + "#identity")
    return _render_profile(request, identity_form=form, status=400)


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
    """Turn the table's sounds on (``on=1``) or off (``on=0``)."""
    return _switch_set(request, "sounds_on", user_set_sounds)


@login_required
@require_POST
def phrases_set(request: HttpRequest) -> HttpResponse:
    """Show (``on=1``) or hide (``on=0``) the other players' phrases at the table."""
    return _switch_set(request, "phrases_on", user_set_phrases)


def _switch_set(request: HttpRequest, field: str, setter: Callable[..., None]) -> HttpResponse:
    """One of the player's switches at the table set from ``on``: JSON (``{field: on}``) for the
    table's button, else back to ``next`` (the page the form was on)."""
    on = request.POST.get("on")
    if on not in ("0", "1"):
        return HttpResponseBadRequest(_("Say on=1 or on=0."), content_type="text/plain")
    setter(user=_user(request), on=on == "1")
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({field: on == "1"})
    return _back(request)


def _safe_next(request: HttpRequest) -> str | None:
    """``next`` (the page the form was on) when it is of this site, else None."""
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return None
    return target


def _back(request: HttpRequest) -> HttpResponse:
    """Back to ``next`` when it is of this site, else the profile."""
    return redirect(_safe_next(request) or "accounts:profile")


def _reward_answer(request: HttpRequest, *, ok: bool, text: str) -> HttpResponse:
    """What a reward's button gets: back to ``next`` with a message; for htmx, the rewards card
    again with the message in it and the page's balance updated."""
    if not getattr(request, "htmx", False):
        (messages.success if ok else messages.error)(request, text)
        return _back(request)
    user = _user(request)
    wallet = wallet_get_for_user(user=user)
    context = {
        "rewards": rewards_status(user=user),
        "compact": request.POST.get("compact") == "1",
        "back": (_safe_next(request) or reverse("accounts:profile")).split("#", 1)[0],
        "notice": {"ok": ok, "text": text},
        "balance": wallet.balance if wallet is not None else 0,
    }
    return render(request, "accounts/_rewards.html", context)


@login_required
@require_POST
def check_in(request: HttpRequest) -> HttpResponse:
    """Check in for today (每日签到), then back to ``next`` with a message either way."""
    try:
        claim = check_in_claim(user=_user(request))
    except RewardRefused as refusal:
        return _reward_answer(request, ok=False, text=str(refusal))
    return _reward_answer(
        request,
        ok=True,
        text=_("Checked in: day %(streak)d in a row, %(amount)s coins.")
        % {"streak": claim.streak, "amount": f"{claim.ledger_entry.amount:,}"},
    )


@login_required
@require_POST
def task_claim(request: HttpRequest, kind: str) -> HttpResponse:
    """Claim the coins of a daily task done today, then back to ``next`` with a message."""
    try:
        claim = daily_task_claim(user=_user(request), kind=kind)
    except RewardRefused as refusal:
        return _reward_answer(request, ok=False, text=str(refusal))
    return _reward_answer(
        request,
        ok=True,
        text=_("Task done: %(task)s, %(amount)s coins.")
        % {"task": claim.get_kind_display(), "amount": f"{claim.ledger_entry.amount:,}"},
    )


@never_cache
def admin_login(request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
    """The admin's login page, replacing Django's (``admin.site.login``): staff sign in on the
    site's one login form, with its rate limits, and land where they were going in the admin.
    Django's own form counted no failures, so it allowed any number of guesses."""
    admin_index = reverse("admin:index")
    wanted = request.GET.get("next", "")
    if not url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        wanted = admin_index
    user = request.user
    if user.is_authenticated:
        if user.is_active and user.is_staff:
            return redirect(wanted)
        # The login page would send a signed-in user straight back here.
        messages.error(
            request, _("You are signed in as %(user)s, who may not use the admin.") % {"user": user}
        )
        return redirect("/")
    return redirect(f"{reverse('account_login')}?{urlencode({'next': wanted})}")
