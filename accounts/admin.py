"""Admin for users, wallets, the ledger and the daily rewards paid.

Balances are never edited here: staff change coins only through the "Adjust coins" action, which
calls ``coins_adjust_by_staff`` and so writes a ledger row naming them. Ledger rows are read-only.
The house wallet is listed with the others; its system user cannot be changed or deleted.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm
from django.contrib.auth.forms import UserChangeForm as DjangoUserChangeForm
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from games.hidden_fields import HiddenFieldsRefused

from .models import LedgerEntry, RewardClaim, User, Wallet
from .names import look_alike_message, name_looks_taken, normalise_name
from .services import (
    BalanceTooLarge,
    InsufficientCoins,
    coins_adjust_by_staff,
    staff_adjustment_too_large,
    wallet_create,
)
from .views import admin_login

# One login for players and staff, with one set of rate limits (ACCOUNT_RATE_LIMITS).
admin.site.login = admin_login  # type: ignore[method-assign]


def _coins(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


class _UsernameCheck:
    """Staff naming or renaming a user meet the same rule as a player signing up: the name in
    NFKC form, and none that looks like another user's username or nickname."""

    instance: User
    cleaned_data: dict[str, Any]

    def clean_username(self) -> str:
        username = normalise_name(self.cleaned_data["username"])
        if username != self.instance.username and name_looks_taken(
            username, user_id=self.instance.pk
        ):
            raise ValidationError(look_alike_message())
        return username


class UserChangeForm(_UsernameCheck, DjangoUserChangeForm):
    pass


class UserCreationForm(_UsernameCheck, AdminUserCreationForm):
    def clean_username(self) -> str:
        # Django's check that no user has this username, ignoring case, then the look-alikes.
        username: str = AdminUserCreationForm.clean_username(self)
        self.cleaned_data["username"] = username
        return _UsernameCheck.clean_username(self)


@admin.register(User)
class UserAdmin(HiddenFieldsRefused, DjangoUserAdmin):
    form = UserChangeForm
    add_form = UserCreationForm
    list_display = (
        "username",
        "nickname",
        "email",
        "balance",
        "is_staff",
        "is_active",
        "date_joined",
    )
    list_select_related = ("wallet",)
    search_fields = ("username", "nickname", "first_name", "last_name", "email")

    @admin.display(description=_("balance"), ordering="wallet__balance")
    def balance(self, obj: User) -> str:
        wallet = getattr(obj, "wallet", None)
        return _coins(wallet.balance if wallet is not None else None)

    # The house's system user stays as its migration made it: inactive, no usable password.
    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if isinstance(obj, User) and obj.is_house:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if isinstance(obj, User) and obj.is_house:
            return False
        return super().has_delete_permission(request, obj)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        """A player added here gets a wallet with the welcome grant, as at signup."""
        super().save_model(request, obj, form, change)
        if not change:
            wallet_create(user=obj)


class AdjustCoinsForm(forms.Form):
    amount = forms.IntegerField(
        label=_("Amount"),
        help_text=_("Coins to add; a negative number takes coins away."),
    )
    reason = forms.CharField(
        label=_("Reason"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Kept in the ledger with your name."),
    )

    def clean_amount(self) -> int:
        amount: int = self.cleaned_data["amount"]
        if amount == 0:
            raise ValidationError(_("The amount must be a whole number other than zero."))
        if abs(amount) > settings.MAX_STAFF_ADJUSTMENT:
            raise ValidationError(staff_adjustment_too_large())
        return amount

    def clean_reason(self) -> str:
        reason: str = self.cleaned_data["reason"].strip()
        if not reason:
            raise ValidationError(_("A reason is required."))
        return reason


@admin.register(Wallet)
class WalletAdmin(HiddenFieldsRefused, admin.ModelAdmin):
    list_display = ("user", "balance_display", "is_house", "updated_at")
    list_filter = ("is_house",)
    list_select_related = ("user",)
    search_fields = ("user__username",)
    ordering = ("user__username",)
    fields = ("user", "balance_display", "is_house", "updated_at", "ledger_link")
    readonly_fields = fields
    actions = ("adjust_coins",)

    @admin.display(description=_("balance"), ordering="balance")
    def balance_display(self, obj: Wallet) -> str:
        return _coins(obj.balance)

    @admin.display(description=_("ledger"))
    def ledger_link(self, obj: Wallet) -> str:
        url = reverse("admin:accounts_ledgerentry_changelist")
        return format_html(
            '<a href="{}?{}">{}</a>',
            url,
            urlencode({"wallet__id__exact": obj.pk}),
            gettext("Ledger entries of this wallet"),
        )

    # Wallets are opened at signup and never deleted; nothing on them is edited by hand.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_adjust_permission(self, request: HttpRequest) -> bool:
        user = request.user
        return bool(user.is_active and user.is_staff and user.has_perm("accounts.change_wallet"))

    @admin.action(description=_("Adjust coins"), permissions=["adjust"])
    def adjust_coins(self, request: HttpRequest, queryset: QuerySet[Wallet]) -> HttpResponse | None:
        """Ask for an amount and a reason, then adjust every selected wallet, all or none."""
        wallets = list(queryset.select_related("user").order_by("user__username"))
        if "apply" in request.POST:
            form = AdjustCoinsForm(request.POST)
            if form.is_valid():
                done = self._adjust(request, wallets, form)
                if done:
                    return None
        else:
            form = AdjustCoinsForm()
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Adjust coins"),
            "opts": self.model._meta,
            "form": form,
            "wallets": wallets,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
            "media": self.media + form.media,
        }
        return TemplateResponse(request, "admin/accounts/wallet/adjust_coins.html", context)

    def _adjust(self, request: HttpRequest, wallets: list[Wallet], form: AdjustCoinsForm) -> bool:
        amount: int = form.cleaned_data["amount"]
        reason: str = form.cleaned_data["reason"]
        staff = request.user
        assert isinstance(staff, User)
        try:
            with transaction.atomic():
                for wallet in wallets:
                    try:
                        coins_adjust_by_staff(
                            wallet=wallet, amount=amount, staff=staff, reason_text=reason
                        )
                    except InsufficientCoins:
                        form.add_error(
                            "amount",
                            gettext(
                                "%(user)s has only %(balance)s coins: a balance cannot go "
                                "below zero. No wallet was changed."
                            )
                            % {"user": wallet.user, "balance": _coins(wallet.balance)},
                        )
                        raise
                    except BalanceTooLarge:
                        form.add_error(
                            "amount",
                            gettext(
                                "%(user)s has %(balance)s coins: a balance cannot go above "
                                "%(limit)s. No wallet was changed."
                            )
                            % {
                                "user": wallet.user,
                                "balance": _coins(wallet.balance),
                                "limit": _coins(settings.MAX_BALANCE),
                            },
                        )
                        raise
        except (InsufficientCoins, BalanceTooLarge):
            return False
        except (PermissionDenied, ValidationError) as error:
            messages.error(request, " ".join(getattr(error, "messages", [str(error)])))
            return False
        self.message_user(
            request,
            ngettext(
                "Adjusted %(count)d wallet by %(amount)s coins.",
                "Adjusted %(count)d wallets by %(amount)s coins each.",
                len(wallets),
            )
            % {"count": len(wallets), "amount": f"{amount:+,}"},
            messages.SUCCESS,
        )
        return True


@admin.register(LedgerEntry)
class LedgerEntryAdmin(HiddenFieldsRefused, admin.ModelAdmin):
    """The ledger, read-only: rows are only ever written by the coin services."""

    list_display = (
        "created_at",
        "user",
        "amount_display",
        "balance_after_display",
        "reason",
        "game",
        "staff",
        "note",
    )
    list_filter = ("reason",)
    search_fields = ("wallet__user__username",)
    date_hierarchy = "created_at"
    list_select_related = ("wallet__user", "game__table__room", "staff")
    fields = (
        "created_at",
        "wallet",
        "amount",
        "balance_after",
        "reason",
        "game",
        "staff",
        "note",
    )
    readonly_fields = fields

    @admin.display(description=_("user"), ordering="wallet__user__username")
    def user(self, obj: LedgerEntry) -> str:
        return str(obj.wallet.user)

    @admin.display(description=_("amount"), ordering="amount")
    def amount_display(self, obj: LedgerEntry) -> str:
        return f"{obj.amount:+,}"

    @admin.display(description=_("balance after"), ordering="balance_after")
    def balance_after_display(self, obj: LedgerEntry) -> str:
        return _coins(obj.balance_after)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(RewardClaim)
class RewardClaimAdmin(HiddenFieldsRefused, admin.ModelAdmin):
    """Daily rewards paid, read-only: only the reward services write them."""

    list_display = ("day", "user", "kind", "streak", "amount_display", "created_at")
    list_filter = ("kind", "day")
    search_fields = ("user__username",)
    date_hierarchy = "day"
    list_select_related = ("user", "ledger_entry")
    fields = ("day", "user", "kind", "streak", "ledger_entry", "created_at")
    readonly_fields = fields

    @admin.display(description=_("amount"), ordering="ledger_entry__amount")
    def amount_display(self, obj: RewardClaim) -> str:
        return f"{obj.ledger_entry.amount:+,}"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
