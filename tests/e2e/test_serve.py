"""The site a newcomer meets: ``./scripts/serve.sh`` started as the README says (its processes,
the production settings, the embedded default of SQLite and the in-memory channel layer), and a
game against two bots in a real browser, with a spectator watching.

The one change from a person's shell is where SQLite keeps its file (a fresh one in a temporary
folder, so that a developer's ``db.sqlite3`` is neither read nor touched) and the port.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import statistics
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS, SCREENSHOTS

pytestmark = pytest.mark.e2e

#: The settings the README's site runs with (gandengyan/settings.py defaults).
TURN_SECONDS = 20
BOT_FILL_SECONDS = 5
#: A bot's move reaches the page this soon after the move before it (the bot waits 1 s).
BOT_MOVE_SECONDS = 3.0
GAME_SECONDS = 150

# Records every frame's arrival in the page: its version, whose turn, and the time left on the
# turn clock when it arrived.
FRAME_LOG = """
window.frames_seen = [];
document.addEventListener("htmx:wsAfterMessage", function () {
  var table = document.getElementById("table");
  if (!table) { return; }
  var clock = document.querySelector(".seat.is-to-move .countdown[data-deadline]");
  window.frames_seen.push({
    at: Date.now(),
    version: table.dataset.version,
    status: table.dataset.status,
    myTurn: table.dataset.myTurn === "true",
    left: clock ? (Date.parse(clock.dataset.deadline) - Date.now()) / 1000 : null
  });
});
"""


@dataclass
class Site:
    url: str
    process: subprocess.Popen[bytes]
    log: Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
        pytest.skip("the README's site runs on the embedded default; the SQLite run starts it")
    folder = tmp_path_factory.mktemp("serve")
    port = free_port()
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DJANGO_", "TEST_", "PYTEST_"))
        and name not in ("DATABASE_URL", "REDIS_URL")
    }
    env.update(
        {
            "HOST": "127.0.0.1",
            "PORT": str(port),
            "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
            "REDIS_URL": "",  # the default, whatever a .env file says
        }
    )
    log = folder / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["bash", "scripts/serve.sh"],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300  # a first run installs the packages
        while f"{url}/" not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"./scripts/serve.sh did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield Site(url, process, log)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def log_in(browser: Browser, site: Site, username: str, password: str, **options: object) -> Page:
    context = browser.new_context(locale="zh-CN", **options)  # type: ignore[arg-type]
    context.set_default_timeout(20_000)
    context.add_init_script(FRAME_LOG)
    page = context.new_page()
    page.goto(f"{site.url}/accounts/login/")
    page.locator("main input[name=login]").fill(username)
    page.locator("main input[name=password]").fill(password)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(f"{site.url}/")
    return page


def frames(page: Page) -> list[dict[str, object]]:
    return list(page.evaluate("window.frames_seen"))


def move(page: Page) -> None:
    """Play the first hint (choosing the first meaning if asked), or pass."""
    hints = json.loads(page.locator("#hints").text_content() or "[]")
    if not hints:
        page.locator('[data-action="pass"]').click()
        return
    for code in hints[0]["cards"].split():
        page.locator(f'#hand-form label[data-card="{code}"]').click()
    page.locator('[data-action="play"]').click()
    choice = page.locator("#prompt .prompt-choice button")
    try:
        choice.first.wait_for(timeout=1000)
        choice.first.click()
    except Exception:
        pass  # one meaning only: no prompt


def test_the_readme_site_plays_live_against_bots(site: Site, browser: Browser) -> None:
    player = log_in(browser, site, "zhangsan", "player", viewport={"width": 1280, "height": 900})
    player.locator('form[action="/rooms/novice/play/"] button').click()
    player.wait_for_url(f"{site.url}/tables/*/")
    opened = time.monotonic()
    table_url = player.url
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    player.screenshot(path=str(SCREENSHOTS / "serve-01-waiting.png"), full_page=True)

    # The bots sit down when their countdown ends, not at the page's next look.
    expect(player.locator("#table")).to_have_attribute(
        "data-status", "playing", timeout=(BOT_FILL_SECONDS + 5) * 1000
    )
    assert time.monotonic() - opened < BOT_FILL_SECONDS + 3

    spectator = log_in(browser, site, "lisi", "player", viewport={"width": 390, "height": 844})
    spectator.goto(table_url)
    expect(spectator.locator("#table")).to_have_attribute("data-spectator", "true")

    started = time.monotonic()
    bot_waits: list[float] = []  # from a frame to the next, while bots move
    clocks: list[float] = []  # seconds on the clock when the player's turn reached the page
    while player.locator("#table .settlement").count() == 0:
        assert time.monotonic() - started < GAME_SECONDS, "the game did not end in time"
        if player.locator("#table").get_attribute("data-my-turn") != "true":
            time.sleep(0.05)
            continue
        seen = frames(player)
        if seen and seen[-1]["myTurn"] and seen[-1]["left"] is not None:
            clocks.append(float(seen[-1]["left"]))  # type: ignore[arg-type]
            if len(clocks) == 1:
                player.screenshot(path=str(SCREENSHOTS / "serve-02-my-turn.png"), full_page=True)
        move(player)
        # The player's own move, then each bot's, until the player's turn or the end.
        player.wait_for_function(
            "n => window.frames_seen.length > n", arg=len(seen), timeout=10_000
        )
        while True:
            latest = frames(player)[-1]
            if latest["myTurn"] or latest["status"] != "playing":
                break
            count = len(frames(player))
            before = time.monotonic()
            player.wait_for_function(
                "n => window.frames_seen.length > n", arg=count, timeout=20_000
            )
            bot_waits.append(time.monotonic() - before)
    player.screenshot(path=str(SCREENSHOTS / "serve-03-settled.png"), full_page=True)
    game_seconds = time.monotonic() - started
    print(
        f"game {game_seconds:.1f} s; bot moves after {statistics.median(bot_waits):.2f} s "
        f"(max {max(bot_waits):.2f}); clock on arrival {min(clocks):.1f}–{max(clocks):.1f} s"
    )

    # Every bot move reached the page about a second after the move before it, and every turn
    # arrived with almost the whole clock left.
    assert bot_waits, "the bots never moved while the player waited"
    assert max(bot_waits) < BOT_MOVE_SECONDS, site.log.read_text(errors="replace")[-6000:]
    assert clocks and min(clocks) > TURN_SECONDS - 2.5
    assert game_seconds < GAME_SECONDS

    # The spectator saw the same game move by move, not in batches.
    watched = frames(spectator)
    versions = [frame["version"] for frame in watched]
    assert len(set(versions)) >= len(bot_waits)
    gaps = [
        (later["at"] - earlier["at"]) / 1000  # type: ignore[operator]
        for earlier, later in zip(watched, watched[1:], strict=False)
        if earlier["status"] == "playing"
    ]
    assert gaps and statistics.median(gaps) < BOT_MOVE_SECONDS
    spectator.screenshot(path=str(SCREENSHOTS / "serve-04-spectator.png"), full_page=True)
    assert "Traceback" not in site.log.read_text(errors="replace")
