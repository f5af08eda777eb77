"""Fixtures and markers shared by the whole test suite."""

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from django.conf import settings
from django.test import Client
from django.utils import translation

CHROMIUM = Path("/usr/bin/chromium")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip, with the reason, what this run's database or machine cannot run.

    ``postgres`` tests run only on PostgreSQL (``./scripts/test.sh`` runs them there when it
    answers on 127.0.0.1:5432); ``e2e`` tests need Debian's Chromium at ``/usr/bin/chromium``.
    """
    engine = settings.DATABASES["default"]["ENGINE"]
    no_postgres = pytest.mark.skip(
        reason=f"needs PostgreSQL, this run uses {engine.rsplit('.', 1)[-1]}: set DATABASE_URL="
        "postgres://postgres@127.0.0.1:5432/gandengyan (./scripts/test.sh does when it answers)"
    )
    no_chromium = pytest.mark.skip(
        reason=f"needs Chromium at {CHROMIUM}: apt-get install -y chromium "
        "(./scripts/test.sh installs it when run as root)"
    )
    for item in items:
        if item.get_closest_marker("postgres") and engine != "django.db.backends.postgresql":
            item.add_marker(no_postgres)
        if item.get_closest_marker("e2e") and not CHROMIUM.exists():
            item.add_marker(no_chromium)


@pytest.fixture
def english_client() -> Client:
    """A test client whose browser asks for English."""
    return Client(headers={"accept-language": "en"})


@pytest.fixture(autouse=True)
def _reset_language() -> Iterator[None]:
    """Leave the active language as it was, whatever a test activated."""
    language = translation.get_language()
    yield
    translation.activate(language)


def _cache_clear() -> None:
    """Empty the cache; on Redis only this run's keys (settings_test gives them a prefix of their
    own), never the database the channel layer and other runs share."""
    from django.core.cache import cache

    if settings.CACHES["default"]["BACKEND"] != "django.core.cache.backends.redis.RedisCache":
        cache.clear()
        return
    import redis

    client = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    try:
        prefix = settings.CACHES["default"]["KEY_PREFIX"]
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


@pytest.fixture(autouse=True)
def _empty_cache() -> Iterator[None]:
    """An empty cache for every test, so that rate limits counted there (logins, sign-ups) never
    carry over from one test to the next, nor from one run to the next."""
    _cache_clear()
    yield
    _cache_clear()


@pytest_asyncio.fixture
async def _loop_pool_closed() -> AsyncIterator[None]:
    from games import loop_moves

    yield
    await loop_moves.close_pool()


@pytest.fixture(autouse=True)
def _loop_pools(request: pytest.FixtureRequest) -> None:
    """An asynchronous test's moves on its event loop take connections from a pool of that
    loop's own (games.loop_moves): closed on the loop before the loop closes."""
    if request.node.get_closest_marker("asyncio"):
        request.getfixturevalue("_loop_pool_closed")


@pytest.fixture(autouse=True)
def _table_socket_state() -> Iterator[None]:
    """Each test starts with no messages counted against its users by the table sockets' rate
    limit, and ends with the sockets' database threads and event loops holding no connection
    (the test database must be dropped at the end, and a transactional test's flush must not
    wait)."""
    from games import db_threads, loop_moves, socket_limits

    socket_limits.reset()
    yield
    if db_threads.pool_started():
        db_threads.close_pool_connections()
    loop_moves.close_connections()
