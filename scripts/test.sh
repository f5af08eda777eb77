#!/usr/bin/env bash
# Installs what is needed and runs every check: ruff, mypy --strict on the rules engine, pytest.
# Arguments are passed to pytest. Exits non-zero when any check fails.

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

failed=()

echo "== ruff check ."
ruff check . || failed+=("ruff")

if [ -d games/rules ]; then
    echo "== mypy --strict games/rules"
    mypy --strict games/rules || failed+=("mypy")
else
    echo "== mypy: skipped, games/rules does not exist yet"
fi

echo "== pytest"
python -m pytest "$@" || failed+=("pytest")

if [ "${#failed[@]}" -gt 0 ]; then
    echo "Failed: ${failed[*]}" >&2
    exit 1
fi
