"""The load test: real daphne workers on PostgreSQL and Redis, driven by scripted websocket clients.

Run it as a script, never as part of the test suite::

    .venv/bin/python -m benchmarks.load --quick          # a smoke run: one worker, a few tables
    .venv/bin/python -m benchmarks.load --plot docs/load-test.png

``__main__`` holds the command and its plan, ``database`` prepares a fresh PostgreSQL database
with seated players, ``server`` starts and samples the daphne workers (and 斗地主's table runner),
``clients`` are the websocket players (干瞪眼's and 斗地主's tables, and the bare transport's
groups), ``baseline`` is the bare consumer and ``asgi`` the application that serves both,
``report`` prints the figures (for each game) and draws the plot, and ``profile`` summarises a
py-spy profile of a worker. See docs/performance.md.
"""
