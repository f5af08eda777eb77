"""Settings for the test suite: the normal settings with fast, isolated overrides."""

from .settings import *  # noqa: F403
from .settings import BASE_DIR, DATABASES

SECRET_KEY = "test-only-secret-key"

# A real password hash costs most of a second; tests need none of that strength.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# An explicit test database name, so that a live server in another process finds the same
# database. SQLite gets a file (an in-memory database cannot be shared between processes).
TEST_ARTIFACTS_DIR = BASE_DIR / ".test-artifacts"
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    TEST_ARTIFACTS_DIR.mkdir(exist_ok=True)
    DATABASES["default"]["TEST"] = {"NAME": str(TEST_ARTIFACTS_DIR / "test-db.sqlite3")}
else:
    DATABASES["default"]["TEST"] = {"NAME": "test_gandengyan"}

# Plain storage: tests must not depend on a collectstatic manifest.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
