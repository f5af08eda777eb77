#!/usr/bin/env bash
# Installs what is needed, migrates the database (which creates the rooms), adds the demo accounts
# when DEBUG is on (manage.py seed_demo); with DEBUG off, refuses to serve when the deployment
# checks fail (manage.py check --deploy: a demo account that still opens with its demo password,
# among others) and gathers the static files (collectstatic). Then serves the site with one
# daphne process, which runs the table runner (bots, turn deadlines and 托管) on its own event
# loop: with the embedded in-memory channel layer only a runner inside daphne can reach the table
# sockets. Beside it runs the mail worker (manage.py run_mail), which sends the mail that requests
# queue; both stop when the script is stopped, and the worker stops when daphne does.
# HOST and PORT override the address (default 127.0.0.1:8000).

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"

python manage.py migrate --noinput
python manage.py seed_demo

debug="$(python -c '
import os
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gandengyan.settings")
django.setup()
from django.conf import settings
print("on" if settings.DEBUG else "off")
')"
if [ "$debug" = "off" ]; then
    python manage.py check --deploy --fail-level ERROR
    # Without DEBUG, whitenoise serves only what collectstatic gathered (with its manifest of
    # hashed names); every page would fail without it.
    python manage.py collectstatic --noinput --verbosity 0
fi

# The script's processes run in the background and are stopped with it (Ctrl-C, SIGTERM) or when
# daphne ends, so that no mail worker is left behind.
children=()
stop_children() {
    if [ "${#children[@]}" -gt 0 ]; then
        kill -TERM "${children[@]}" 2>/dev/null || true
        wait "${children[@]}" 2>/dev/null || true
    fi
}
trap stop_children EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The mail worker blocks on the mail server while it sends, so it runs in a process of its own
# rather than on daphne's event loop; mail that waits in the queue goes out when it starts.
python manage.py run_mail &
children+=($!)

# daphne has no start-up hook: the first request starts its table runner, which then acts on
# the deadlines that passed while the site was down. So knock once it listens, then say where.
python - "$HOST" "$PORT" <<'EOF' &
import sys
import time
import urllib.error
import urllib.request


class Answered(urllib.request.HTTPRedirectHandler):
    """A redirect (to HTTPS, with DEBUG off) is an answer: it is not followed."""

    def redirect_request(self, *args, **kwargs):
        return None


host, port = sys.argv[1], sys.argv[2]
address = f"[{host}]" if ":" in host else host
if host in ("0.0.0.0", "::"):
    address = "127.0.0.1"
knock = urllib.request.build_opener(Answered)
for _ in range(600):
    try:
        knock.open(f"http://{address}:{port}/", timeout=5).close()
    except urllib.error.HTTPError:
        pass  # it answered
    except OSError:
        time.sleep(0.1)
        continue
    print(f"干瞪眼 Online: http://{host}:{port}/ (bots, clocks and 托管 run in this process)",
          flush=True)
    break
EOF
children+=($!)

# No time limit on a socket: a table tab may stay open for a whole day and more.
daphne -b "$HOST" -p "$PORT" --websocket_timeout -1 gandengyan.asgi:application &
daphne_pid=$!
children+=("$daphne_pid")
wait "$daphne_pid"
