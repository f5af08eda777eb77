"""Settings for 干瞪眼 Online.

Every value that differs between machines is read from the environment (or from an optional
``.env`` file in the repository root). The embedded defaults run the site for development:
DEBUG on, SQLite in ``db.sqlite3`` and the in-memory channel layer.

Environment variables:

- ``DEBUG``: ``true``/``false``, default ``true``.
- ``SECRET_KEY``: required when DEBUG is off; a fixed development key is used otherwise.
- ``DATABASE_URL``: e.g. ``postgres://user@127.0.0.1:5432/gandengyan``; default SQLite.
- ``REDIS_URL``: e.g. ``redis://127.0.0.1:6379/0``; when set, Channels uses Redis.
- ``ALLOWED_HOSTS``: comma-separated, default ``127.0.0.1,localhost``.
- ``CSRF_TRUSTED_ORIGINS``: comma-separated origins, e.g. ``https://example.com``.
- With DEBUG off, HTTPS is required (``SECURE_SSL_REDIRECT``, secure cookies, HSTS for a year);
  each of ``SECURE_SSL_REDIRECT``, ``SESSION_COOKIE_SECURE``, ``CSRF_COOKIE_SECURE`` and
  ``SECURE_HSTS_SECONDS`` can be set from the environment.
- ``DATABASE_POOL_MIN_SIZE``, ``DATABASE_POOL_MAX_SIZE``: on PostgreSQL, the connections each
  process keeps open in its pool, and the most it opens (default 2 and 10): every page request,
  socket call and table runner's pass of the process takes one for its length and gives it back.
  docs/deploy.md adds up what a worker holds.
- ``DATABASE_POOL_TIMEOUT``: seconds a request or a move waits for a free connection of its pool
  before it fails, default 10.
- ``TABLE_MOVES_CONNECTIONS``: on PostgreSQL, the most connections of the pool a worker's event
  loop makes players' moves on (games.loop_moves), default 4.
- ``CONN_MAX_AGE``: on SQLite, seconds a connection is kept open, default 60 (PostgreSQL's come
  from the pools above instead).
- ``TABLE_RUNNER_IN_PROCESS``: whether each daphne process runs a table runner, default true.
- ``TABLE_MOVES_ON_LOOP``: players' moves on the event loop on PostgreSQL (games.loop_moves),
  default true.
- ``TABLE_MOVES_PREPARED``: those moves' statements prepared by psycopg once per connection,
  default true; turn it off behind a pooler that hands out sessions per transaction and does not
  keep protocol-level prepared statements (PgBouncer before 1.21, or ``max_prepared_statements``
  at 0).
- ``STATIC_ROOT``: where ``collectstatic`` puts the static files, default ``staticfiles/``.
- ``LOG_LEVEL``: the level of the log lines written to standard output, default ``INFO``.
- ``EMAIL_HOST``, ``EMAIL_PORT`` (default 587), ``EMAIL_HOST_USER``, ``EMAIL_HOST_PASSWORD``,
  ``EMAIL_USE_TLS`` (STARTTLS, default true), ``EMAIL_USE_SSL`` (default false),
  ``EMAIL_TIMEOUT`` (seconds, default 10) and ``DEFAULT_FROM_EMAIL``: the SMTP server that sends
  password resets and address confirmations. Without ``EMAIL_HOST``, mail is written to the
  console while DEBUG is on, and goes to the machine's own mail server (localhost, port 25, no
  TLS, as Django does by default) with DEBUG off. Requests queue their mail in the database and
  the mail worker (``manage.py run_mail``) sends it.
- ``MAIL_QUEUE_SECONDS`` (default 5): how often the mail worker looks for new mail;
  ``MAIL_RETRY_SECONDS`` (default 300) and ``MAIL_MAX_RETRIES`` (default 288): how often, and how
  many times, it tries again a mail the server refused or did not answer.
- ``TRUSTED_PROXY_COUNT``: how many proxies in front of the site append to X-Forwarded-For
  (1 behind nginx, docs/deploy.md), so that login rate limits count the client's address;
  default 0 (the header is ignored).
"""

from pathlib import Path
from typing import Any

import environ
from csp.constants import NONE, SELF

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
_dotenv = BASE_DIR / ".env"
if _dotenv.is_file():
    environ.Env.read_env(_dotenv)

DEBUG = env.bool("DEBUG", default=True)

if DEBUG:
    SECRET_KEY = env.str(
        "SECRET_KEY", default="django-insecure-development-key-do-not-use-in-production"
    )
else:
    # No default: a deployment without a secret key must fail loudly.
    SECRET_KEY = env.str("SECRET_KEY")

ALLOWED_HOSTS: list[str] = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS: list[str] = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# HTTPS in production (DEBUG off): behind a proxy that terminates TLS and says so in
# X-Forwarded-Proto (docs/deploy.md). Each can be turned off from the environment.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
# The health check answers a load balancer that asks a worker over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

INSTALLED_APPS = [
    # daphne first: its runserver replaces Django's with an ASGI one.
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
    # accounts before allauth: its templates (account/*.html) override allauth's.
    "accounts",
    "allauth",
    "allauth.account",
    "games",
]

MIDDLEWARE = [
    # First, so that every log line of the request, a redirect's included, carries its id.
    "gandengyan.log_context.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "gandengyan.urls"

TEMPLATES: list[dict[str, Any]] = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        # template_partials replaces APP_DIRS with its own loader chain at start-up.
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
    {
        # The table's live fragments only (games/frames/jinja2.py says why).
        "NAME": "fragments",
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "games.frames.jinja2.environment"},
    },
]

ASGI_APPLICATION = "gandengyan.asgi.application"

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
# How long a request or a move waits for a connection of its pool, rather than psycopg's 30 s:
# with the database down, a page fails in a time a person still waits for.
DATABASE_POOL_TIMEOUT = env.float("DATABASE_POOL_TIMEOUT", default=10.0)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Under ASGI each request runs in a thread of its own, and a connection kept per thread would
    # stay open after its thread had gone: each process takes its connections from one pool
    # instead, which Django allows only with CONN_MAX_AGE at 0 (given back after each use).
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env.int("DATABASE_POOL_MIN_SIZE", default=2),
        "max_size": env.int("DATABASE_POOL_MAX_SIZE", default=10),
        "timeout": DATABASE_POOL_TIMEOUT,
    }
else:
    # Keep connections open between requests and socket messages: Channels closes "old"
    # connections around every database call of a consumer, and with the default of 0 each call
    # would open the database file again.
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
# No check of a connection as a consumer call takes it (an extra round trip per frame and per
# action); a connection the database dropped fails one call, and is then replaced.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool("CONN_HEALTH_CHECKS", default=False)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Writers take the lock when their transaction begins, so two writers queue instead of
    # failing with "database is locked" when one upgrades a read lock (players, bots, runner).
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20}
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CHANNEL_LAYERS: dict[str, dict[str, Any]] = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                # No read timeout: a worker's receive waits in BZPOPMIN for up to 5 s, and
                # redis-py's own 5 s default would end that wait with an error that closes
                # an idle table's sockets.
                "hosts": [{"address": REDIS_URL, "max_connections": 1000, "socket_timeout": None}],
                "capacity": 1000,
            },
        },
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

AUTH_USER_MODEL = "accounts.User"

# Coins: the welcome grant of a new player, and relief coins (救济金) for players below the lowest
# room's minimum, a limited number of times per day (days in TIME_ZONE).
STARTING_COINS = env.int("STARTING_COINS", default=10_000)
RELIEF_COINS = env.int("RELIEF_COINS", default=2_000)
RELIEF_CLAIMS_PER_DAY = env.int("RELIEF_CLAIMS_PER_DAY", default=3)
# The most coins a wallet may hold, far below what the ledger's 64-bit columns can (about 9.2e18),
# and the most coins one staff adjustment may add or take.
MAX_BALANCE = env.int("MAX_BALANCE", default=1_000_000_000_000_000)
MAX_STAFF_ADJUSTMENT = env.int("MAX_STAFF_ADJUSTMENT", default=100_000_000)
# Daily rewards (days in TIME_ZONE): the check-in's coins by day of the streak, the last for every
# day after it, and each daily task's goal and coins (keys: accounts.models.RewardKind).
CHECK_IN_COINS = (100, 150, 200, 250, 300, 350, 500)
DAILY_TASKS = {
    "play_games": {"goal": 3, "coins": 300},
    "win_game": {"goal": 1, "coins": 300},
    "use_bomb": {"goal": 1, "coins": 200},
}

# The leaderboards (排行榜): how many players each board lists, and the games a player must have
# finished of a game to appear on its board of win rates.
LEADERBOARD_SIZE = 50
LEADERBOARD_MIN_GAMES = env.int("LEADERBOARD_MIN_GAMES", default=10)

# Where each game's seed comes from (games.seeds); only tests name another source.
GAME_SEED_SOURCE = "games.seeds.secure_seed"

# Tables: bots take the free seats once a player has waited this long, and pause before moving.
BOT_FILL_SECONDS = env.int("BOT_FILL_SECONDS", default=5)
# The games the site plays: the ENGINE of each game's package (games.engines).
GAME_ENGINES = [
    "games.rules.gandengyan.ENGINE",
    "games.rules.doudizhu.ENGINE",
    "games.rules.shanghai.ENGINE",
]
# How a game looks at the table, when its templates need Python (games.presentation).
GAME_PRESENTATIONS = {
    "gandengyan": "games.presentation.gandengyan.PRESENTATION",
    "doudizhu": "games.presentation.doudizhu.PRESENTATION",
    "shanghai": "games.presentation.shanghai.PRESENTATION",
}

BOT_MOVE_DELAY_SECONDS = env.float("BOT_MOVE_DELAY_SECONDS", default=1.0)
# The garbage collector's thresholds in a worker (games.heap, docs/performance.md decision 20):
# young collections after 50,000 new objects instead of 700, so that what a message makes dies
# by its count before a collection promotes it. "" keeps Python's (700, 10, 10).
GC_THRESHOLDS: list[int] = [
    int(n) for n in env.list("GC_THRESHOLDS", default=["50000", "20", "1000"]) if n
]
# And, on the event loop of a worker with table sockets, a young collection this often (games.heap,
# decision 27): each pass then walks a few thousand objects, not the tens of thousands the count
# lets pile up. 0: only the thresholds.
YOUNG_COLLECTION_SECONDS = env.float("YOUNG_COLLECTION_SECONDS", default=0.2)
# How long a thread of a worker may hold the interpreter's lock while another waits for it
# (games.db_threads, decision 28): Python's 5 ms let a busy database thread keep every socket of
# the event loop waiting that long.
GIL_SWITCH_SECONDS = env.float("GIL_SWITCH_SECONDS", default=0.001)
# Bots' choices and the Hint button's are made in this many processes of their own per process
# that asks (games.thinking); 0: in the asking thread.
THINKING_PROCESSES = env.int("THINKING_PROCESSES", default=1)
# On PostgreSQL, a worker's sockets make a game's end and the next deal through the services in
# this many processes of their own (games.service_processes, decision 31), not in a thread that
# holds the interpreter's lock against the event loop; 0: in the socket's database thread.
SERVICE_PROCESSES = env.int("SERVICE_PROCESSES", default=1)
# A deal shown in stages (斗地主's, for 明牌 while it is dealt) shows the next one this long after
# the last, by the table's clock (the first this long after the deal).
DEAL_STAGE_SECONDS = env.float("DEAL_STAGE_SECONDS", default=2.0)
# A person's time to bid (叫地主/抢地主) and to choose 加倍; the play's is the room's.
BID_SECONDS = env.int("BID_SECONDS", default=15)
DOUBLE_SECONDS = env.int("DOUBLE_SECONDS", default=10)
# After a game, a player who has not pressed 再来一局 within this long leaves the seat, so that
# one who walked away does not hold up the others.
READY_SECONDS = env.int("READY_SECONDS", default=30)
# The table runner (games.runner) seats bots and makes their moves. By default each daphne
# process runs one, started by the first table socket; `manage.py run_tables` runs it alone.
TABLE_RUNNER_IN_PROCESS = env.bool("TABLE_RUNNER_IN_PROCESS", default=True)
TABLE_RUNNER_INTERVAL_SECONDS = env.float("TABLE_RUNNER_INTERVAL_SECONDS", default=0.25)
# Messages a user may send to the table sockets, counted across workers when the cache is Redis
# (games.socket_limits).
TABLE_MESSAGE_RATE = env.str("TABLE_MESSAGE_RATE", default="10/second;100/minute")
# A table socket that has sent nothing for this long looks at the table again (games.consumers).
TABLE_RESYNC_SECONDS = env.float("TABLE_RESYNC_SECONDS", default=15.0)
# How long that look waits for the change's own notice, which may be on its way, before it
# sends a frame of its own.
TABLE_RESYNC_GRACE_SECONDS = env.float("TABLE_RESYNC_GRACE_SECONDS", default=2.0)
# Open table sockets, counted in the cache across workers (games.socket_limits): per user (all
# tables, all tabs) and spectators per table; more are refused with close code 4429. A socket
# holds its place for TABLE_SOCKET_SLOT_SECONDS and renews it as it looks at a quiet table, so
# the places of a killed worker's sockets free themselves; it must be well above the resync.
TABLE_SOCKETS_PER_USER = env.int("TABLE_SOCKETS_PER_USER", default=5)
TABLE_SPECTATORS_MAX = env.int("TABLE_SPECTATORS_MAX", default=50)
TABLE_SOCKET_SLOT_SECONDS = env.float("TABLE_SOCKET_SLOT_SECONDS", default=60.0)
# A player's move is made on the event loop of its socket on PostgreSQL (games.loop_moves), on
# at most TABLE_MOVES_CONNECTIONS connections of the loop's own: moves beyond them wait for one,
# which takes far less than a move (two round trips).
TABLE_MOVES_ON_LOOP = env.bool("TABLE_MOVES_ON_LOOP", default=True)
TABLE_MOVES_CONNECTIONS = env.int("TABLE_MOVES_CONNECTIONS", default=4)
TABLE_MOVES_PREPARED = env.bool("TABLE_MOVES_PREPARED", default=True)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]

# django-allauth: sign in with a username; an email address is optional.
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "optional"
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
LOGIN_REDIRECT_URL = "/"
ACCOUNT_LOGOUT_REDIRECT_URL = "/"

# Mail (password resets, address confirmations) goes through the SMTP server of the environment;
# in development without one, to the console, and in production to the machine's own (Django's
# default): never to the log, where a reset link would be read by whoever reads the logs.
EMAIL_HOST = env.str("EMAIL_HOST", default="")
_local_mail_server = not EMAIL_HOST and not DEBUG
if _local_mail_server:
    EMAIL_HOST = "localhost"
# A provider's server: the submission port with STARTTLS, so that the password never travels in
# the clear (unless the connection is TLS from the start: Django refuses both at once).
EMAIL_PORT = env.int("EMAIL_PORT", default=25 if _local_mail_server else 587)
EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_SSL = env.bool("EMAIL_USE_SSL", default=False)
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=not (EMAIL_USE_SSL or _local_mail_server))
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="干瞪眼 Online <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# A request only queues its mail (django-mailer, in the database), so that a mail server that is
# down or slow costs no request and loses no mail; the mail worker, `manage.py run_mail`, sends
# the queue through MAILER_EMAIL_BACKEND (the environment's EMAIL_BACKEND, when it names one).
INSTALLED_APPS.append("accounts.mail_queue.MailQueueConfig")
EMAIL_BACKEND = "mailer.backend.DbBackend"
MAILER_EMAIL_BACKEND = env.str(
    "EMAIL_BACKEND",
    default=(
        "django.core.mail.backends.smtp.EmailBackend"
        if EMAIL_HOST
        else "django.core.mail.backends.console.EmailBackend"
    ),
)
# How often the worker looks for new mail, in seconds.
MAILER_EMPTY_QUEUE_SLEEP = env.float("MAIL_QUEUE_SECONDS", default=5.0)
# A mail the server refused or did not answer is put back in line this often, at most this many
# times (by default every 5 minutes for a day); after that it stays in the queue for staff to see.
MAIL_RETRY_SECONDS = env.float("MAIL_RETRY_SECONDS", default=300.0)
MAILER_EMAIL_MAX_RETRIES = env.int("MAIL_MAX_RETRIES", default=288)
# A pass stops at its first failure: the server is most likely down, and each further mail would
# wait EMAIL_TIMEOUT for the same answer (on SQLite, holding the database's write lock).
MAILER_EMAIL_MAX_DEFERRED = 1
# No lock file: one left by a killed worker would stop all mail, and each mail is already sent
# under a lock on its row (PostgreSQL) or the database's write lock (SQLite), so that two
# workers never send it twice.
MAILER_USE_FILE_LOCK = False
# The log of sending attempts keeps no copy of the mail: a reset link in it would stay readable
# in the database and the admin long after the mail was sent.
MAILER_EMAIL_LOG_MESSAGE_DATA = False

# --- Access ------------------------------------------------------------------------------------
# The Content-Security-Policy, login rate limits and the cache they count in (docs/security.md).

# django-csp sets the policy on every response, right after SecurityMiddleware.
INSTALLED_APPS.append("csp")
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
    "csp.middleware.CSPMiddleware",
)
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        # No inline script anywhere: templates load static files only (the admin's data blocks
        # are JSON, which is never run), and htmx's eval is off (templates/base.html).
        "script-src": [SELF],
        # No inline styles either: htmx's indicator <style> is off (templates/base.html), and the
        # scripts that move things (the turn clock's bar) set element.style, which CSP allows.
        "style-src": [SELF],
        # 'self' matches the table's websocket on the same host and port too (ws: for a page on
        # http:, wss: on https:), as CSP Level 3 says; tests/e2e/test_csp.py checks it in Chromium.
        "connect-src": [SELF],
        "img-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

# Rate limits of django-allauth (per client address, per username or per user), counted in the
# cache below. A failed login counts against the address, the username from that address and the
# username from anywhere (accounts.adapter.AccountAdapter.pre_authenticate).
ACCOUNT_RATE_LIMITS = {
    # Login forms sent from one address, whatever they hold (reading the page is not counted).
    "login": "30/m/ip",
    # Failed logins: 10 a minute from one address, and 5 in 5 minutes for one username from one
    # address, after which even the right password is refused there until the window has
    # passed; the owner, from another address, still gets in.
    "login_failed": "10/m/ip,5/5m/key",
    # Failed logins of one username from every address together: past 30 an hour a right
    # password is not enough, and the login needs a code mailed to the account's verified
    # address, or a browser that signed in to it before (docs/security.md).
    "login_failed_per_username": "30/h/key",
    "signup": "20/m/ip",
    "reset_password": "20/m/ip,5/m/key",
    "change_password": "5/m/user",
}
# Behind nginx the client's address is the last one in X-Forwarded-For; with 0 the header is
# ignored (it could be forged) and every client would share the proxy's address.
ALLAUTH_TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)

# The counts must be shared by every worker, so with Redis they live there, under a key prefix
# of their own beside the channel layer's keys; without Redis, in this process's memory.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "gandengyan-cache",
        },
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# --- end of Access -----------------------------------------------------------------------------

# Internationalisation: Chinese first, English as the alternative.
LANGUAGE_CODE = "zh-hans"
LANGUAGES = [
    ("zh-hans", "简体中文"),
    ("en", "English"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "Asia/Shanghai"
USE_TZ = True

# Static files: daphne serves none itself, so whitenoise does.
STATIC_URL = "static/"
STATICFILES_DIRS = [
    BASE_DIR / "static",
    # Front-end packages from the npm registry (package.json, installed by scripts/setup.sh).
    ("vendor/idiomorph", BASE_DIR / "node_modules" / "idiomorph" / "dist"),
]
# Where collectstatic gathers the files that whitenoise serves with DEBUG off.
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        ),
    },
}
# In development whitenoise serves straight from the finders, so collectstatic is not needed.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
# The web app manifest (static/icons/site.webmanifest), which whitenoise does not know.
WHITENOISE_MIMETYPES = {".webmanifest": "application/manifest+json"}

# Logs: every line to standard output (the process manager keeps it: journald, docker), with the
# id of its request and of its table when there is one (gandengyan.log_context).
LOG_LEVEL = env.str("LOG_LEVEL", default="INFO").upper()
LOGGING: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "gandengyan.log_context.ContextFilter"}},
    "formatters": {
        "console": {"format": "%(asctime)s %(levelname)s %(name)s%(context)s: %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "filters": ["context"],
            "formatter": "console",
        },
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # Django's own handlers (a console one while DEBUG is on, mail to ADMINS) would repeat each
    # line: its loggers go to the root's handler only.
    "loggers": {"django": {"handlers": [], "level": LOG_LEVEL, "propagate": True}},
}

# Project paths used by views.
DOCS_DIR = BASE_DIR / "docs"
