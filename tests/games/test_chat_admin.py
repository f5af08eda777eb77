"""Staff and players' reports in the admin: the queue, the reported player's phrases, and the
actions, which close reports through the services."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import PlayerReport, Room, Table, TableMessage

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/games/playerreport/"


@pytest.fixture
def admin_client(client: Client, staff: User) -> Client:
    client.force_login(staff)
    return client


@pytest.fixture
def report(trio: list[User], room: Room) -> PlayerReport:
    table: Table | None = None
    for user in trio[:2]:
        table, _seat = services.table_play(user=user, room=room)
    assert table is not None
    said = services.table_say(user=trio[1], table_id=table.pk, phrase="angry")
    return services.player_report(
        reporter=trio[0],
        reported_id=trio[1].pk,
        table=table,
        reason="abuse",
        text="辱骂",
        message_id=said.pk,
    )


def _act(client: Client, action: str, report: PlayerReport, **extra: str) -> str:
    response = client.post(
        CHANGELIST, {"action": action, ACTION_CHECKBOX_NAME: [str(report.pk)], **extra}
    )
    return str(response.content.decode()) if response.status_code == 200 else ""


def test_the_queue_and_a_report_with_the_reported_players_phrases(
    admin_client: Client, report: PlayerReport
) -> None:
    page = admin_client.get(CHANGELIST).content.decode()
    assert "qian" in page and "zhao" in page
    assert admin_client.get(CHANGELIST, {"status__exact": "open"}).status_code == 200
    assert admin_client.get(CHANGELIST, {"reason__exact": "abuse"}).status_code == 200
    page = admin_client.get(f"{CHANGELIST}{report.pk}/change/").content.decode()
    assert "辱骂" in page
    assert page.count("😡") >= 2  # the reported message, and among the latest phrases
    assert admin_client.get("/admin/games/tablemessage/").status_code == 200
    assert admin_client.get(f"{CHANGELIST}add/").status_code == 403


def test_dismiss(admin_client: Client, report: PlayerReport, staff: User) -> None:
    _act(admin_client, "dismiss", report)
    report.refresh_from_db()
    assert (report.status, report.staff) == ("dismissed", staff)
    assert report.handled_at is not None
    assert User.objects.get(pk=report.reported_id).chat_banned_until is None


def test_mute_for_a_day_refuses_the_players_phrases(
    admin_client: Client, report: PlayerReport
) -> None:
    _act(admin_client, "mute_for_a_day", report)
    report.refresh_from_db()
    assert report.status == "handled"
    until = User.objects.get(pk=report.reported_id).chat_banned_until
    assert until is not None and until > timezone.now() + timedelta(hours=23)
    TableMessage.objects.update(created_at=timezone.now() - timedelta(minutes=5))
    with pytest.raises(services.ChatRefused) as refused:
        services.table_say(user=report.reported, table_id=report.table_id, phrase="hello")
    assert refused.value.code == "chat_banned"


def test_resolve_asks_for_a_note_first(admin_client: Client, report: PlayerReport) -> None:
    page = _act(admin_client, "resolve", report)
    assert 'name="note"' in page
    report.refresh_from_db()
    assert report.status == "open"
    _act(admin_client, "resolve", report, note="Warned the player.")
    report.refresh_from_db()
    assert (report.status, report.note) == ("handled", "Warned the player.")


def test_a_closed_report_is_left_as_it_is(admin_client: Client, report: PlayerReport) -> None:
    _act(admin_client, "dismiss", report)
    _act(admin_client, "mute_for_a_day", report)
    report.refresh_from_db()
    assert report.status == "dismissed"
    assert User.objects.get(pk=report.reported_id).chat_banned_until is None
