"""``manage.py run_mail``: the mail worker. Requests only queue their mail (django-mailer's queue,
in the database); this sends it through ``MAILER_EMAIL_BACKEND``, forever. It looks for new
mail every ``MAILER_EMPTY_QUEUE_SLEEP`` seconds, and every ``MAIL_RETRY_SECONDS`` puts the mail
that the server refused or did not answer back in line, at most ``MAILER_EMAIL_MAX_RETRIES``
times. ``--once`` makes one pass (both) and stops.

django-mailer's own ``runmailer`` never retries deferred mail (it leaves that to
``retry_deferred`` run by cron): this runs both of the library's steps in one process, so that a
server that comes back gets the waiting mail without a scheduler beside the worker."""

from __future__ import annotations

import logging
import signal
import threading
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import close_old_connections
from mailer.engine import send_all
from mailer.models import Message

logger = logging.getLogger(__name__)


def deliver(*, retry: bool) -> None:
    """One pass: put the deferred mail back in line when ``retry``, then send what is in line."""
    if retry:
        retried = Message.objects.retry_deferred()
        if retried:
            logger.warning("trying %d mail again that the mail server did not take", retried)
    if Message.objects.non_deferred().exists():
        send_all()


class Command(BaseCommand):
    help = "Send the mail the site queued, and try again what the mail server did not take."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--once", action="store_true", help="make one pass over the queue and stop"
        )

    def handle(self, *args: Any, once: bool, **options: Any) -> None:
        if once:
            deliver(retry=True)
            return
        stop = threading.Event()

        def stop_after_this_pass(signum: int, frame: object) -> None:
            stop.set()

        # A mail being sent when the worker is told to stop is finished and taken off the
        # queue, rather than cut off and sent again by the next worker.
        signal.signal(signal.SIGTERM, stop_after_this_pass)
        signal.signal(signal.SIGINT, stop_after_this_pass)
        interval = float(settings.MAILER_EMPTY_QUEUE_SLEEP)
        self.stdout.write(
            f"Sending queued mail every {interval:g} s, retrying every"
            f" {settings.MAIL_RETRY_SECONDS:g} s; stop with Ctrl-C."
        )
        next_retry = time.monotonic()
        while not stop.is_set():
            retry = time.monotonic() >= next_retry
            if retry:
                next_retry = time.monotonic() + settings.MAIL_RETRY_SECONDS
            try:
                deliver(retry=retry)
            except Exception:
                # A database that does not answer, say: the mail stays queued for the next pass.
                logger.exception("could not send the queued mail")
            finally:
                close_old_connections()
            stop.wait(interval)
        self.stdout.write("Stopped.")
