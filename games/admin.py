"""Admin of rooms, tables, games and disputes.

Rooms and tables are edited here. Games are read-only: what happened is what the engine replays,
on the "Replay" page. Disputes are a queue that staff close through a form page that calls the
dispute services; no field of a dispute is edited by hand.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.rules import RulesError

from . import selectors, services
from .engines import engine_for
from .forms import rules_with_fields
from .hidden_fields import HiddenFieldsRefused
from .models import (
    Dispute,
    Game,
    GameEvent,
    GamePlayer,
    GameWatch,
    PlayerReport,
    Room,
    Seat,
    Table,
    TableMessage,
)
from .presentation import game_templates, presentation_for

if TYPE_CHECKING:
    from accounts.http import AuthenticatedHttpRequest

HIDDEN_WHILE_PLAYING = _("Hidden until the game is over.")


# Rooms and tables --------------------------------------------------------------------------------


class RoomAdminForm(forms.ModelForm):
    """A room, its rules checked by its game's engine. The options that the game's presentation
    gives a field of their own (``room_rules_fields``) are set there, the rest in the rules'
    JSON, which a game whose fields cover every option (``rules_fields_cover_all``) does
    without; ``RoomAdmin`` adds those fields to the form of a room of that game."""

    #: The names of the rules options with a field of their own on this form.
    option_fields: tuple[str, ...] = ()
    #: Whether the form has no JSON of the rules: the option fields make all of them.
    rules_by_fields_only = False

    class Meta:
        model = Room
        fields = [
            "code",
            "name_zh",
            "name_en",
            "base",
            "min_coins",
            "max_coins",
            "rules",
            "turn_seconds",
            "bot_level",
            "bot_budget_ms",
            "is_open",
            "position",
        ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        rules = self.instance.rules if isinstance(self.instance.rules, dict) else {}
        if self.option_fields:
            initial = presentation_for(self.instance.game).rules_initial(rules)
            for name in self.option_fields:
                self.initial.setdefault(name, initial.get(name))
            self.initial["rules"] = {
                name: value for name, value in rules.items() if name not in self.option_fields
            }

    def clean_rules(self) -> dict[str, Any]:
        """The rules' JSON: an object, without the options that have a field of their own."""
        value = self.cleaned_data.get("rules")
        if value in (None, ""):
            return {}
        if not isinstance(value, dict):
            raise ValidationError(
                _("The rules are a JSON object of option names and values, like {}."),
                code="invalid",
            )
        own = [name for name in value if name in self.option_fields]
        if own:
            raise ValidationError(
                _("Set %(names)s with its own field on this page, not in the rules."),
                code="own_field",
                params={"names": ", ".join(own)},
            )
        return value

    def clean(self) -> dict[str, Any]:
        """The options of their own fields join the rules' JSON, and the room's game must be
        able to play them: kept as the options that differ from its standard game."""
        cleaned: dict[str, Any] = super().clean() or {}
        rules = {} if self.rules_by_fields_only else cleaned.get("rules")
        if rules is None or any(name in self.errors for name in self.option_fields):
            return cleaned
        rules = rules_with_fields(rules, cleaned, self.option_fields)
        try:
            engine = engine_for(self.instance.game)
        except LookupError:
            return cleaned  # the room's checks say that its game is not installed
        try:
            options = engine.options_from_json(rules)
        except RulesError as exc:
            error = ValidationError(
                _("These rules cannot be played: %(error)s"),
                code="invalid",
                params={"error": str(exc)},
            )
            self.add_error(None if self.rules_by_fields_only else "rules", error)
            return cleaned
        cleaned["rules"] = engine.options_to_json(options)
        if self.rules_by_fields_only:
            # Not a field of this form: the model form would not set it.
            self.instance.rules = cleaned["rules"]
        return cleaned


@admin.register(Room)
class RoomAdmin(HiddenFieldsRefused, admin.ModelAdmin):
    form = RoomAdminForm
    list_display = (
        "name_zh",
        "name_en",
        "game",
        "code",
        "base",
        "min_coins",
        "max_coins",
        "turn_seconds",
        "bot_level",
        "is_open",
        "position",
    )
    list_filter = ("game", "bot_level", "is_open")
    search_fields = ("code", "name_zh", "name_en")
    ordering = ("position", "base")

    def get_readonly_fields(self, request: HttpRequest, obj: Room | None = None) -> tuple[str, ...]:
        # The code is in the room's address; it is chosen once.
        return ("code",) if obj is not None else ()

    def get_form(
        self, request: HttpRequest, obj: Room | None = None, change: bool = False, **kwargs: Any
    ) -> type[forms.ModelForm]:
        """The room's form, with a field for each rules option its game's presentation gives
        one (``room_rules_fields``)."""
        own, only = _room_rules_fields(obj)
        if own:
            attrs: dict[str, Any] = {
                **own,
                "option_fields": tuple(own),
                "rules_by_fields_only": only,
            }
            kwargs["form"] = type(self.form.__name__, (self.form,), attrs)
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Room | None = None) -> list[Any]:
        """The fields in their order, the rules options of their own just after the rules (in
        their place, when they make all of them)."""
        own, only = _room_rules_fields(obj)
        names = list(own)
        fields = [name for name in super().get_fields(request, obj) if name not in names]
        at = fields.index("rules") + 1 if "rules" in fields else len(fields)
        fields = fields[:at] + names + fields[at:]
        return [name for name in fields if name != "rules"] if only else fields


def _room_rules_fields(room: Room | None) -> tuple[dict[str, forms.Field], bool]:
    """The rules options of the room's game (a new room's: the default game) with a field of
    their own, and whether they are all of its options; none for a game that is not
    installed."""
    game = room.game if room is not None else Room._meta.get_field("game").get_default()
    try:
        engine_for(game)
    except LookupError:
        return {}, False
    presentation = presentation_for(game)
    own = presentation.room_rules_fields()
    return own, bool(own) and presentation.rules_fields_cover_all


class SeatInline(HiddenFieldsRefused, admin.TabularInline):
    """Seats are taken and left through the table services, never by hand."""

    model = Seat
    fields = ("position", "user", "is_bot", "ready")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(HiddenFieldsRefused, admin.ModelAdmin):
    """Tables to look at: seating, games and their state change only through the services."""

    list_display = ("id", "room", "status", "is_private", "created_by", "created_at")
    list_filter = ("status", "room", "is_private")
    list_select_related = ("room", "created_by")
    search_fields = ("=id", "seats__user__username")
    readonly_fields = (
        "room",
        "status",
        "is_private",
        "rules",
        "invite_code",
        "created_by",
        "created_at",
        "waiting_since",
        "version",
    )
    inlines = [SeatInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


# Games -------------------------------------------------------------------------------------------


class _ReadOnlyInline(HiddenFieldsRefused, admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class GamePlayerInline(_ReadOnlyInline):
    model = GamePlayer
    fields = ("seat", "user", "is_bot", "cards_left", "spring", "nominal", "coins")
    readonly_fields = fields


class GameEventInline(_ReadOnlyInline):
    model = GameEvent
    fields = ("number", "seat", "action", "created_at")
    readonly_fields = fields


class GameWatchInline(_ReadOnlyInline):
    """Who watched the game from outside its seats: they may replay it."""

    model = GameWatch
    fields = ("user", "created_at")
    readonly_fields = fields


@admin.register(Game)
class GameAdmin(HiddenFieldsRefused, admin.ModelAdmin):
    list_display = (
        "id",
        "table",
        "number",
        "status",
        "winner",
        "base",
        "started_at",
        "finished_at",
        "is_settled",
        "replay_link",
    )
    list_filter = (
        "status",
        "table__room",
        ("settled_at", admin.EmptyFieldListFilter),
        "started_at",
    )
    list_select_related = ("table__room",)
    search_fields = ("=id", "=seed_commitment", "players__user__username")
    fieldsets = (
        (None, {"fields": ("table", "number", "status", "dealer", "base", "rules", "winner")}),
        (_("Times"), {"fields": ("started_at", "finished_at", "settled_at")}),
        (
            _("Deal"),
            {"fields": ("seed_commitment", "seed_shown", "deal_shown")},
        ),
        (_("Result"), {"fields": ("result", "replay_link")}),
    )
    readonly_fields = (
        "table",
        "number",
        "status",
        "dealer",
        "base",
        "rules",
        "winner",
        "started_at",
        "finished_at",
        "settled_at",
        "seed_commitment",
        "seed_shown",
        "deal_shown",
        "result",
        "replay_link",
    )
    inlines = [GamePlayerInline, GameEventInline, GameWatchInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        return selectors.games_for_admin()

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Game | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Game | None = None) -> bool:
        return False

    @admin.display(description=_("settled"), boolean=True)
    def is_settled(self, game: Game) -> bool:
        return game.settled_at is not None

    # The seed, the hands and the stock would tell the cards of a game in progress.

    @admin.display(description=_("seed"))
    def seed_shown(self, game: Game) -> str:
        return game.seed if game.is_over else str(HIDDEN_WHILE_PLAYING)

    @admin.display(description=_("deal"))
    def deal_shown(self, game: Game) -> str:
        if not game.is_over:
            return str(HIDDEN_WHILE_PLAYING)
        lines = presentation_for(game.game).deal_lines(selectors.game_record(game=game))
        return format_html_join("\n", "<div>{}: {}</div>", lines)

    @admin.display(description=_("replay"))
    def replay_link(self, game: Game) -> str:
        if game.pk is None:
            # django-stubs types the key as never None, which an unsaved game's is.
            return ""  # type: ignore[unreachable]
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:games_game_replay", args=[game.pk]),
            gettext("Replay"),
        )

    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "<path:object_id>/replay/",
                self.admin_site.admin_view(self.replay_view),
                name="games_game_replay",
            ),
            *super().get_urls(),
        ]

    def replay_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """The game replayed by the engine, step by step, with the engine's verdict."""
        game = self.get_object(request, unquote(object_id))
        if game is None:
            # A private ModelAdmin method, left out of django-stubs.
            return self._get_obj_does_not_exist_redirect(  # type: ignore[attr-defined,no-any-return]
                request, self.opts, object_id
            )
        if not self.has_view_permission(request, game):
            raise PermissionDenied
        players = selectors.game_players(game=game)
        replay = selectors.game_replay_steps(game=game) if game.is_over else None
        context: dict[str, Any] = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": game,
            "game": game,
            "players": players,
            "replay": replay,
            "record_json": None
            if replay is None
            else json.dumps(replay.record, ensure_ascii=False, indent=2),
            "has_view_permission": True,
            "title": gettext("Replay of %(game)s") % {"game": game},
            **_replay_position(request, replay),
        }
        presentation_for(game.game).replay_page(context)
        templates = game_templates(game.game, "admin/games/game/replay.html", folder="admin/games")
        return TemplateResponse(request, templates, context)


def _replay_position(request: HttpRequest, replay: selectors.Replay | None) -> dict[str, Any]:
    """The step staff look at (``?step=N``, the deal when absent or out of range) and the numbers
    of the steps before and after it (None at either end)."""
    if replay is None or not replay.steps:
        return {"step": None, "step_before": None, "step_after": None}
    try:
        number = int(request.GET.get("step", "0"))
    except ValueError:
        number = 0
    last = len(replay.steps) - 1
    number = min(max(number, 0), last)
    return {
        "step": replay.steps[number],
        "step_before": number - 1 if number > 0 else None,
        "step_after": number + 1 if number < last else None,
    }


# Disputes ----------------------------------------------------------------------------------------


class DisputeRejectForm(forms.Form):
    note = forms.CharField(
        label=_("Note to the player"),
        widget=forms.Textarea(attrs={"rows": 5, "cols": 80}),
        help_text=_("The player reads it on the game's page."),
    )


class DisputeResolveForm(DisputeRejectForm):
    compensation = forms.IntegerField(
        label=_("Compensation (coins)"),
        min_value=0,
        initial=0,
        help_text=_("Paid into the player's wallet, with a ledger row naming you and the game."),
    )


@admin.register(Dispute)
class DisputeAdmin(HiddenFieldsRefused, admin.ModelAdmin):
    list_display = (
        "id",
        "status",
        "game_link",
        "user",
        "created_at",
        "staff",
        "compensation",
        "replay_link",
        "handle_links",
    )
    list_filter = ("status",)
    search_fields = ("user__username", "reason")
    fields = (
        "game_link",
        "user",
        "status",
        "reason",
        "created_at",
        "staff",
        "note",
        "compensation",
        "resolved_at",
        "replay_link",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Dispute]:
        return selectors.disputes_for_admin()

    def get_ordering(self, request: HttpRequest) -> tuple[str, ...]:
        return ("open_first", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Dispute | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Dispute | None = None) -> bool:
        return False

    def can_handle(self, request: HttpRequest) -> bool:
        """Closing a dispute needs the permission to change disputes (fields stay read-only)."""
        return bool(request.user.is_staff and request.user.has_perm("games.change_dispute"))

    def render_change_form(
        self, request: HttpRequest, context: dict[str, Any], *args: Any, **kwargs: Any
    ) -> HttpResponse:
        context["can_handle"] = self.can_handle(request)
        return super().render_change_form(request, context, *args, **kwargs)

    @admin.display(description=_("game"), ordering="game")
    def game_link(self, dispute: Dispute) -> str:
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:games_game_change", args=[dispute.game_id]),
            dispute.game,
        )

    @admin.display(description=_("replay"))
    def replay_link(self, dispute: Dispute) -> str:
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:games_game_replay", args=[dispute.game_id]),
            gettext("Replay"),
        )

    @admin.display(description=_("handle"))
    def handle_links(self, dispute: Dispute) -> str:
        if dispute.status != Dispute.Status.OPEN:
            return "—"
        return format_html(
            '<a href="{}">{}</a> · <a href="{}">{}</a>',
            reverse("admin:games_dispute_resolve", args=[dispute.pk]),
            gettext("Resolve…"),
            reverse("admin:games_dispute_reject", args=[dispute.pk]),
            gettext("Reject…"),
        )

    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "<path:object_id>/resolve/",
                self.admin_site.admin_view(self.resolve_view),
                name="games_dispute_resolve",
            ),
            path(
                "<path:object_id>/reject/",
                self.admin_site.admin_view(self.reject_view),
                name="games_dispute_reject",
            ),
            *super().get_urls(),
        ]

    def resolve_view(self, request: AuthenticatedHttpRequest, object_id: str) -> HttpResponse:
        return self._handle_view(request, object_id, resolve=True)

    def reject_view(self, request: AuthenticatedHttpRequest, object_id: str) -> HttpResponse:
        return self._handle_view(request, object_id, resolve=False)

    def _handle_view(
        self, request: AuthenticatedHttpRequest, object_id: str, *, resolve: bool
    ) -> HttpResponse:
        """The form page between the queue and the service: a note, and for a resolution the
        compensation. Only the services change a dispute."""
        dispute = self.get_object(request, unquote(object_id))
        if dispute is None:
            # A private ModelAdmin method, left out of django-stubs.
            return self._get_obj_does_not_exist_redirect(  # type: ignore[attr-defined,no-any-return]
                request, self.opts, object_id
            )
        if not self.can_handle(request):
            raise PermissionDenied
        form_class = DisputeResolveForm if resolve else DisputeRejectForm
        if request.method == "POST":
            form = form_class(request.POST)
            if form.is_valid():
                try:
                    if resolve:
                        services.dispute_resolve(
                            dispute=dispute,
                            staff=request.user,
                            note=form.cleaned_data["note"],
                            compensation=form.cleaned_data["compensation"],
                        )
                        done = gettext("Dispute %(id)s resolved.") % {"id": dispute.pk}
                    else:
                        services.dispute_reject(
                            dispute=dispute, staff=request.user, note=form.cleaned_data["note"]
                        )
                        done = gettext("Dispute %(id)s rejected.") % {"id": dispute.pk}
                except services.DisputeRefused as exc:
                    form.add_error(None, exc.message)
                else:
                    self.log_change(request, dispute, done)
                    self.message_user(request, done, messages.SUCCESS)
                    return HttpResponseRedirect(reverse("admin:games_dispute_changelist"))
        else:
            form = form_class()
        game = dispute.game
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": dispute,
            "dispute": dispute,
            "game": game,
            "players": selectors.game_players(game=game),
            "form": form,
            "resolve": resolve,
            "has_view_permission": True,
            "title": (
                gettext("Resolve dispute %(id)s") if resolve else gettext("Reject dispute %(id)s")
            )
            % {"id": dispute.pk},
        }
        return TemplateResponse(request, "admin/games/dispute/handle.html", context)


# Quick phrases and reports ----------------------------------------------------------------------


@admin.register(TableMessage)
class TableMessageAdmin(HiddenFieldsRefused, admin.ModelAdmin):
    """The phrases players sent: read only."""

    list_display = ("created_at", "user", "table", "seat", "phrase", "text")
    list_filter = ("phrase",)
    search_fields = ("user__username",)
    list_select_related = ("user", "table__room")
    readonly_fields = ("table", "game", "user", "seat", "phrase", "text", "created_at")
    fields = readonly_fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: TableMessage | None = None) -> bool:
        return False

    @admin.display(description=_("text"))
    def text(self, message: TableMessage) -> str:
        return message.text


class ReportResolveForm(forms.Form):
    note = forms.CharField(
        label=_("What was done"),
        widget=forms.Textarea(attrs={"rows": 4, "cols": 80}),
    )


@admin.register(PlayerReport)
class PlayerReportAdmin(HiddenFieldsRefused, admin.ModelAdmin):
    """Players' reports: a queue that staff close with the actions, which call the services."""

    list_display = (
        "id",
        "status",
        "reason",
        "reported",
        "reporter",
        "table",
        "created_at",
        "staff",
        "handled_at",
    )
    list_filter = ("status", "reason")
    search_fields = ("reported__username", "reporter__username", "text")
    fields = (
        "reporter",
        "reported",
        "table",
        "reason",
        "text",
        "message_text",
        "recent_messages",
        "status",
        "staff",
        "note",
        "created_at",
        "handled_at",
    )
    readonly_fields = fields
    actions = ("dismiss", "mute_for_a_day", "resolve")

    def get_queryset(self, request: HttpRequest) -> QuerySet[PlayerReport]:
        return selectors.reports_for_admin()

    def get_ordering(self, request: HttpRequest) -> tuple[str, ...]:
        return ("open_first", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: PlayerReport | None = None) -> bool:
        return False

    @admin.display(description=_("reported message"))
    def message_text(self, report: PlayerReport) -> str:
        return report.message.text if report.message is not None else "—"

    @admin.display(description=_("the reported player's latest phrases"))
    def recent_messages(self, report: PlayerReport) -> str:
        rows = selectors.messages_of_user(user_id=report.reported_id)
        if not rows:
            return "—"
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                "<li>{} · {} · {}</li>",
                ((row.created_at, row.table, row.text) for row in rows),
            ),
        )

    def _each_open(
        self, request: HttpRequest, reports: QuerySet[PlayerReport], close: Any, done: str
    ) -> None:
        count = 0
        for report in reports.filter(status=PlayerReport.Status.OPEN):
            try:
                close(report)
            except services.ChatRefused as refused:
                self.message_user(request, refused.message, messages.ERROR)
            else:
                self.log_change(request, report, done)
                count += 1
        self.message_user(request, f"{done} ({count})", messages.SUCCESS)

    @admin.action(description=_("Dismiss the selected reports"))
    def dismiss(self, request: AuthenticatedHttpRequest, queryset: QuerySet[PlayerReport]) -> None:
        self._each_open(
            request,
            queryset,
            lambda report: services.report_dismiss(report=report, staff=request.user),
            gettext("Dismissed"),
        )

    @admin.action(description=_("Mute the reported players' phrases for 24 hours"))
    def mute_for_a_day(
        self, request: AuthenticatedHttpRequest, queryset: QuerySet[PlayerReport]
    ) -> None:
        self._each_open(
            request,
            queryset,
            lambda report: services.report_mute_player(report=report, staff=request.user),
            gettext("Muted for 24 hours"),
        )

    @admin.action(description=_("Resolve the selected reports with a note…"))
    def resolve(
        self, request: AuthenticatedHttpRequest, queryset: QuerySet[PlayerReport]
    ) -> HttpResponse | None:
        """A page for the note first; the services close the reports once it is sent."""
        form = ReportResolveForm(request.POST if "note" in request.POST else None)
        if form.is_valid():
            note = form.cleaned_data["note"]
            self._each_open(
                request,
                queryset,
                lambda report: services.report_resolve(
                    report=report, staff=request.user, note=note
                ),
                gettext("Resolved"),
            )
            return None
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "reports": queryset,
            "form": form,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
            "title": gettext("Resolve reports"),
        }
        return TemplateResponse(request, "admin/games/playerreport/resolve.html", context)
