"""Replays of a game: each step from its stored deal and events, for staff in the admin (checked
against what was stored) and for the people who may see it once it is over (its players, staff,
those who watched it, and anyone holding its share link).

The steps are the same for every game and for both, through its engine's protocol; what a step
shows beyond the engine's views is the game's presentation's (``games.presentation``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core import signing
from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from accounts.models import LedgerEntry, LedgerReason, User
from games.rules import IllegalMoveError, NotationError, RecordError

from ..engines import Engine, engine_for
from ..models import Game, GameWatch
from ..presentation import presentation_for
from .games import game_record
from .states import game_deal, game_events


@dataclasses.dataclass(frozen=True)
class ReplayStep:
    """The position after one action (number 0: after the deal)."""

    number: int
    seat: int | None
    action: dict[str, Any] | None  # the action's JSON as stored; None for the deal
    views: tuple[dict[str, Any], ...]  # every seat's view after it: staff see every hand
    public: dict[str, Any]  # a spectator's view after it
    details: dict[str, Any]  # what the game's presentation adds for its template
    # What each seat did last in the current round after it (the presentation's
    # ``last_actions``), by seat: what the players' replay shows on each seat.
    round_actions: dict[int, dict[str, Any]] = dataclasses.field(default_factory=dict)

    @property
    def action_text(self) -> str:
        return "" if self.action is None else json.dumps(self.action, ensure_ascii=False)

    @property
    def views_text(self) -> tuple[str, ...]:
        return tuple(json.dumps(view, ensure_ascii=False) for view in self.views)


@dataclasses.dataclass(frozen=True)
class ReplayCheck:
    code: str  # "record", "commitment", "actions", "result", "ledger"
    label: str
    ok: bool
    detail: str


@dataclasses.dataclass(frozen=True)
class Replay:
    """A game replayed by the engine from its stored record, and whether it agrees."""

    record: dict[str, Any]
    steps: list[ReplayStep]
    settlement: dict[str, Any] | None  # the engine's, when the replay reaches the end
    stored_result: dict[str, Any] | None
    checks: list[ReplayCheck]

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)


def game_replay_steps(*, game: Game) -> Replay:
    """Replay a game with its engine, step by step, and check it against what was stored.

    The record is rebuilt from the stored deal and events (with the seed once the game is over)
    and read by the engine's ``replay_record`` exactly as an exported record would be. Checks:
    the record reads and, when the seed is revealed, the seed deals exactly the stored deal; the
    seed matches its commitment; every action is legal; the engine's settlement equals the
    stored result; the game's ledger rows sum to zero and match the coins stored for each
    player.
    """
    engine = engine_for(game.game)
    data = game_record(game=game)
    checks: list[ReplayCheck] = []
    try:
        outcome = engine.replay_record(data)
    except RecordError as exc:
        checks.append(ReplayCheck("record", _("Record"), False, str(exc)))
        return Replay(data, [], None, game.result, checks)
    seed = data.get("seed")
    if seed is None:
        checks.append(
            ReplayCheck(
                "record", _("Record"), True, _("The record reads; the seed is still secret.")
            )
        )
    else:
        dealt = _seed_deals(engine, game, seed)
        checks.append(
            ReplayCheck(
                "record",
                _("Record"),
                dealt,
                _("The seed deals exactly the stored hands and stock.")
                if dealt
                else "the seed does not deal the stored cards",
            )
        )
        seed_ok = hashlib.sha256(bytes.fromhex(game.seed)).hexdigest() == game.seed_commitment
        checks.append(
            ReplayCheck(
                "commitment",
                _("Seed commitment"),
                seed_ok,
                _("SHA-256 of the seed equals the commitment published at the start.")
                if seed_ok
                else _("SHA-256 of the seed differs from the commitment."),
            )
        )

    steps, illegal = _steps(engine, game)
    if not outcome.ok or illegal is not None:
        if illegal is not None:
            index, code, message = illegal
        else:
            index, code, message = outcome.error.index, outcome.error.code, outcome.error.message
        checks.append(
            ReplayCheck("actions", _("Actions"), False, f"action {index + 1}: {message} ({code})")
        )
        return Replay(data, steps, None, game.result, checks)
    checks.append(
        ReplayCheck(
            "actions",
            _("Actions"),
            True,
            _("All %(count)d actions are legal.") % {"count": outcome.applied},
        )
    )

    settlement = None
    if outcome.settlement is not None:
        settlement = outcome.settlement.to_json()
        stored = game.result or {}
        same = game.result is not None and all(
            stored.get(key) == value for key, value in settlement.items()
        )
        checks.append(
            ReplayCheck(
                "result",
                _("Result"),
                same,
                _("The engine's result equals the stored result.")
                if same
                else _("Engine: %(engine)s; stored: %(stored)s")
                % {
                    "engine": settlement,
                    "stored": None
                    if game.result is None
                    else {key: stored.get(key) for key in settlement},
                },
            )
        )
    elif game.status == Game.Status.FINISHED or game.result is not None:
        checks.append(
            ReplayCheck(
                "result",
                _("Result"),
                False,
                _("The game is marked finished, but its actions do not end it."),
            )
        )
    if game.settled_at is not None:
        checks.append(_ledger_check(game))
    return Replay(data, steps, settlement, game.result, checks)


def game_steps(*, game: Game) -> list[ReplayStep]:
    """Every step of a game as its engine replays it from the stored deal and events (up to the
    first illegal action, which ``game_replay_steps`` reports): the same steps staff and players
    step through. Every seat's hand is in them, so only a game that is over may be shown."""
    steps, _illegal = _steps(engine_for(game.game), game)
    return steps


def game_replay_frames(*, game: Game) -> list[dict[str, Any]]:
    """What the players' replay shows at every step, JSON-safe: the step's ``number`` and
    ``seat``, and its game's ``replay_frame`` (every hand, the cards to beat, whose turn, the
    action in words)."""
    presentation = presentation_for(game.game)
    return [
        {
            "number": step.number,
            "seat": step.seat,
            **presentation.replay_frame(
                action=step.action,
                views=step.views,
                public=step.public,
                details=step.details,
                round_actions=step.round_actions,
            ),
        }
        for step in game_steps(game=game)
    ]


# Who may replay a game -----------------------------------------------------------------------

#: Signs the share links of replays: a link of one purpose never opens another.
REPLAY_LINK_SALT = "games.replay.share"


def game_get_for_replay(*, user: User | AnonymousUser, game_id: int) -> Game | None:
    """The game if it is over and ``user`` may replay it: a player of it, staff, or someone who
    watched it being played. None otherwise (a game in play is never replayed: every hand would
    show)."""
    if not user.is_authenticated:
        return None
    games = Game.objects.select_related("table__room").exclude(status=Game.Status.PLAYING)
    if not user.is_staff:
        games = games.filter(
            Q(pk__in=Game.objects.filter(pk=game_id, players__user_id=user.pk).values("pk"))
            | Q(pk__in=GameWatch.objects.filter(game_id=game_id, user_id=user.pk).values("game"))
        )
    return games.filter(pk=game_id).first()


def game_replay_token(*, game: Game) -> str:
    """The unguessable token of the game's share link: its id signed with the site's key,
    without a time, so that a game has one link, the same wherever and whenever it is shown."""
    return signing.Signer(salt=REPLAY_LINK_SALT).sign_object(game.pk)


def game_get_by_replay_token(*, token: str) -> Game | None:
    """The game a share link's token names, once it is over; None for a token that was not
    signed here (made up or altered) or a game still in play."""
    try:
        game_id = signing.Signer(salt=REPLAY_LINK_SALT).unsign_object(token)
    except signing.BadSignature:
        return None
    if not isinstance(game_id, int):
        return None
    return (
        Game.objects.select_related("table__room")
        .exclude(status=Game.Status.PLAYING)
        .filter(pk=game_id)
        .first()
    )


def games_watched_by(*, user: User, limit: int = 20) -> QuerySet[GameWatch]:
    """The finished games ``user`` watched, newest first, with their rooms."""
    return (
        GameWatch.objects.filter(user_id=user.pk)
        .exclude(game__status=Game.Status.PLAYING)
        .select_related("game__table__room")
        .order_by("-game__started_at", "-game_id")[:limit]
    )


def _seed_deals(engine: Engine, game: Game, seed: int) -> bool:
    """Whether ``seed`` deals the game's stored deal (what ``deal_to_json`` writes of it)."""
    options = engine.options_from_json(game.rules)
    try:
        dealt = engine.deal_to_json(
            engine.deal(
                seed, players=engine.seat_count(options), options=options, dealer=game.dealer
            )
        )
    except ValueError:
        return False
    stored = game_deal(game=game)
    return all(stored.get(key) == value for key, value in dealt.items())


def _steps(engine: Engine, game: Game) -> tuple[list[ReplayStep], tuple[int, str, str] | None]:
    """Every step of the game from its stored deal and events, up to the first illegal action
    (then also its index, code and message)."""
    presentation = presentation_for(game.game)
    state = engine.deal_from_json(game_deal(game=game), engine.options_from_json(game.rules))
    steps: list[ReplayStep] = []
    previous: tuple[dict[str, Any], ...] | None = None
    number, seat, action = 0, None, None
    events = game_events(game)
    while True:
        views = tuple(state.view(position, history=False) for position in range(state.players))
        public = state.view(None, history=False)
        details = presentation.replay_step(
            action=action, views=views, public=public, previous=previous
        )
        round_actions = presentation.last_actions(state)
        steps.append(ReplayStep(number, seat, action, views, public, details, round_actions))
        if number == len(events):
            return steps, None
        seat, action = events[number]
        try:
            if state.to_move is None:
                raise IllegalMoveError("game_over", "the game is already over")
            state = state.apply(seat, engine.action_from_json(action))
        except IllegalMoveError as exc:
            return steps, (number, exc.code, exc.message)
        except NotationError as exc:
            return steps, (number, "notation", str(exc))
        previous, number = views, number + 1


def _ledger_check(game: Game) -> ReplayCheck:
    """The game's ledger rows sum to zero; a player's wallet got their seat's coins, and the
    house's wallet the bot seats' coins together. Keys: user ids, and ``"house"``."""
    moved: dict[int | str, int] = {}
    for user_id, is_house, amount in LedgerEntry.objects.filter(
        game=game, reason=LedgerReason.GAME
    ).values_list("wallet__user_id", "wallet__is_house", "amount"):
        key = "house" if is_house else user_id
        moved[key] = moved.get(key, 0) + amount
    stored: dict[int | str, int] = {}
    for player in game.players.all():
        key = "house" if player.user_id is None else player.user_id
        stored[key] = stored.get(key, 0) + (player.coins or 0)
    total = sum(moved.values())
    same = all(moved.get(key, 0) == coins for key, coins in stored.items()) and set(moved) <= set(
        stored
    )
    ok = total == 0 and same
    return ReplayCheck(
        "ledger",
        _("Ledger"),
        ok,
        _("The game's ledger rows sum to zero and match each player's coins.")
        if ok
        else _("Ledger rows: %(moved)s (sum %(total)s); stored coins: %(stored)s")
        % {"moved": moved, "total": total, "stored": stored},
    )
