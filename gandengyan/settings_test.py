"""Settings for the test suite: the normal settings with fast, isolated overrides."""

import os

from .settings import *  # noqa: F403
from .settings import BASE_DIR, CACHES, CHANNEL_LAYERS, DATABASES

SECRET_KEY = "test-only-secret-key"

# A real password hash costs most of a second; tests need none of that strength.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# An explicit test database name, so that a live server in another process finds the same
# database. SQLite gets a file (an in-memory database cannot be shared between processes).
# TEST_DB_SUFFIX (letters, digits, underscores) keeps two runs in one checkout apart.
TEST_DB_SUFFIX = os.environ.get("TEST_DB_SUFFIX", "")
if not TEST_DB_SUFFIX.replace("_", "").isalnum() and TEST_DB_SUFFIX:
    raise ValueError("TEST_DB_SUFFIX may hold only letters, digits and underscores")
TEST_ARTIFACTS_DIR = BASE_DIR / ".test-artifacts"
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    TEST_ARTIFACTS_DIR.mkdir(exist_ok=True)
    DATABASES["default"]["TEST"] = {
        "NAME": str(TEST_ARTIFACTS_DIR / f"test-db{TEST_DB_SUFFIX}.sqlite3")
    }
else:
    DATABASES["default"]["TEST"] = {"NAME": f"test_gandengyan{TEST_DB_SUFFIX}"}

# The suite holds a connection in each of up to 8 threads at a barrier (the tests of concurrent
# writes), beside the test's own and its sockets' threads: more than a worker's pool.
if "pool" in DATABASES["default"].get("OPTIONS", {}) and "DATABASE_POOL_MAX_SIZE" not in os.environ:
    DATABASES["default"]["OPTIONS"]["pool"]["max_size"] = 20

# Plain storage: tests must not depend on a collectstatic manifest.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

# Mail is sent at once into django.core.mail.outbox, where tests read it; the tests of the queue
# and its worker (tests/accounts/test_email_delivery.py) put the site's own settings back. A
# queue drained in a test goes to the outbox too, never to a real server.
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
MAILER_EMAIL_BACKEND = EMAIL_BACKEND

# The suite's processes, and the live servers they fork, choose bots' moves in place: a pool of
# thinking processes started in a test process would be copied into every server forked after
# it. tests/games/test_thinking.py turns them on, and the served site's tests run them as served.
THINKING_PROCESSES = int(os.environ.get("THINKING_PROCESSES", "0"))
# Service processes likewise (games.service_processes): tests/games/test_service_processes.py
# turns them on, and the served site's tests run them as served.
SERVICE_PROCESSES = int(os.environ.get("SERVICE_PROCESSES", "0"))

# On Redis, a prefix of this run's own, so that groups left by another run (or by an earlier test
# whose table had the same key) never receive this run's messages.
if CHANNEL_LAYERS["default"]["BACKEND"] == "channels_redis.core.RedisChannelLayer":
    CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = f"test-{os.getpid()}-{TEST_DB_SUFFIX}"

# The cache (where login rate limits count) gets a prefix of this run's own on Redis too, so that
# two runs never see each other's counts and a run can empty its own (tests/conftest.py).
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    CACHES["default"]["KEY_PREFIX"] = f"test-{os.getpid()}-{TEST_DB_SUFFIX}-cache"
