from __future__ import annotations

from django.apps import apps
from django.core import checks
from django.test import override_settings

from games import seeds
from games.models import Room, Table
from games.services import game_start, seed_commitment
from tests import seeds as repeatable


def test_the_secure_source_draws_different_256_bit_seeds() -> None:
    drawn = {seeds.new_seed() for _ in range(50)}
    assert len(drawn) == 50
    assert all(0 <= seed < 2**seeds.SEED_BITS for seed in drawn)
    assert max(drawn).bit_length() > 200


@override_settings(GAME_SEED_SOURCE=repeatable.SOURCE)
def test_a_named_source_deals_every_new_game(db: None) -> None:
    room = Room.objects.get(code="novice")
    games = []
    for _ in range(2):
        repeatable.restart(7)
        table = Table.objects.create(room=room)
        games.append(game_start(table=table, players=[None, None, None]))
    repeatable.restart(7)
    expected = repeatable.repeatable_seed()
    assert [game.seed for game in games] == [f"{expected:064x}"] * 2
    assert games[0].seed_commitment == seed_commitment(expected)


def _deploy_errors() -> list[str]:
    return [
        message.id
        for message in checks.run_checks(
            app_configs=[apps.get_app_config("games")],
            include_deployment_checks=True,
            tags=["security"],
        )
        if message.id and message.id.startswith("games.")
    ]


@override_settings(DEBUG=False)
def test_the_deploy_check_accepts_the_secure_source() -> None:
    assert _deploy_errors() == []


@override_settings(DEBUG=False, GAME_SEED_SOURCE=repeatable.SOURCE)
def test_the_deploy_check_refuses_another_source_in_production() -> None:
    assert _deploy_errors() == ["games.E001"]


@override_settings(DEBUG=True, GAME_SEED_SOURCE=repeatable.SOURCE)
def test_another_source_is_allowed_while_debugging() -> None:
    assert _deploy_errors() == []
