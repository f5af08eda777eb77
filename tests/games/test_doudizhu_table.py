"""斗地主 at a table, through the services, the clock and the frames: the deal shown in stages by
the table's clock, 明牌 while it is dealt, the bidding and 加倍 with their clocks, the play to the
end, and the settlement into the ledger; every frame shows a seat only what it may see."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db.models import Sum
from django.utils import translation

from accounts.models import LedgerEntry
from games import services
from games.engines import engine_for
from games.errors import GameActionRefused
from games.frames import frames_of_table, render_frame_and_version
from games.models import Game, GameEvent, Room, Table
from games.rules import Phase, parse_cards
from games.rules.doudizhu import ENGINE, GameState
from games.selectors import game_state
from tests.games.helpers import balance, make_player, make_room

pytestmark = pytest.mark.django_db

CARD = re.compile(r'data-card="([^"]+)"')
BASE = 50


def ddz_room(*, threshold: int | None = None) -> Room:
    room = make_room(
        code="ddz", base=BASE, rules={} if threshold is None else {"double_threshold": threshold}
    )
    room.game = ENGINE.key
    room.full_clean()
    room.save(update_fields=["game"])
    return room


def fresh(game: Game) -> tuple[Game, GameState]:
    game.refresh_from_db()
    state = game_state(game=game)
    assert isinstance(state, GameState)
    return game, state


def version_of(table: Table, seat: int) -> str:
    table = Table.objects.select_related("room").get(pk=table.pk)
    return render_frame_and_version(table=table, seat=seat)[1]


def act(user: Any, table: Table, seat: int, move: dict[str, Any]) -> GameEvent:
    return services.table_game_act(
        user=user, table=table, action=move, version=version_of(table, seat)
    )


def check_frames(table: Table, state: GameState) -> None:
    """Each seat's frame holds its own cards and what is public: no card of another seat's
    hidden hand, and no bottom card before the landlord takes them."""
    table = Table.objects.select_related("room").get(pk=table.pk)
    # The bottom cards are public once the landlord has them (in the landlord's hand).
    bottom = {str(card) for card in state.bottom}
    hidden_bottom = set() if state.landlord is not None else bottom
    for seat in (0, 1, 2, None):
        frame, _version = render_frame_and_version(table=table, seat=seat)
        shown = set(CARD.findall(frame))
        for other in range(3):
            if other == seat or state.shown[other]:
                continue
            hidden = {str(card) for card in state.hand(other)} - (bottom - hidden_bottom)
            assert not shown & hidden, f"seat {seat} sees cards of seat {other}"
        assert not shown & hidden_bottom


def run_clock(game: Game, *, later: float) -> GameEvent | None:
    """The runner's step for ``game`` at ``later`` seconds past its deadline."""
    game.refresh_from_db()
    assert game.turn_deadline is not None
    return services.game_turn_due(game=game, now=game.turn_deadline + timedelta(seconds=later))


def test_the_deal_is_shown_in_stages_by_the_clock_and_a_hand_shown_meanwhile_counts_four() -> None:
    room = ddz_room()
    users = [make_player(name) for name in ("a", "b", "c")]
    table = Table.objects.create(room=room)
    for position, user in enumerate(users):
        table.seats.create(position=position, user=user, ready=True)
    game = services.game_start(table=table, players=users, seed=7)
    game, state = fresh(game)
    assert state.phase is Phase.DEAL and state.dealt == 0
    # The deal's first stage comes a stage's time after the deal, whoever bids first.
    assert game.turn_deadline is not None and game.turn_started_at is not None
    stage = timedelta(seconds=settings.DEAL_STAGE_SECONDS)
    assert game.turn_deadline - game.turn_started_at == stage
    assert (
        services.game_turn_due(game=game, now=game.turn_deadline - timedelta(seconds=0.1)) is None
    )
    check_frames(table, state)

    event = run_clock(game, later=0.01)
    assert event is not None and event.source == GameEvent.Source.CLOCK
    assert event.action == {"deal": 8}
    game, state = fresh(game)
    assert state.dealt == 8 and game.turn_deadline - game.turn_started_at == stage
    deadline = game.turn_deadline
    check_frames(table, state)

    # A player shows their hand while the first eight cards are out: ×4, and the clock of the
    # deal runs on as it was.
    shower = (state.to_move + 1) % 3
    act(users[shower], table, shower, {"show": True})
    game, state = fresh(game)
    assert state.shown[shower] and state.multiplier == 4
    assert game.turn_deadline == deadline
    check_frames(table, state)

    run_clock(game, later=0.01)
    game, state = fresh(game)
    assert state.phase is Phase.BID and state.dealt == 17
    # The first seat that showed its hand bids first, on a person's clock for a bid.
    assert state.to_move == shower
    assert game.turn_deadline - game.turn_started_at == timedelta(seconds=settings.BID_SECONDS)
    check_frames(table, state)


def test_a_player_may_not_deal_the_cards_and_a_refusal_changes_nothing() -> None:
    room = ddz_room()
    users = [make_player(name) for name in ("a", "b", "c")]
    table = Table.objects.create(room=room)
    for position, user in enumerate(users):
        table.seats.create(position=position, user=user, ready=True)
    game = services.game_start(table=table, players=users, seed=3)
    game, state = fresh(game)
    seat = state.to_move
    before = list(GameEvent.objects.filter(game=game).values_list("number", flat=True))
    with pytest.raises(GameActionRefused) as refused:
        act(users[seat], table, seat, {"deal": 17})
    assert refused.value.code == "dealt_by_the_clock"
    with pytest.raises(GameActionRefused) as refused:
        act(users[seat], table, seat, {"bid": "call"})
    assert refused.value.code != "dealt_by_the_clock"
    assert list(GameEvent.objects.filter(game=game).values_list("number", flat=True)) == before


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_person_and_two_bots_play_a_whole_game_and_the_ledger_settles_it_once(seed: int) -> None:
    """The person at seat 0 calls when asked, doubles when allowed, and plays the Hint button's
    first play; the runner's clock deals and moves the bots."""
    room = ddz_room(threshold=1_000)
    person = make_player("p", 50_000)
    table = Table.objects.create(room=room)
    table.seats.create(position=0, user=person, ready=True)
    table.seats.create(position=1, is_bot=True, ready=True)
    table.seats.create(position=2, is_bot=True, ready=True)
    game = services.game_start(table=table, players=[person, None, None], seed=seed)
    start = balance(person)
    presentation_hints = engine_for("doudizhu")
    assert presentation_hints is ENGINE
    for _turn in range(400):
        game, state = fresh(game)
        if game.status != Game.Status.PLAYING:
            break
        check_frames(table, state)
        actions = state.legal_actions(0)
        doubling = state.phase is Phase.DOUBLE and state.doubles[0] is None
        if state.to_move == 0 and state.phase is Phase.BID:
            act(person, table, 0, actions[0].to_json())
        elif doubling:
            choice = {"double": True} if state.may_double(0) else {"double": False}
            act(person, table, 0, choice)
        elif state.to_move == 0 and state.phase is Phase.PLAY:
            act(person, table, 0, actions[-1].to_json() if state.table else actions[0].to_json())
        else:
            assert run_clock(game, later=0.01) is not None
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.settled_at is not None
    # Settled once: the ledger's rows of the game sum to zero, and the person's wallet moved by
    # exactly what the settlement says.
    rows = LedgerEntry.objects.filter(game=game)
    assert rows.aggregate(total=Sum("amount"))["total"] == 0
    assert balance(person) - start == game.result["coins"][0]
    assert sum(game.result["coins"]) == 0
    services.game_settle(game=game)
    assert LedgerEntry.objects.filter(game=game).count() == rows.count()
    # The record replays to the same end.
    state = game_state(game=game)
    assert state.is_terminal and parse_cards(" ".join(map(str, state.bottom)))


def test_a_player_who_starts_with_the_hand_shown_shows_it_from_the_deal_for_five() -> None:
    room = ddz_room()
    users = [make_player(name) for name in ("a", "b", "c")]
    table = Table.objects.create(room=room)
    for position, user in enumerate(users):
        table.seats.create(position=position, user=user)

    services.table_play_again(user=users[1], table=table, start={"show": True})
    seat = table.seats.get(position=1)
    assert seat.ready and seat.start_action == {"show": True}
    # Every seat's box says so; the others are offered the same choice, the chooser no more.
    for viewer in (0, 1, None):
        frame, _version = render_frame_and_version(table=table, seat=viewer)
        assert frame.count("data-start") == 1
        assert ('data-action="again-start"' in frame) == (viewer == 0)

    # Only what the game offers before the deal: nothing else is written.
    for start in ({"show": "bottom"}, {"bid": "call"}, {"show": 5}, {"nothing": 1}):
        with pytest.raises(services.TableRefused) as refused:
            services.table_play_again(user=users[2], table=table, start=start)
        assert refused.value.code == "bad_start"
    assert not table.seats.get(position=2).ready

    services.table_play_again(user=users[0], table=table)
    game = services.table_play_again(user=users[2], table=table)
    assert game is not None
    game, state = fresh(game)
    # Made in the player's name as the game is dealt, before its first card: ×5.
    event = GameEvent.objects.get(game=game)
    assert event.seat == 1 and event.source == GameEvent.Source.PLAYER
    assert event.action == {"show": "start"}
    assert state.phase is Phase.DEAL and state.dealt == 0
    assert state.shown == (False, True, False) and state.multiplier == 5
    # The deal's clock runs as it was set, and the choice is spent.
    assert game.turn_deadline - game.turn_started_at == timedelta(
        seconds=settings.DEAL_STAGE_SECONDS
    )
    assert not table.seats.filter(start_action__isnull=False).exists()
    check_frames(table, state)
    # No card yet: the board says the hand will show as it is dealt.
    with translation.override("en"):
        frame, _version = render_frame_and_version(table=table, seat=None)
    shown = frame[frame.index('data-shown-seat="1"') :]
    shown = shown[: shown.index("</div>")]
    assert "each card as it is dealt" in shown and not CARD.findall(shown)
    # Each card of the hand is shown to all as it is dealt.
    run_clock(game, later=0.01)
    game, state = fresh(game)
    frame, _version = render_frame_and_version(table=table, seat=None)
    assert len({str(card) for card in state.hand(1)} & set(CARD.findall(frame))) == 8
    check_frames(table, state)


def test_a_game_with_nothing_to_choose_before_the_deal_refuses_a_start() -> None:
    room = make_room(code="gdy")
    users = [make_player(name) for name in ("a", "b", "c")]
    table = Table.objects.create(room=room)
    for position, user in enumerate(users):
        table.seats.create(position=position, user=user)
    with pytest.raises(services.TableRefused) as refused:
        services.table_play_again(user=users[0], table=table, start={"show": True})
    assert refused.value.code == "bad_start"
    assert not table.seats.filter(ready=True).exists()
    frame, _version = render_frame_and_version(table=table, seat=0)
    assert 'data-action="again-start"' not in frame


@pytest.mark.parametrize("leaver", [False, True])
def test_the_frames_after_the_last_move_show_the_table_as_read_anew(
    leaver: bool, django_capture_on_commit_callbacks: Any
) -> None:
    """The last move's frames come from the table and seats the move left (none freed) and the
    players and balances as the settlement wrote them: the very frames a fresh read renders,
    multiplier and payments included. A player leaving after the game frees a seat, and the
    frames are then read anew."""
    room = ddz_room()
    people = [make_player(name, 50_000) for name in ("p0", "p1", "p2")]
    table = Table.objects.create(room=room)
    for position, person in enumerate(people):
        table.seats.create(position=position, user=person, ready=True)
    game = services.game_start(table=table, players=list(people), seed=7)
    if leaver:
        assert services.table_leave(user=people[2], table=table) is not None
    seat, move = _play_to_the_last_move(game, table, people)
    with services.notices_collected() as notices, django_capture_on_commit_callbacks(execute=True):
        act(people[seat], table, seat, move.to_json())
    game.refresh_from_db()
    assert game.settled_at is not None
    (finished,) = [notice for _group, notice in notices if notice.get("kind") == "finished"]
    assert finished["frames"]
    assert finished == {**finished, **frames_of_table(table_id=table.pk)}
    assert ("left" in [notice.get("kind") for _group, notice in notices]) is leaver


def test_the_frames_of_the_next_deal_show_the_table_as_read_anew(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The deal's frames after the last 再来一局 come from the rows the deal wrote (its players,
    and the balances it read): the very frames a fresh read renders."""
    people = [make_player(name, 50_000) for name in ("p0", "p1", "p2")]
    table = Table.objects.create(room=ddz_room())
    for position, person in enumerate(people):
        table.seats.create(position=position, user=person, ready=True)
    game = services.game_start(table=table, players=list(people), seed=11)
    table.seats.update(ready=False)  # as a deal leaves them
    seat, move = _play_to_the_last_move(game, table, people)
    act(people[seat], table, seat, move.to_json())
    for person in people[:2]:
        services.table_play_again(user=person, table=table)
    with services.notices_collected() as notices, django_capture_on_commit_callbacks(execute=True):
        services.table_play_again(user=people[2], table=table)
    (started,) = [notice for _group, notice in notices if notice.get("kind") == "started"]
    assert started["game"] != game.pk and started["frames"]
    assert started == {**started, **frames_of_table(table_id=table.pk)}


def _play_to_the_last_move(game: Game, table: Table, people: list[Any]) -> tuple[int, Any]:
    """Play ``game`` on until its last move, which is returned with its seat, not made: bid and
    double when asked, lead the most cards, follow with the smallest."""
    for _turn in range(400):
        game, state = fresh(game)
        assert game.status == Game.Status.PLAYING
        seat = state.to_move
        if state.phase is Phase.DEAL or seat is None:
            assert run_clock(game, later=0.01) is not None
            continue
        actions = state.legal_actions(seat)
        move = actions[0] if state.phase is not Phase.PLAY or state.table else actions[-1]
        if state.apply(seat, move).is_terminal:
            return seat, move
        act(people[seat], table, seat, move.to_json())
    pytest.fail("the game did not end")
