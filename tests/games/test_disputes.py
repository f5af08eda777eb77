"""Disputes: who may open one, when, and how staff close it."""

from __future__ import annotations

import pytest

from accounts.models import LedgerEntry, LedgerReason, User
from games import selectors, services
from games.models import Dispute, Game, Table
from tests.games.helpers import balance, play_out, start_from_position

pytestmark = pytest.mark.django_db

HANDS = ["3s 6s 9c", "4h 8h Th Qh", "5d 7d 9d Jd Kd 2d"]


@pytest.fixture
def finished(table: Table, trio: list[User]) -> Game:
    game = start_from_position(table=table, players=trio, hands=HANDS, stock="", dealer=0)
    play_out(game, seed=1)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


@pytest.fixture
def playing(room: object, trio: list[User]) -> Game:
    table = Table.objects.create(room=room)
    return start_from_position(table=table, players=trio, hands=HANDS, stock="", dealer=0)


def refused(code: str, **kwargs: object) -> None:
    before = Dispute.objects.count()
    with pytest.raises(services.DisputeRefused) as error:
        services.dispute_open(**kwargs)  # type: ignore[arg-type]
    assert error.value.code == code
    assert error.value.message
    assert Dispute.objects.count() == before


def test_a_player_opens_a_dispute_about_a_finished_game(finished: Game, trio: list[User]) -> None:
    dispute = services.dispute_open(user=trio[1], game=finished, reason="  My 2 vanished.  ")
    assert dispute.status == Dispute.Status.OPEN
    assert dispute.reason == "My 2 vanished."
    assert (dispute.user, dispute.game) == (trio[1], finished)
    assert list(selectors.disputes_open()) == [dispute]


def test_only_players_of_the_game(finished: Game, outsider: User, staff: User) -> None:
    refused("not_a_player", user=outsider, game=finished, reason="I watched it.")
    refused("not_a_player", user=staff, game=finished, reason="Staff did not play.")


def test_only_once_the_game_is_over(playing: Game, trio: list[User]) -> None:
    refused("game_not_over", user=trio[0], game=playing, reason="Too slow.")


def test_an_aborted_game_can_be_disputed(playing: Game, trio: list[User]) -> None:
    Game.objects.filter(pk=playing.pk).update(status=Game.Status.ABORTED)
    playing.refresh_from_db()
    assert services.dispute_open(user=trio[0], game=playing, reason="Why aborted?")


@pytest.mark.parametrize(
    ("reason", "code"),
    [("", "reason_empty"), ("   \n ", "reason_empty"), ("x" * 2001, "reason_too_long")],
)
def test_the_reason_must_say_something_short(
    finished: Game, trio: list[User], reason: str, code: str
) -> None:
    refused(code, user=trio[0], game=finished, reason=reason)


def test_a_reason_of_exactly_2000_characters_is_fine(finished: Game, trio: list[User]) -> None:
    assert services.dispute_open(user=trio[0], game=finished, reason="x" * 2000)


def test_one_open_dispute_per_player_and_game(
    finished: Game, trio: list[User], staff: User
) -> None:
    first = services.dispute_open(user=trio[0], game=finished, reason="Wrong.")
    refused("already_open", user=trio[0], game=finished, reason="Still wrong.")
    # Another player may open their own.
    services.dispute_open(user=trio[1], game=finished, reason="Me too.")
    # Once closed, the player may open a new one.
    services.dispute_reject(dispute=first, staff=staff, note="The replay agrees with the result.")
    assert services.dispute_open(user=trio[0], game=finished, reason="I insist.")
    assert Dispute.objects.filter(game=finished, user=trio[0]).count() == 2


def test_resolve_with_compensation_writes_a_ledger_row(
    finished: Game, trio: list[User], staff: User
) -> None:
    dispute = services.dispute_open(user=trio[2], game=finished, reason="Lag.")
    before = balance(trio[2])
    closed = services.dispute_resolve(
        dispute=dispute, staff=staff, note="Sorry for the lag.", compensation=1_500
    )
    assert closed.status == Dispute.Status.RESOLVED
    assert (closed.staff, closed.note, closed.compensation) == (staff, "Sorry for the lag.", 1500)
    assert closed.resolved_at is not None
    assert dispute.status == Dispute.Status.RESOLVED  # the object passed in is updated too
    assert balance(trio[2]) == before + 1_500
    row = LedgerEntry.objects.get(reason=LedgerReason.COMPENSATION)
    assert (row.amount, row.staff, row.game, row.wallet.user) == (1500, staff, finished, trio[2])
    assert list(selectors.disputes_open()) == []


def test_resolve_without_compensation_moves_no_coins(
    finished: Game, trio: list[User], staff: User
) -> None:
    dispute = services.dispute_open(user=trio[2], game=finished, reason="Lag.")
    rows = LedgerEntry.objects.count()
    services.dispute_resolve(dispute=dispute, staff=staff, note="Checked: fixed the display.")
    assert LedgerEntry.objects.count() == rows


def test_reject(finished: Game, trio: list[User], staff: User) -> None:
    dispute = services.dispute_open(user=trio[0], game=finished, reason="Unfair.")
    rows = LedgerEntry.objects.count()
    services.dispute_reject(dispute=dispute, staff=staff, note="The replay agrees.")
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.REJECTED
    assert dispute.compensation == 0 and dispute.staff == staff
    assert LedgerEntry.objects.count() == rows


def test_closing_refusals(finished: Game, trio: list[User], staff: User) -> None:
    dispute = services.dispute_open(user=trio[0], game=finished, reason="Unfair.")
    cases = [
        (
            "not_staff",
            services.dispute_resolve,
            {"staff": trio[1], "note": "ok", "compensation": 5},
        ),
        ("not_staff", services.dispute_reject, {"staff": trio[1], "note": "no"}),
        ("note_empty", services.dispute_reject, {"staff": staff, "note": "  "}),
        (
            "bad_compensation",
            services.dispute_resolve,
            {"staff": staff, "note": "x", "compensation": -1},
        ),
    ]
    rows = LedgerEntry.objects.count()
    for code, service, kwargs in cases:
        with pytest.raises(services.DisputeRefused) as error:
            service(dispute=dispute, **kwargs)
        assert error.value.code == code
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.OPEN and dispute.staff is None
    services.dispute_resolve(dispute=dispute, staff=staff, note="ok", compensation=10)
    with pytest.raises(services.DisputeRefused) as error:
        services.dispute_reject(dispute=dispute, staff=staff, note="again")
    assert error.value.code == "not_open"
    with pytest.raises(services.DisputeRefused) as error:
        services.dispute_resolve(dispute=dispute, staff=staff, note="again", compensation=10)
    assert error.value.code == "not_open"
    assert LedgerEntry.objects.count() == rows + 1  # one compensation only
