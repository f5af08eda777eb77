"""Quick phrases, mutes and reports: what the services accept, refuse and store."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import TestCase
from django.utils import timezone

from accounts.models import User
from games import selectors, services
from games.models import PlayerMute, PlayerReport, Room, Table, TableMessage
from games.phrases import BY_ID, EMOTES, PHRASES
from games.services.chat import CHAT_PER_MINUTE
from tests.games.helpers import make_player

pytestmark = pytest.mark.django_db


def _seated(trio: list[User], room: Room) -> Table:
    table = None
    for user in trio:
        table, _seat = services.table_play(user=user, room=room)
    assert table is not None
    assert table.seats.filter(user__isnull=False).count() == len(trio)
    return table


def _age_messages(user: User, seconds: float) -> None:
    """Make ``user``'s phrases as old as if sent ``seconds`` earlier."""
    for message in TableMessage.objects.filter(user=user):
        TableMessage.objects.filter(pk=message.pk).update(
            created_at=message.created_at - timedelta(seconds=seconds)
        )


def test_the_list_is_fixed_with_eight_phrases_and_eight_emotes() -> None:
    assert len(PHRASES) == 8
    assert len(EMOTES) == 8
    assert len(BY_ID) == 16
    assert all(len(phrase.id) <= 16 for phrase in BY_ID.values())


def test_a_seated_player_says_a_phrase_and_the_table_hears_it_after_commit(
    trio: list[User], room: Room
) -> None:
    table = _seated(trio, room)
    version = Table.objects.get(pk=table.pk).version
    with (
        services.notices_collected() as notices,
        TestCase.captureOnCommitCallbacks(execute=True) as callbacks,
    ):
        message = services.table_say(user=trio[0], table_id=table.pk, phrase="hurry")
        assert notices == []  # nothing before the commit
    assert len(callbacks) == 1
    seat = table.seats.get(user=trio[0]).position
    assert notices == [
        (
            f"table-{table.pk}",
            {
                "type": "table.chat",
                "table": table.pk,
                "id": message.pk,
                "user": trio[0].pk,
                "seat": seat,
                "phrase": "hurry",
            },
        )
    ]
    stored = TableMessage.objects.get()
    assert (stored.table_id, stored.user_id, stored.seat, stored.phrase) == (
        table.pk,
        trio[0].pk,
        seat,
        "hurry",
    )
    # A phrase is not a change of the table.
    assert Table.objects.get(pk=table.pk).version == version


@pytest.mark.parametrize("phrase", ["", "HURRY", "hello world", "<b>", "x" * 200])
def test_an_unknown_phrase_is_refused_and_nothing_is_stored(
    trio: list[User], room: Room, phrase: str
) -> None:
    table = _seated(trio, room)
    with pytest.raises(services.ChatRefused) as refused:
        services.table_say(user=trio[0], table_id=table.pk, phrase=phrase)
    assert refused.value.code == "unknown_phrase"
    assert not TableMessage.objects.exists()


def test_a_spectator_or_another_tables_player_may_not_speak(
    trio: list[User], room: Room, outsider: User
) -> None:
    table = _seated(trio, room)
    with pytest.raises(services.ChatRefused) as refused:
        services.table_say(user=outsider, table_id=table.pk, phrase="hello")
    assert refused.value.code == "not_seated"
    assert not TableMessage.objects.exists()


def test_one_phrase_every_three_seconds(trio: list[User], room: Room) -> None:
    table = _seated(trio, room)
    services.table_say(user=trio[0], table_id=table.pk, phrase="hello")
    with pytest.raises(services.ChatRefused) as refused:
        services.table_say(user=trio[0], table_id=table.pk, phrase="bomb")
    assert refused.value.code == "chat_too_fast"
    # Another player is not slowed down by the first.
    services.table_say(user=trio[1], table_id=table.pk, phrase="bomb")
    _age_messages(trio[0], 3.5)
    services.table_say(user=trio[0], table_id=table.pk, phrase="bomb")
    assert TableMessage.objects.filter(user=trio[0]).count() == 2


def test_at_most_ten_phrases_a_minute(trio: list[User], room: Room) -> None:
    table = _seated(trio, room)
    for _n in range(CHAT_PER_MINUTE):
        services.table_say(user=trio[0], table_id=table.pk, phrase="rose")
        _age_messages(trio[0], 4)  # 4 s apart: 40 s for the ten
    with pytest.raises(services.ChatRefused) as refused:
        services.table_say(user=trio[0], table_id=table.pk, phrase="rose")
    assert refused.value.code == "chat_too_fast"
    _age_messages(trio[0], 25)  # the first has left the minute
    services.table_say(user=trio[0], table_id=table.pk, phrase="rose")
    assert TableMessage.objects.filter(user=trio[0]).count() == CHAT_PER_MINUTE + 1


def test_a_player_muted_by_staff_is_refused_until_the_mute_ends(
    trio: list[User], room: Room
) -> None:
    table = _seated(trio, room)
    services.user_chat_ban(user_id=trio[0].pk, until=timezone.now() + timedelta(hours=24))
    with pytest.raises(services.ChatRefused) as refused:
        services.table_say(user=trio[0], table_id=table.pk, phrase="hello")
    assert refused.value.code == "chat_banned"
    assert refused.value.message
    assert not TableMessage.objects.exists()
    services.user_chat_ban(user_id=trio[0].pk, until=timezone.now() - timedelta(seconds=1))
    services.table_say(user=trio[0], table_id=table.pk, phrase="hello")
    assert TableMessage.objects.count() == 1


def test_mutes_and_the_phrases_switch_decide_who_hears_whom(trio: list[User], room: Room) -> None:
    zhao, qian, sun = trio
    table = _seated(trio, room)
    assert selectors.chat_wanted_from(user_id=zhao.pk, speaker_id=qian.pk)
    services.player_mute(user=zhao, muted_id=qian.pk, table=table)
    services.player_mute(user=zhao, muted_id=str(qian.pk), table=table)  # twice: no change
    assert PlayerMute.objects.count() == 1
    assert not selectors.chat_wanted_from(user_id=zhao.pk, speaker_id=qian.pk)
    assert selectors.chat_wanted_from(user_id=zhao.pk, speaker_id=sun.pk)
    assert selectors.chat_wanted_from(user_id=qian.pk, speaker_id=zhao.pk)  # one way only
    assert selectors.muted_ids(user_id=zhao.pk) == {qian.pk}
    services.player_unmute(user=zhao, muted_id=qian.pk)
    assert selectors.chat_wanted_from(user_id=zhao.pk, speaker_id=qian.pk)
    sun.phrases_on = False
    sun.save(update_fields=["phrases_on"])
    assert not selectors.chat_wanted_from(user_id=sun.pk, speaker_id=zhao.pk)


@pytest.mark.parametrize("other", ["self", "nobody", "garbage", "elsewhere"])
def test_muting_oneself_or_anyone_not_at_the_table_is_refused(
    trio: list[User], room: Room, outsider: User, other: str
) -> None:
    table = _seated(trio, room)
    muted = {"self": trio[0].pk, "nobody": 999_999, "garbage": "x1", "elsewhere": outsider.pk}
    with pytest.raises(services.ChatRefused) as refused:
        services.player_mute(user=trio[0], muted_id=muted[other], table=table)
    assert refused.value.code == "bad_player"
    assert not PlayerMute.objects.exists()


def test_an_unknown_id_and_a_player_elsewhere_are_refused_alike(
    trio: list[User], room: Room, outsider: User
) -> None:
    """The answers to a mute or a report tell no one whether an id is a player's."""
    table = _seated(trio, room)
    said = []
    for other in (999_999, outsider.pk):
        for refuse in (
            lambda pk: services.player_mute(user=trio[0], muted_id=pk, table=table),
            lambda pk: services.player_unmute(user=trio[0], muted_id=pk),
            lambda pk: services.player_report(
                reporter=trio[0], reported_id=pk, table=table, reason="spam"
            ),
        ):
            with pytest.raises(services.ChatRefused) as refused:
                refuse(other)
            said.append((refused.value.code, refused.value.message))
    assert said[:3] == said[3:]


def test_one_open_report_per_reporter_player_and_table(trio: list[User], room: Room) -> None:
    table = _seated(trio, room)
    zhao, qian, _sun = trio
    report = services.player_report(
        reporter=zhao, reported_id=qian.pk, table=table, reason="abuse", text=" 骂人 "
    )
    assert (report.status, report.reason, report.text) == ("open", "abuse", "骂人")
    with pytest.raises(services.ChatRefused) as refused:
        services.player_report(reporter=zhao, reported_id=qian.pk, table=table, reason="spam")
    assert refused.value.code == "already_reported"
    # Another reporter may, and once staff closed the first, so may the same one again.
    services.player_report(reporter=trio[2], reported_id=qian.pk, table=table, reason="spam")
    staff = User.objects.create_user(username="boss", password="pw-123456", is_staff=True)
    services.report_dismiss(report=report, staff=staff)
    services.player_report(reporter=zhao, reported_id=qian.pk, table=table, reason="other")
    assert PlayerReport.objects.filter(status="open").count() == 2


@pytest.mark.parametrize(
    ("reason", "text", "code"),
    [
        ("rude", "", "bad_reason"),
        ("", "", "bad_reason"),
        ("other", "长" * 201, "text_too_long"),
    ],
)
def test_a_report_needs_a_listed_reason_and_short_details(
    trio: list[User], room: Room, reason: str, text: str, code: str
) -> None:
    table = _seated(trio, room)
    with pytest.raises(services.ChatRefused) as refused:
        services.player_report(
            reporter=trio[0], reported_id=trio[1].pk, table=table, reason=reason, text=text
        )
    assert refused.value.code == code
    assert not PlayerReport.objects.exists()


def test_a_report_names_a_player_of_the_table(trio: list[User], room: Room, outsider: User) -> None:
    table = _seated(trio, room)
    for reported in (outsider.pk, trio[0].pk):
        with pytest.raises(services.ChatRefused) as refused:
            services.player_report(
                reporter=trio[0], reported_id=reported, table=table, reason="other"
            )
        assert refused.value.code == "bad_player"
    assert not PlayerReport.objects.exists()


def test_staff_mute_the_reported_player_for_a_day(trio: list[User], room: Room) -> None:
    table = _seated(trio, room)
    said = services.table_say(user=trio[1], table_id=table.pk, phrase="angry")
    report = services.player_report(
        reporter=trio[0],
        reported_id=trio[1].pk,
        table=table,
        reason="spam",
        message_id=said.pk,
    )
    assert report.message == said
    with pytest.raises(services.ChatRefused):
        services.report_mute_player(report=report, staff=trio[2])  # not staff
    staff = User.objects.create_user(username="boss", password="pw-123456", is_staff=True)
    before = timezone.now()
    services.report_mute_player(report=report, staff=staff)
    report.refresh_from_db()
    assert (report.status, report.staff) == ("handled", staff)
    banned = User.objects.get(pk=trio[1].pk).chat_banned_until
    assert banned is not None
    assert before + timedelta(hours=23, minutes=59) < banned < timezone.now() + timedelta(hours=24)
    _age_messages(trio[1], 10)
    with pytest.raises(services.ChatRefused) as refused:
        services.table_say(user=trio[1], table_id=table.pk, phrase="hello")
    assert refused.value.code == "chat_banned"
    with pytest.raises(services.ChatRefused) as closed:
        services.report_resolve(report=report, staff=staff, note="again")
    assert closed.value.code == "not_open"


def test_a_player_who_spoke_and_left_can_still_be_reported(room: Room) -> None:
    players = [make_player(name) for name in ("zhao", "qian")]  # too few for a game
    table = _seated(players, room)
    services.table_say(user=players[1], table_id=table.pk, phrase="angry")
    services.table_leave(user=players[1], table=table)
    assert not table.seats.filter(user=players[1]).exists()
    report = services.player_report(
        reporter=players[0], reported_id=players[1].pk, table=table, reason="abuse"
    )
    assert report.reported == players[1]
