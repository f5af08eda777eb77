#!/usr/bin/env bash
# Installs what is needed, migrates the database (which creates the rooms), adds the demo accounts
# when DEBUG is on (manage.py seed_demo) and serves the site with daphne, with the table runner
# (manage.py run_tables: bots, turn deadlines and 托管) in a process of its own beside it.
# HOST and PORT override the address (default 127.0.0.1:8000).

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"

python manage.py migrate --noinput
python manage.py seed_demo

# The runner acts on deadlines that passed while the site was down as soon as it starts; it stops
# with the server.
python manage.py run_tables &
runner=$!
trap 'kill "$runner" 2>/dev/null || true' EXIT INT TERM

echo "干瞪眼 Online: http://$HOST:$PORT/"
# daphne's own runner stays off: the one above does the work (several would be safe, just idle).
# No time limit on a socket: a table tab may stay open for a whole day and more.
TABLE_RUNNER_IN_PROCESS=false daphne -b "$HOST" -p "$PORT" --websocket_timeout -1 \
    gandengyan.asgi:application
