"""A live daphne server and a headless Chromium, for the browser tests.

The server is Channels' ``ChannelsLiveServerTestCase`` (daphne in a child process, on the test
database); the browser is Debian's Chromium driven by Playwright's sync API. Each test gets a
fresh browser context (no cookies), pages in Chinese first as a new visitor's would be, and a
``shot`` helper that saves numbered screenshots to ``.test-artifacts/screenshots/``.
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from asgiref.sync import SyncToAsync
from channels.testing import ChannelsLiveServerTestCase
from django.conf import settings
from django.db import connections
from django.test import override_settings
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from tests import seeds

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = settings.BASE_DIR / ".test-artifacts" / "screenshots"
PASSWORD = "hongtao-7-dui"

T = TypeVar("T")


def _own_sync_thread_after_fork() -> None:
    """daphne's live server is a forked copy of the test process, without its threads. asgiref
    runs sync code (the session and user lookups of every socket) on one thread it starts once:
    if a test before this one started it in the parent, the child's copy would wait forever for
    a thread it does not have, so the child gets a pool of its own."""
    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)


os.register_at_fork(after_in_child=_own_sync_thread_after_fork)


def off_the_loop(function: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Call ``function`` in a thread where no event loop runs, as a request's code would run.

    For services that do more than the ORM, such as broadcasting through the channel layer
    after a commit, which cannot happen in the thread where Playwright's loop runs. The
    thread's database connections are closed after.
    """

    def call() -> T:
        try:
            return function(*args, **kwargs)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(call).result()


@override_settings(GAME_SEED_SOURCE=seeds.SOURCE)
class BrowserTestCase(ChannelsLiveServerTestCase):
    """Each class's server deals the same games on every run (seeds from the class's name), so
    that what a test sees of a game, such as how long it lasts, does not change between runs."""

    host = "127.0.0.1"
    #: The sequence of deals the class's server uses; None: the one its name picks.
    deals: int | None = None
    # Flushing after each test would drop the rooms the migrations made; restore them instead.
    serialized_rollback = True

    playwright: Playwright
    browser: Browser
    context: BrowserContext
    page: Page

    @classmethod
    def setUpClass(cls) -> None:
        seeds.restart(cls.deals if cls.deals is not None else zlib.crc32(cls.__name__.encode()))
        super().setUpClass()  # starts daphne, a forked copy that goes on from this sequence
        # Playwright's sync API keeps an event loop running in this thread, and Django refuses
        # ORM calls from a thread with a running loop. The tests make their ORM calls between
        # browser steps, one at a time, so they are safe. Set only now, so that daphne's
        # process runs without it.
        cls._async_unsafe = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    @classmethod
    def tearDownClass(cls) -> None:
        if cls._async_unsafe is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = cls._async_unsafe
        super().tearDownClass()

    def setUp(self) -> None:
        # Playwright starts and stops with each test, not with the class: while its loop runs,
        # Django's connections live in a context of their own, without the serialized rooms
        # that the rollback after each test restores.
        super().setUp()
        self.playwright = sync_playwright().start()
        self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        self._shots = 0
        self.shot_prefix = self._testMethodName.removeprefix("test_")
        self.context = self.new_context()
        self.page = self.context.new_page()

    def tearDown(self) -> None:
        self.browser.close()
        # Close the connections opened while the loop ran, before it stops.
        connections.close_all()
        self.playwright.stop()
        super().tearDown()

    def new_context(self, **options: Any) -> BrowserContext:
        """A fresh browser (no cookies) asking for Chinese."""
        options = {"locale": "zh-CN", "viewport": {"width": 1280, "height": 900}, **options}
        context = self.browser.new_context(**options)
        context.set_default_timeout(15_000)
        return context

    def url(self, path: str) -> str:
        return self.live_server_url + path

    def url_pattern(self, path: str) -> re.Pattern[str]:
        """The page at ``path`` with any query string, for ``expect(page).to_have_url``."""
        return re.compile(re.escape(self.url(path)) + r"(\?.*)?$")

    def shot(self, name: str, page: Page | None = None) -> None:
        """Save a full-page screenshot as ``<shot_prefix>-<number>-<name>.png``."""
        self._shots += 1
        path = SCREENSHOTS / f"{self.shot_prefix}-{self._shots:02d}-{name}.png"
        (page or self.page).screenshot(path=str(path), full_page=True)

    def log_in(self, page: Page, username: str, password: str = PASSWORD) -> None:
        """Log in through the site's login form and wait for the lobby."""
        page.goto(self.url("/accounts/login/"))
        page.locator("main input[name=login]").fill(username)
        page.locator("main input[name=password]").fill(password)
        page.locator("main form button[type=submit]").click()
        page.wait_for_url(self.url("/"))
