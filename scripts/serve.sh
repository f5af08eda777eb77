#!/usr/bin/env bash
# Installs what is needed, migrates the database (which creates the rooms), adds the demo accounts
# when DEBUG is on (manage.py seed_demo) and serves the site with daphne.
# HOST and PORT override the address (default 127.0.0.1:8000).

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"

python manage.py migrate --noinput
python manage.py seed_demo
echo "干瞪眼 Online: http://$HOST:$PORT/"
exec daphne -b "$HOST" -p "$PORT" gandengyan.asgi:application
