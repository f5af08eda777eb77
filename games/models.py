"""Rooms, tables, seats, games and their events, disputes, and what players say at a table.

A ``Game`` row holds everything needed to replay one hand: the seed (revealed when the game is
over; a hash commitment of it is public from the start), the starting hands and stock, the dealer,
the rules and the base; its ``GameEvent`` rows are the actions in order, numbered from 1 and never
changed. ``games.selectors.game_record`` exports it in the engine's record format.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import get_language, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games.rules.errors import RulesError

from .engines import DEFAULT_GAME, validate_game_key


class BotLevel(models.TextChoices):
    """How well the bots that fill a table's free seats play (``games.bots.levels``)."""

    EASY = "easy", pgettext_lazy("bot level", "Easy")
    NORMAL = "normal", pgettext_lazy("bot level", "Normal")
    HARD = "hard", pgettext_lazy("bot level", "Hard")


class Room(models.Model):
    """A stakes room (场): a base stake and a range of coins to enter."""

    code = models.SlugField(_("code"), max_length=32, unique=True)
    game = models.CharField(
        _("game"),
        max_length=32,
        default=DEFAULT_GAME,
        validators=[validate_game_key],
        help_text=_("The game played at the room's tables."),
    )
    name_zh = models.CharField(_("Chinese name"), max_length=40)
    name_en = models.CharField(_("English name"), max_length=40)
    base = models.PositiveBigIntegerField(_("base stake"))
    min_coins = models.PositiveBigIntegerField(_("minimum coins to enter"))
    max_coins = models.PositiveBigIntegerField(
        _("maximum coins to enter"), null=True, blank=True, help_text=_("Empty: no limit.")
    )
    rules = models.JSONField(
        _("rules options"),
        default=dict,
        blank=True,
        help_text=_("Variant options that differ from the standard game; {} is the standard."),
    )
    is_open = models.BooleanField(_("open"), default=True)
    position = models.PositiveSmallIntegerField(_("position in the lobby"), default=0)
    turn_seconds = models.PositiveSmallIntegerField(
        _("seconds per turn"),
        default=20,
        validators=[MinValueValidator(5), MaxValueValidator(300)],
        help_text=_("When a player's time runs out, the server plays for them."),
    )
    bot_level = models.CharField(
        _("bot level"),
        max_length=8,
        choices=BotLevel.choices,
        default=BotLevel.NORMAL,
        help_text=_(
            "How well the bots that take free seats play: easy (greedy), normal (sensible) or "
            "hard (they think ahead)."
        ),
    )
    bot_budget_ms = models.PositiveSmallIntegerField(
        _("hard bots' time per move (ms)"),
        default=120,
        validators=[MinValueValidator(20), MaxValueValidator(200)],
        help_text=_("How long a hard bot may think about one move, in milliseconds."),
    )

    class Meta:
        verbose_name = _("room")
        verbose_name_plural = _("rooms")
        ordering = ["position", "base"]
        constraints = [
            models.CheckConstraint(
                condition=Q(max_coins__isnull=True) | Q(max_coins__gte=models.F("min_coins")),
                name="room_max_not_below_min",
            ),
            models.CheckConstraint(condition=Q(base__gte=1), name="room_base_positive"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        return self.name_en if (get_language() or "").startswith("en") else self.name_zh

    def clean(self) -> None:
        super().clean()
        from .engines import engine_for  # the engines import the rules, not the models

        try:
            engine = engine_for(self.game)
        except LookupError:
            return  # the field's validator says so
        try:
            engine.options_from_json(self.rules)
        except (RulesError, TypeError, ValueError) as exc:
            raise ValidationError({"rules": str(exc)}) from exc

    def admits(self, balance: int) -> bool:
        return balance >= self.min_coins and (self.max_coins is None or balance <= self.max_coins)


class Table(models.Model):
    """A table of a room: seats for the players of one game after another.

    A table waits until its seats are taken (by players, or by bots once a player has waited
    long enough), plays a game, then waits again until every player at it wants another one. It
    closes when its last player leaves. Private tables are joined with their invite code.
    """

    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting for players")
        PLAYING = "playing", _("Playing")
        CLOSED = "closed", _("Closed")

    room = models.ForeignKey(
        Room, on_delete=models.PROTECT, related_name="tables", verbose_name=_("room")
    )
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.WAITING
    )
    is_private = models.BooleanField(_("private"), default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    invite_code = models.CharField(
        _("invite code"),
        max_length=32,
        unique=True,
        null=True,
        blank=True,
        help_text=_("Private tables only: whoever has the code may join."),
    )
    waiting_since = models.DateTimeField(
        _("waiting since"),
        null=True,
        blank=True,
        help_text=_("Since when a player has been waiting at a seat with a free one beside them."),
    )
    version = models.PositiveIntegerField(
        _("version"), default=0, help_text=_("Goes up with every change of seats or status.")
    )
    rules = models.JSONField(
        _("rules options"),
        null=True,
        blank=True,
        help_text=_(
            "The house rules its host chose for a private table, as the room's rules are "
            "written; empty: the room's rules."
        ),
    )
    bot_level = models.CharField(
        _("bot level"),
        max_length=8,
        choices=BotLevel.choices,
        blank=True,
        default="",
        help_text=_("The bots' level its host chose for a private table; empty: the room's."),
    )

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(is_private=False, invite_code__isnull=True)
                | Q(is_private=True, invite_code__isnull=False),
                name="table_invite_code_only_when_private",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.room} #{self.pk}"

    @property
    def play_rules(self) -> dict[str, Any]:
        """The rules options every game dealt at this table plays: its own (a private table's
        host chose them), else its room's."""
        rules = self.room.rules if self.rules is None else self.rules
        return rules if isinstance(rules, dict) else {}

    @property
    def play_bot_level(self) -> str:
        """The level of the bots that sit at this table: its host's choice, else its room's."""
        return self.bot_level or self.room.bot_level


class Seat(models.Model):
    """A place at a table: a player, a bot, or empty."""

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="seats", verbose_name=_("table")
    )
    position = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="seats",
        verbose_name=_("player"),
    )
    is_bot = models.BooleanField(_("bot"), default=False)
    ready = models.BooleanField(
        _("ready"), default=False, help_text=_("The player wants the next game to start.")
    )
    # 明牌开始 and the like: the game's action (JSON) the table makes in the player's name as
    # soon as the next game is dealt.
    start_action = models.JSONField(
        _("action at the start"),
        null=True,
        blank=True,
        help_text=_("What the player chose to do as soon as the next game is dealt."),
    )
    # 托管: the bot plays for the player until they take the seat back.
    auto_play = models.BooleanField(_("auto-play (托管)"), default=False)
    # The player asked to leave once the game being played ends: the seat is freed then.
    leaves_after_game = models.BooleanField(_("leaves after this game"), default=False)
    timeouts = models.PositiveSmallIntegerField(
        _("timeouts in a row"),
        default=0,
        help_text=_("Turns in a row the server played because the player's time ran out."),
    )

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["table", "position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="seat_unique_position"),
            # One seat per player in the whole site: a player sits at one table at a time.
            models.UniqueConstraint(
                fields=["user"],
                condition=Q(user__isnull=False),
                name="seat_one_per_player",
            ),
            models.CheckConstraint(
                condition=~(Q(is_bot=True) & Q(user__isnull=False)), name="seat_bot_has_no_user"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} · {self.position}"


class Game(models.Model):
    """One hand of 干瞪眼 played at a table, stored so completely that it can be replayed."""

    class Status(models.TextChoices):
        PLAYING = "playing", _("Playing")
        FINISHED = "finished", _("Finished")
        ABORTED = "aborted", _("Aborted")

    # Found by its table through the unique (table, number) index: an index of its own would
    # only be one more entry to write at every move.
    table = models.ForeignKey(
        Table,
        on_delete=models.PROTECT,
        related_name="games",
        verbose_name=_("table"),
        db_index=False,
    )
    number = models.PositiveIntegerField(_("hand number at the table"))
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PLAYING
    )
    # The seed is a 256-bit number, kept as 64 hex digits; secret until the game ends.
    seed = models.CharField(_("seed"), max_length=64)
    seed_commitment = models.CharField(
        _("seed commitment"),
        max_length=64,
        help_text=_("SHA-256 of the seed, public from the start."),
    )
    game = models.CharField(
        _("game"), max_length=32, default=DEFAULT_GAME, validators=[validate_game_key]
    )
    dealer = models.PositiveSmallIntegerField(_("dealer"))
    rules = models.JSONField(_("rules options"), default=dict, blank=True)
    base = models.PositiveBigIntegerField(_("base stake"))
    # Empty for a game whose deal is kept whole in ``deal``.
    hands = models.JSONField(_("starting hands"), default=list, blank=True)
    # The cards left to draw, for a game that has a stock (干瞪眼's); empty for one that has none.
    stock = models.TextField(_("stock, top first"), blank=True)
    # The rest of the engine's deal, for a game whose deal is more than a dealer, hands and a
    # stock (斗地主's: every deal with its bottom cards, and the seats' coins). Secret as the
    # hands are.
    deal = models.JSONField(_("deal"), default=dict, blank=True)
    winner = models.PositiveSmallIntegerField(_("winner"), null=True, blank=True)
    result = models.JSONField(_("result"), null=True, blank=True)
    started_at = models.DateTimeField(_("started at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    settled_at = models.DateTimeField(_("settled at"), null=True, blank=True)
    # Whose turn it is and since when, kept with every action: the turn's time is counted from
    # its start (a 托管 switch never gives it more), and the runner needs no replay to act.
    to_move = models.PositiveSmallIntegerField(_("seat to move"), null=True, blank=True)
    turn_started_at = models.DateTimeField(_("turn started at"), null=True, blank=True)
    # When the server acts for the seat to move: a bot's pause, or a player's time running out.
    turn_deadline = models.DateTimeField(_("turn deadline"), null=True, blank=True)
    # A new random value with every stored event, every other write of the row and every change
    # of its table's seats while it is played: a process that kept what the row named at this
    # value (``games.positions``) may use it without reading it again.
    position_id = models.UUIDField(_("position id"), default=uuid.uuid4, editable=False)

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["-started_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="game_unique_number"),
        ]
        indexes = [
            # The game being played at a table (every move locks it), without walking the
            # table's past games; the runner's query of due turns reads the games being played
            # through it too. No index holds a column a move writes, so on PostgreSQL a move's
            # update of the row stays on its page and writes no index entry (a heap-only
            # update, with the room migration 0010 leaves on each page).
            models.Index(
                fields=["table"],
                condition=models.Q(status="playing"),
                name="game_playing_table_idx",
            ),
            # The leaderboards' settled games of one game, this week's or all: the column is
            # written once, by the settlement, so no move pays for the index.
            models.Index(
                fields=["game", "settled_at"],
                condition=models.Q(settled_at__isnull=False),
                name="game_settled_by_game_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} · {self.number}"

    @property
    def is_over(self) -> bool:
        return self.status != self.Status.PLAYING


#: A player won a game when the engine paid their seat: in 斗地主 both farmers of a winning side.
GAME_WON = Q(nominal__gt=0)


class GamePlayer(models.Model):
    """Who sat where in one game, and what the game did to them."""

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="players", verbose_name=_("game")
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="game_players",
        verbose_name=_("player"),
    )
    is_bot = models.BooleanField(_("bot"), default=False)
    cards_left = models.PositiveSmallIntegerField(_("cards left"), null=True, blank=True)
    spring = models.BooleanField(_("spring"), default=False)
    nominal = models.BigIntegerField(_("engine's payment"), null=True, blank=True)
    coins = models.BigIntegerField(_("coins moved"), null=True, blank=True)

    class Meta:
        verbose_name = _("game player")
        verbose_name_plural = _("game players")
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="game_player_unique_seat"),
        ]

    def __str__(self) -> str:
        return f"{self.game} · {self.seat}"

    @property
    def won(self) -> bool:
        """Whether the game paid this seat (``GAME_WON`` for queries)."""
        return (self.nominal or 0) > 0


class GameEvent(models.Model):
    """One action of a game, numbered from 1. Append-only."""

    # Found by its game through the unique (game, number) index, as for a game's table.
    game = models.ForeignKey(
        Game,
        on_delete=models.CASCADE,
        related_name="events",
        verbose_name=_("game"),
        db_index=False,
    )
    number = models.PositiveIntegerField(_("number"))

    class Source(models.TextChoices):
        PLAYER = "player", _("Player")
        BOT = "bot", _("Bot")
        TIMEOUT = "timeout", _("Time ran out")
        AUTO_PLAY = "auto_play", _("Auto-play (托管)")
        CLOCK = "clock", _("The table's clock")

    seat = models.PositiveSmallIntegerField(_("seat"))
    action = models.JSONField(_("action"))
    source = models.CharField(
        _("made by"), max_length=16, choices=Source.choices, default=Source.PLAYER
    )
    created_at = models.DateTimeField(_("time"), auto_now_add=True)
    action_id = models.CharField(
        _("client action id"),
        max_length=64,
        blank=True,
        default="",
        help_text=_(
            "The id the player's browser gave the action: a repeated id (a double click, a "
            "resend after a reconnect) is applied once."
        ),
    )

    class Meta:
        verbose_name = _("game event")
        verbose_name_plural = _("game events")
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="game_event_unique_number"),
            models.UniqueConstraint(
                fields=["game", "action_id"],
                condition=~Q(action_id=""),
                name="game_event_unique_action_id",
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="game_event_number_from_one"),
        ]

    def __str__(self) -> str:
        return f"{self.game} · {self.number}"


class GameWatch(models.Model):
    """A signed-in user who watched a game while it was played, from outside its seats: they
    may replay it once it is over. Written once per game and user."""

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="watches", verbose_name=_("game")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="game_watches",
        verbose_name=_("spectator"),
    )
    created_at = models.DateTimeField(_("first watched at"), auto_now_add=True)

    class Meta:
        verbose_name = _("game watched")
        verbose_name_plural = _("games watched")
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="game_watch_unique_user"),
        ]

    def __str__(self) -> str:
        return f"{self.game} · {self.user_id}"


class Dispute(models.Model):
    """A player's complaint about a game they played, and how staff settled it."""

    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("dispute status", "Open")
        RESOLVED = "resolved", pgettext_lazy("dispute status", "Resolved")
        REJECTED = "rejected", pgettext_lazy("dispute status", "Rejected")

    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="disputes", verbose_name=_("game")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="disputes",
        verbose_name=_("player"),
    )
    reason = models.TextField(_("reason"), max_length=2000)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.OPEN
    )
    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("handled by"),
    )
    note = models.TextField(_("note to the player"), blank=True)
    compensation = models.PositiveBigIntegerField(_("compensation"), default=0)
    created_at = models.DateTimeField(_("opened at"), auto_now_add=True)
    resolved_at = models.DateTimeField(_("closed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("dispute")
        verbose_name_plural = _("disputes")
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "user"],
                condition=Q(status="open"),
                name="dispute_one_open_per_player_and_game",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} · {self.user}"


class TableMessage(models.Model):
    """A quick phrase or emote a player sent at a table (``games.phrases``: only its id)."""

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="messages", verbose_name=_("table")
    )
    game = models.ForeignKey(
        Game,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("game"),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="table_messages",
        verbose_name=_("player"),
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    phrase = models.CharField(_("phrase"), max_length=16)
    created_at = models.DateTimeField(_("sent at"), auto_now_add=True)

    class Meta:
        verbose_name = _("table message")
        verbose_name_plural = _("table messages")
        ordering = ["-created_at", "-id"]
        indexes = [
            # A sender's latest messages: the rate limit, and staff reading a reported player's.
            models.Index(fields=["user", "created_at"], name="table_message_user_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.table} · {self.user} · {self.phrase}"

    @property
    def text(self) -> str:
        from .phrases import BY_ID  # the phrases are translations, read when shown

        phrase = BY_ID.get(self.phrase)
        return self.phrase if phrase is None else f"{phrase.text}"


class PlayerMute(models.Model):
    """A player who no longer hears another's phrases, at any table."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="mutes",
        verbose_name=_("player"),
    )
    muted = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("muted player"),
    )
    created_at = models.DateTimeField(_("muted at"), auto_now_add=True)

    class Meta:
        verbose_name = _("muted player")
        verbose_name_plural = _("muted players")
        constraints = [
            models.UniqueConstraint(fields=["user", "muted"], name="player_mute_unique"),
            models.CheckConstraint(
                condition=~Q(user=models.F("muted")), name="player_mute_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} → {self.muted}"


class PlayerReport(models.Model):
    """A player's report of another at a table, and how staff handled it."""

    class Reason(models.TextChoices):
        ABUSE = "abuse", pgettext_lazy("report reason", "Abuse")
        SPAM = "spam", pgettext_lazy("report reason", "Spamming")
        CHEATING = "cheating", pgettext_lazy("report reason", "Suspected cheating")
        OTHER = "other", pgettext_lazy("report reason", "Other")

    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("report status", "Open")
        HANDLED = "handled", pgettext_lazy("report status", "Handled")
        DISMISSED = "dismissed", pgettext_lazy("report status", "Dismissed")

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reports_made",
        verbose_name=_("reported by"),
    )
    reported = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reports_received",
        verbose_name=_("reported player"),
    )
    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="reports", verbose_name=_("table")
    )
    message = models.ForeignKey(
        TableMessage,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("message"),
    )
    reason = models.CharField(_("reason"), max_length=16, choices=Reason.choices)
    text = models.CharField(_("details"), max_length=200, blank=True)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.OPEN
    )
    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("handled by"),
    )
    note = models.TextField(_("staff note"), blank=True)
    created_at = models.DateTimeField(_("reported at"), auto_now_add=True)
    handled_at = models.DateTimeField(_("handled at"), null=True, blank=True)

    class Meta:
        verbose_name = _("player report")
        verbose_name_plural = _("player reports")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["reporter", "reported", "table"],
                condition=Q(status="open"),
                name="player_report_one_open",
            ),
            models.CheckConstraint(
                condition=~Q(reporter=models.F("reported")), name="player_report_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.reporter} → {self.reported} · {self.table}"
