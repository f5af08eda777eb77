#!/usr/bin/env bash
# Installs what is needed and runs every check: ruff, mypy (strict, with django-stubs, on the
# Django apps and the engine: the files and options of pyproject.toml) and pytest: the whole suite
# on the embedded default (SQLite, in-memory channel layer), in two parts (the browser tests and
# the others), then every test but the engine's and most browser tests (all but the games played
# in the browser) on PostgreSQL (127.0.0.1:5432) with the Redis channel layer (127.0.0.1:6379)
# when they answer, all side by side (TEST_PARALLEL=0: one after the other). Arguments are passed
# to every pytest run.
#
# The browser tests (tests/e2e) need Debian's Chromium at /usr/bin/chromium, and the test of the
# documented nginx configuration Debian's nginx; run as root, this script installs them when they
# are missing. Without PostgreSQL the second run is skipped with a message, except in CI
# (CI=true), where the script tries to start it and fails if it cannot.
# TEST_POSTGRES=0 skips the PostgreSQL run on purpose.

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

CHROMIUM=/usr/bin/chromium
NGINX=/usr/sbin/nginx
POSTGRES_URL="postgres://postgres@127.0.0.1:5432/gandengyan"
REDIS_TEST_URL="redis://127.0.0.1:6379/0"

failed=()
started=$SECONDS

step() {
    echo
    echo "== $* ($((SECONDS - started)) s)"
}

in_ci() {
    [ "${CI:-}" = "true" ]
}

# Debian's Chromium, for Playwright (which never downloads a browser of its own here).
step "chromium"
if [ -x "$CHROMIUM" ]; then
    echo "$CHROMIUM is there."
elif [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's chromium for the browser tests ..."
    if ! { apt-get update -qq || true; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei; } \
        >/tmp/gandengyan-chromium-install.log 2>&1; then
        tail -n 20 /tmp/gandengyan-chromium-install.log >&2
    fi
fi
if [ ! -x "$CHROMIUM" ]; then
    echo "No Chromium at $CHROMIUM, so the browser tests (tests/e2e) will be skipped." \
        "Install it as root with: apt-get install -y chromium" >&2
    in_ci && failed+=("chromium")
fi

# Debian's nginx, for the test of docs/deploy.md's configuration (tests/test_nginx.py, in the
# PostgreSQL run), installed the same way.
step "nginx"
if command -v nginx >/dev/null 2>&1 || [ -x "$NGINX" ]; then
    echo "nginx is there."
elif [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's nginx for the test of the documented configuration ..."
    if ! { apt-get update -qq || true; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx; } \
        >/tmp/gandengyan-nginx-install.log 2>&1; then
        tail -n 20 /tmp/gandengyan-nginx-install.log >&2
    fi
fi
if ! command -v nginx >/dev/null 2>&1 && [ ! -x "$NGINX" ]; then
    echo "No nginx, so tests/test_nginx.py will be skipped. Install it as root with:" \
        "apt-get install -y nginx" >&2
    in_ci && failed+=("nginx")
fi

step "ruff check ."
ruff check . || failed+=("ruff")

# What mypy checks, and how strictly, is in pyproject.toml ([tool.mypy]).
step "mypy"
mypy || failed+=("mypy")

# Screenshots of this run's browser tests only.
rm -rf .test-artifacts/screenshots

# The pytest runs go side by side (TEST_PARALLEL=0: one after the other): the SQLite run in two
# parts, the browser tests (which mostly wait for the browser and the bots' pauses) and all the
# others, beside the PostgreSQL run. Their databases, channel layers and caches are apart
# (TEST_DB_SUFFIX). Each part's output is shown when it ends; the slowest tests are listed.
sqlite_parts=("browser" "others")
declare -A sqlite_marks=([browser]="e2e" [others]="not e2e")
declare -A sqlite_pids=()
declare -A sqlite_logs=()

run_sqlite() {
    local part="$1"
    shift
    # 5: the arguments selected no test of this part, which is not a failure.
    TEST_DB_SUFFIX="_${part}" python -m pytest -m "${sqlite_marks[$part]}" --durations=15 "$@" \
        || [ "$?" -eq 5 ]
}

finish_sqlite() {
    local part status
    for part in "${sqlite_parts[@]}"; do
        [ -n "${sqlite_pids[$part]:-}" ] || continue
        status=0
        wait "${sqlite_pids[$part]}" || status=$?
        step "pytest on SQLite, the ${part} tests: their output"
        cat "${sqlite_logs[$part]}"
        rm -f "${sqlite_logs[$part]}"
        [ "$status" -eq 0 ] || failed+=("pytest (SQLite, ${part})")
    done
    sqlite_pids=()
}

step "pytest on SQLite: the whole suite"
for part in "${sqlite_parts[@]}"; do
    if [ "${TEST_PARALLEL:-1}" = "0" ]; then
        step "pytest on SQLite: the ${part} tests"
        run_sqlite "$part" "$@" || failed+=("pytest (SQLite, ${part})")
    else
        sqlite_logs[$part]="$(mktemp -t "gandengyan-sqlite-${part}.XXXXXX")"
        run_sqlite "$part" "$@" >"${sqlite_logs[$part]}" 2>&1 &
        sqlite_pids[$part]=$!
    fi
done
if [ "${#sqlite_pids[@]}" -gt 0 ]; then
    echo "Running in the background beside the PostgreSQL run; its output follows that run's."
    trap 'for pid in "${sqlite_pids[@]}"; do kill "$pid" 2>/dev/null || true; done' EXIT
fi

postgres_answers() {
    python - <<'EOF'
import sys

import psycopg

try:
    psycopg.connect(
        host="127.0.0.1", port=5432, user="postgres", dbname="postgres", connect_timeout=3
    ).close()
except psycopg.Error as error:
    print(f"PostgreSQL on 127.0.0.1:5432 does not answer: {error}".strip(), file=sys.stderr)
    sys.exit(1)
EOF
}

start_postgres() {
    local version
    version="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1 || true)"
    if [ -z "$version" ] || ! command -v pg_ctlcluster >/dev/null 2>&1; then
        echo "No PostgreSQL cluster to start on this machine." >&2
        return 1
    fi
    echo "Starting PostgreSQL $version ..."
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    for _ in $(seq 1 20); do
        postgres_answers 2>/dev/null && return 0
        sleep 1
    done
    postgres_answers
}

redis_answers() {
    python - <<'EOF'
import sys

import redis

try:
    redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=3).ping()
except redis.RedisError as error:
    print(f"Redis on 127.0.0.1:6379 does not answer: {error}", file=sys.stderr)
    sys.exit(1)
EOF
}

start_redis() {
    command -v redis-server >/dev/null 2>&1 || return 1
    echo "Starting Redis ..."
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no || true
    for _ in $(seq 1 10); do
        redis_answers 2>/dev/null && return 0
        sleep 1
    done
    redis_answers
}

# The browser tests the PostgreSQL run leaves to the SQLite run: pages, phones, edges, the policy.
BROWSER_TESTS_ONCE=()
for file in tests/e2e/test_*.py; do
    case "$file" in
        tests/e2e/test_tables.py | tests/e2e/test_doudizhu.py) ;;
        *) BROWSER_TESTS_ONCE+=("--ignore=$file") ;;
    esac
done

if [ "${TEST_POSTGRES:-1}" = "0" ]; then
    step "pytest on PostgreSQL: skipped (TEST_POSTGRES=0)"
else
    step "pytest on PostgreSQL and Redis: every test but the engine's"
    postgres_up=false
    if postgres_answers; then
        postgres_up=true
    elif in_ci && start_postgres; then
        postgres_up=true
    fi
    if $postgres_up; then
        redis_url=""
        if redis_answers || { in_ci && start_redis; }; then
            redis_url="$REDIS_TEST_URL"
        elif in_ci; then
            failed+=("redis")
        else
            echo "Redis does not answer: this run uses the in-memory channel layer." >&2
        fi
        # pytest-django creates (and drops) the test database test_gandengyan itself.
        status=0
        # The browser tests run whole on the embedded default, the topology scripts/serve.sh
        # serves; here only the games played through the browser, on PostgreSQL and Redis.
        DATABASE_URL="$POSTGRES_URL" REDIS_URL="$redis_url" \
            python -m pytest tests --ignore=tests/games/rules "${BROWSER_TESTS_ONCE[@]}" \
            --durations=15 "$@" \
            || status=$?
        # 5: the arguments selected no test that runs here, which is not a failure.
        if [ "$status" -ne 0 ] && [ "$status" -ne 5 ]; then
            failed+=("pytest (PostgreSQL)")
        fi
    elif in_ci; then
        echo "CI must run the database tests on PostgreSQL, and it could not be started." >&2
        failed+=("postgres")
    else
        echo "Skipped the PostgreSQL run: nothing answers on 127.0.0.1:5432." \
            "Start it (pg_ctlcluster --skip-systemctl-redirect \$(ls /etc/postgresql) main start)" \
            "and run ./scripts/test.sh again to test on PostgreSQL too." >&2
    fi
fi

finish_sqlite

echo
if [ -d .test-artifacts/screenshots ]; then
    echo "Screenshots of the browser tests: .test-artifacts/screenshots/"
fi
echo "Total: $((SECONDS - started)) s"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "Failed: ${failed[*]}" >&2
    exit 1
fi
