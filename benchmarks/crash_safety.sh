#!/usr/bin/env bash
# The big run of tests/test_crash_safety.py: two daphne workers and two table runners on
# PostgreSQL and Redis, killed with SIGKILL at random moments while people and bots play, until
# 100 games have ended and the server was killed at 100 moments at least (CRASH_KILL_MOMENTS and
# CRASH_GAMES change them, CRASH_SEED the seed). It prints the figures docs/security.md quotes;
# the test suite runs the same test with its 100 games only.
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/setup.sh"

export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/gandengyan}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"
export CRASH_KILL_MOMENTS="${CRASH_KILL_MOMENTS:-100}"
export TEST_DB_SUFFIX="${TEST_DB_SUFFIX:-_crash}"

python -m pytest tests/test_crash_safety.py -p no:randomly -s "$@"
