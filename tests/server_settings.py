"""Settings for the site's own processes that a test starts (daphne workers, ``run_tables``): the
production settings, read from the environment as in a deployment, with one change: on Redis,
the channel layer uses the prefix in ``TEST_CHANNEL_PREFIX``, so that the workers of one test run
never hear the tables of another run sharing the Redis server (two runs number their tables
alike)."""

import os

from gandengyan.settings import *  # noqa: F403
from gandengyan.settings import CHANNEL_LAYERS

_prefix = os.environ.get("TEST_CHANNEL_PREFIX", "")
if _prefix and CHANNEL_LAYERS["default"]["BACKEND"] == "channels_redis.core.RedisChannelLayer":
    CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = _prefix
