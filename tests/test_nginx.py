"""docs/deploy.md's nginx configuration, as the page prints it, in front of two daphne workers
and the table runner on PostgreSQL and Redis with the production settings (DEBUG off): pages,
static files, the health check and a table's socket all pass through it, and a person plays a
whole game through it while the worker holding their socket is killed (SIGKILL)."""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
import websockets
from django.conf import settings
from django.db import connection
from django.test import Client

from accounts.models import LedgerEntry, LedgerReason
from games import services
from games.models import Game, Room, Table
from games.selectors import game_replay_steps
from tests.games.helpers import make_player, make_room
from tests.games.live import session_cookie, version_of
from tests.test_workers import Worker

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

DEPLOY_DOC = settings.BASE_DIR / "docs" / "deploy.md"
HOST = "gandengyan.example"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"{what} stopped: {process.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"{what} did not listen on {port}")


def the_documented_nginx_config() -> str:
    """The ```nginx block of docs/deploy.md, exactly as a reader copies it."""
    [block] = re.findall(r"```nginx\n(.*?)```", DEPLOY_DOC.read_text(), re.S)
    return str(block)


def replace_once(text: str, pattern: str, replacement: str) -> str:
    """Each change to the documented configuration must find what it changes, once: a doc that
    no longer says it fails the test instead of going untested."""
    changed, count = re.subn(pattern, lambda _: replacement, text, flags=re.M)
    assert count == 1, f"docs/deploy.md's nginx block no longer has {pattern!r}"
    return changed


def config_for_test(
    documented: str, *, workers: list[int], https: int, http_port: int, certificate: Path
) -> str:
    """The documented configuration with this machine's addresses: the upstream's servers are
    the test's workers, the ports free ones and the certificate a self-signed one; everything
    else (the upgrade, the headers, the timeouts, the redirect) as documented."""
    servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+( [^;]*)?;\n", documented, re.M)
    assert len(servers) >= 2, "the upstream block lists its workers"
    options = servers[0]
    without = re.sub(r"^\s*server 127\.0\.0\.1:\d+[^;]*;\n", "", documented, flags=re.M)
    ours = "".join(f"    server 127.0.0.1:{port}{options};\n" for port in workers)
    config = replace_once(without, r"^    least_conn;\n", "    least_conn;\n" + ours)
    config = replace_once(config, r"listen 443 ssl http2;", f"listen 127.0.0.1:{https} ssl http2;")
    config = replace_once(config, r"listen 80;", f"listen 127.0.0.1:{http_port};")
    config = replace_once(config, r"ssl_certificate\s+\S+;", f"ssl_certificate {certificate};")
    return replace_once(
        config, r"ssl_certificate_key\s+\S+;", f"ssl_certificate_key {certificate};"
    )


def nginx_conf(site: str, directory: Path) -> str:
    # Run as root (CI), nginx's workers would become nobody, who cannot enter pytest's
    # temporary folders.
    user = "user root;\n" if os.geteuid() == 0 else ""
    temp = "\n".join(
        f"    {kind}_temp_path {directory / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"{user}daemon off;\nworker_processes 1;\npid {directory / 'nginx.pid'};\n"
        f"error_log {directory / 'error.log'} warn;\n"
        "events { worker_connections 256; }\n"
        f"http {{\n    access_log {directory / 'access.log'};\n{temp}\n{site}\n}}\n"
    )


@dataclass
class Site:
    https: int
    http: int
    certificate: Path
    workers: list[Worker] = field(default_factory=list)

    def tls(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self.certificate))
        # The certificate is for gandengyan.example; the test connects to 127.0.0.1.
        context.check_hostname = False
        return context

    def get(
        self, path: str, headers: dict[str, str] | None = None
    ) -> tuple[http.client.HTTPResponse, bytes]:
        connection = http.client.HTTPSConnection(
            "127.0.0.1", self.https, context=self.tls(), timeout=30
        )
        try:
            connection.request("GET", path, headers={"Host": HOST, **(headers or {})})
            response = connection.getresponse()
            return response, response.read()
        finally:
            connection.close()


def run(command: list[str], env: dict[str, str] | None = None) -> None:
    result = subprocess.run(
        command, cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    if not Path(NGINX).exists():
        pytest.skip("needs nginx: apt-get install -y nginx (./scripts/test.sh does, as root)")
    if not os.environ.get("REDIS_URL"):
        pytest.skip("needs REDIS_URL: the workers and the runner share tables through Redis")
    if shutil.which("openssl") is None:
        pytest.skip("needs openssl for the test's certificate")
    database = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.server_settings",
        "TEST_CHANNEL_PREFIX": f"nginx{os.getpid()}-{settings.TEST_DB_SUFFIX}",
        "DATABASE_URL": (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/"
            f"{database['NAME']}"
        ),
        # The documented production settings (docs/deploy.md).
        "DEBUG": "false",
        "SECRET_KEY": settings.SECRET_KEY,
        "ALLOWED_HOSTS": HOST,
        "CSRF_TRUSTED_ORIGINS": f"https://{HOST}",
        "TABLE_RUNNER_IN_PROCESS": "false",
        "TRUSTED_PROXY_COUNT": "1",
        "STATIC_ROOT": str(tmp_path / "staticfiles"),
        "LOG_LEVEL": "WARNING",
        # Bots sit down at once and move quickly: the test waits for the runner's deal.
        "BOT_FILL_SECONDS": "1",
        "BOT_MOVE_DELAY_SECONDS": "0.05",
    }
    certificate = tmp_path / "site.pem"
    run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", f"/CN={HOST}", "-keyout", str(certificate), "-out", str(certificate)]
    )
    run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], env=env)

    processes: list[subprocess.Popen[bytes]] = []
    workers: list[Worker] = []
    try:
        ports = [free_port(), free_port()]
        for port in ports:
            worker = subprocess.Popen(
                [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
                + ["--websocket_timeout", "-1", "gandengyan.asgi:application"],
                cwd=settings.BASE_DIR,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            processes.append(worker)
            workers.append(Worker(port, worker))
        processes.append(
            subprocess.Popen(
                [sys.executable, "manage.py", "run_tables"],
                cwd=settings.BASE_DIR,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        for port, worker in zip(ports, processes, strict=False):
            wait_for_port(port, worker, "a daphne worker")

        https, http_port = free_port(), free_port()
        conf = tmp_path / "nginx.conf"
        site_config = config_for_test(
            the_documented_nginx_config(),
            workers=ports,
            https=https,
            http_port=http_port,
            certificate=certificate,
        )
        conf.write_text(nginx_conf(site_config, tmp_path))
        nginx_args = [NGINX, "-p", str(tmp_path), "-e", str(tmp_path / "error.log"), "-c"]
        run([*nginx_args, str(conf), "-t"])
        nginx = subprocess.Popen([*nginx_args, str(conf)])
        processes.append(nginx)
        wait_for_port(https, nginx, "nginx")
        yield Site(https=https, http=http_port, certificate=certificate, workers=workers)
    finally:
        # A worker the test killed is reaped here too (poll), whatever the test's outcome.
        for process in reversed(processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        forget_redis_keys(env["TEST_CHANNEL_PREFIX"])


def forget_redis_keys(prefix: str) -> None:
    """Delete what the processes left in Redis under the run's prefix (tests.server_settings):
    the groups and socket places of a killed worker's sockets would otherwise stay there until
    they expire."""
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    try:
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def test_pages_static_files_health_and_a_table_socket_pass_through_nginx(site: Site) -> None:
    # A page, in Chinese, over HTTPS: no redirect loop, since nginx says the scheme.
    response, body = site.get("/", headers={"X-Request-ID": "from-the-client"})
    assert response.status == 200
    page = body.decode()
    assert "干瞪眼" in page
    assert response.getheader("Strict-Transport-Security")
    # The request id is nginx's own ($request_id), which replaced the client's.
    request_id = response.getheader("X-Request-ID") or ""
    assert re.fullmatch(r"[0-9a-f]{32}", request_id), request_id

    # The page's style sheet, by its collected (hashed) name, served by whitenoise behind nginx.
    stylesheet = re.search(r'href="(/static/css/site\.[0-9a-f]+\.css)"', page)
    assert stylesheet, "the page links its hashed style sheet"
    css, css_body = site.get(stylesheet.group(1))
    assert css.status == 200
    assert css.getheader("Content-Type", "").startswith("text/css")
    assert b"--felt" in css_body
    icon, _ = site.get("/static/icons/site.webmanifest")
    assert icon.status == 200

    health, health_body = site.get("/healthz")
    assert health.status == 200
    assert b'"status": "ok"' in health_body

    # Plain HTTP goes to HTTPS.
    plain = http.client.HTTPConnection("127.0.0.1", site.http, timeout=30)
    plain.request("GET", "/rules/", headers={"Host": HOST})
    redirect = plain.getresponse()
    assert redirect.status == 301
    assert redirect.getheader("Location") == f"https://{HOST}/rules/"
    plain.close()

    # A player alone at a table: the socket through nginx gets the table, then the frame of
    # the deal the runner makes once bots have sat down (runner → Redis → worker → nginx).
    room = make_room(code="nginx")
    user = make_player("zhaoliu")
    table, _ = services.table_play(user=user, room=room)
    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"].value
    frames = asyncio.run(_watch_the_deal(site, table.pk, cookie))
    assert version_of(frames[0]) != version_of(frames[-1])
    assert Game.objects.filter(table=table).exists()
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING


async def _watch_the_deal(site: Site, table_id: int, cookie: str) -> list[str]:
    frames: list[str] = []
    async with websockets.connect(
        f"wss://127.0.0.1:{site.https}/ws/tables/{table_id}/",
        ssl=site.tls(),
        origin=websockets.Origin(f"https://{HOST}"),
        additional_headers={"Cookie": f"sessionid={cookie}; django_language=en"},
        open_timeout=15,
    ) as socket_:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            text = await asyncio.wait_for(socket_.recv(), timeout=30)
            assert isinstance(text, str)
            if version_of(text) is None:
                continue
            frames.append(text)
            if 'data-card="' in text:
                return frames
    raise AssertionError(f"no dealt hand reached the socket through nginx: {len(frames)} frames")


# The room's turn clock: a turn lost with the killed worker is played for soon, and the person
# takes the seat back from auto-play once reconnected.
TURN_SECONDS = 5
# The game is played until a frame shows its settlement, for at most this long.
GAME_SECONDS = 300
# The worker holding the person's socket is killed once the game has this many moves.
KILL_AT_MOVE = 3
HINTS = re.compile(r'<script id="hints" type="application/json">(.*?)</script>', re.S)


def worker_holding_a_socket(workers: list[Worker]) -> Worker:
    """The worker with an open connection from nginx: the person's socket is the only lasting
    one, since the documented upstream keeps no idle connections to the workers."""
    established = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        if state == "01":  # ESTABLISHED
            established.add(int(local.rsplit(":", 1)[1], 16))
    holding = [worker for worker in workers if worker.port in established]
    assert len(holding) == 1, f"workers with a connection from nginx: {holding}"
    return holding[0]


@dataclass
class Person:
    """A person at the table in a browser: connects through nginx with their session cookie and
    plays from what the frames show (the turn, the hints), as the page does."""

    site: Site
    table_id: int
    cookie: str
    rng: random.Random
    connections: int = 0
    moves: int = 0
    last_frame: str = ""
    killed: Worker | None = None

    async def connect(self) -> websockets.ClientConnection:
        """Through nginx, retrying as the page's websocket extension does while nginx finds
        that a worker is gone."""
        for _attempt in range(20):
            try:
                socket_ = await websockets.connect(
                    f"wss://127.0.0.1:{self.site.https}/ws/tables/{self.table_id}/",
                    ssl=self.site.tls(),
                    origin=websockets.Origin(f"https://{HOST}"),
                    additional_headers={"Cookie": f"sessionid={self.cookie}; django_language=en"},
                    open_timeout=15,
                )
            except (OSError, TimeoutError, websockets.WebSocketException):
                await asyncio.sleep(0.5)
                continue
            self.connections += 1
            return socket_
        raise AssertionError("the table's socket did not reconnect through nginx")

    async def play_the_game(self) -> None:
        """Play until a frame shows the settlement. Once the game has ``KILL_AT_MOVE`` moves,
        the worker holding the socket is killed; the socket drops and comes back through nginx."""
        deadline = time.monotonic() + GAME_SECONDS
        while time.monotonic() < deadline:
            socket_ = await self.connect()
            # Actions sent on the lost socket may be lost with it: a new one sends them again.
            acted: set[str] = set()
            try:
                while time.monotonic() < deadline:
                    text = await asyncio.wait_for(socket_.recv(), timeout=60)
                    assert isinstance(text, str)
                    version = version_of(text)
                    if version is None:
                        continue
                    self.last_frame = text
                    _table, game_id, moves = version.split(".")
                    if game_id != "0" and 'class="settlement"' in text:
                        await socket_.close()
                        return
                    if self.killed is None and int(moves) >= KILL_AT_MOVE and _playing(text):
                        await asyncio.to_thread(self.kill_the_socket_s_worker)
                        continue
                    intent = self.intent(text, version)
                    if intent is None or intent["action_id"] in acted:
                        continue
                    acted.add(intent["action_id"])
                    await socket_.send(json.dumps(intent))
                    self.moves += intent["action"] in ("play", "pass")
            except websockets.ConnectionClosed:
                assert self.killed is not None, "the socket through nginx closed by itself"
        raise AssertionError(f"no settlement in {GAME_SECONDS} s: {self.last_frame[:500]}")

    def kill_the_socket_s_worker(self) -> None:
        self.killed = worker_holding_a_socket(self.site.workers)
        self.killed.process.send_signal(signal.SIGKILL)
        self.killed.process.wait(timeout=30)

    def intent(self, text: str, version: str) -> dict[str, Any] | None:
        """What the page sends for this frame: 取消托管 when the clock gave the seat to
        auto-play, on the person's turn a hint's play (now and then a pass when allowed)."""
        if 'data-action="resume"' in text:
            message: dict[str, Any] = {"action": "resume"}
        elif _playing(text) and 'data-my-turn="true"' in text:
            found = HINTS.search(text)
            hints = json.loads(found.group(1)) if found else []
            leading = 'data-leading="true"' in text
            if hints and (leading or self.rng.random() < 0.85):
                hint = self.rng.choice(hints)
                move = {"action": "play", "cards": hint["cards"].split(), "as": hint["as"]}
            else:
                move = {"action": "pass"}
            message = {**move, "version": version}
        else:
            return None
        # The same action on the same view has the same id, so a resend is recognised.
        action_id = hashlib.sha256(f"{version} {message}".encode()).hexdigest()[:32]
        return {**message, "action_id": action_id, "HEADERS": {"HX-Request": "true"}}


def _playing(frame: str) -> bool:
    return 'data-status="playing"' in frame


def test_a_whole_game_through_nginx_survives_its_worker_being_killed(site: Site) -> None:
    room = make_room(code="nginx-kill")
    Room.objects.filter(pk=room.pk).update(turn_seconds=TURN_SECONDS)
    room.refresh_from_db()
    user = make_player("sunqi")
    table, _ = services.table_play(user=user, room=room)
    person = Person(site=site, table_id=table.pk, cookie=session_cookie(user), rng=random.Random(7))
    asyncio.run(person.play_the_game())

    # The socket dropped with its worker once and came back through nginx to the other.
    assert person.killed is not None and person.killed.process.returncode == -signal.SIGKILL
    assert person.connections == 2
    assert person.moves >= 1
    [game] = Game.objects.filter(table=table)
    assert game.status == Game.Status.FINISHED and game.settled_at is not None
    # Settled exactly once: one ledger row per wallet (the person's, the house's for the bots).
    rows = list(LedgerEntry.objects.filter(game=game, reason=LedgerReason.GAME))
    wallets = [row.wallet_id for row in rows]
    assert len(wallets) == len(set(wallets)) and sum(row.amount for row in rows) == 0
    mine = game.players.get(user=user)
    assert [row.amount for row in rows if row.wallet.user_id == user.pk] == [mine.coins]
    # Nothing lost: the stored moves replay with the engine to the stored result and coins.
    replay = game_replay_steps(game=game)
    assert replay.ok, [(check.code, check.detail) for check in replay.checks if not check.ok]
    # The last frame is the settlement, with the person's coins.
    change = re.search(
        rf'<tr[^>]*data-seat="{mine.seat}">.*?class="coin-change" data-coins="(-?\d+)"',
        person.last_frame,
        re.S,
    )
    assert change is not None and int(change.group(1)) == mine.coins
