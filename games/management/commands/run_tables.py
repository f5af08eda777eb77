"""``manage.py run_tables``: the table runner in a process of its own: bots take free seats and
move, and turns whose deadline passed are played for (timeouts and 托管). Any number may run,
beside daphne's own runners: each step locks the row it changes. It tells the table sockets
through the channel layer, so it refuses to start on the in-memory one, which no other process
hears."""

from __future__ import annotations

import asyncio
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games.runner import run_forever, separate_runner_refusal


class Command(BaseCommand):
    help = "Seat bots at tables that waited long enough and make the bots' due moves, forever."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--interval",
            type=float,
            default=settings.TABLE_RUNNER_INTERVAL_SECONDS,
            help="seconds between passes that found nothing to do",
        )

    def handle(self, *args: Any, interval: float, **options: Any) -> None:
        refusal = separate_runner_refusal()
        if refusal is not None:
            raise CommandError(refusal)
        self.stdout.write(f"Running tables every {interval} s; stop with Ctrl-C.")
        try:
            asyncio.run(run_forever(interval=interval))
        except KeyboardInterrupt:
            self.stdout.write("Stopped.")
