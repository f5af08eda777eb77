"""Which database the suite runs on: ``./scripts/test.sh`` runs the database tests twice."""

import pytest
from django.db import connection


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_postgres_run_uses_its_own_test_database() -> None:
    assert connection.vendor == "postgresql"
    assert connection.settings_dict["NAME"] == "test_gandengyan"
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version_num")
        assert int(cursor.fetchone()[0]) >= 140000
