"""Settings for the site's own processes that a test starts (daphne workers, ``run_tables``): the
production settings, read from the environment as in a deployment, with one change: on Redis,
the channel layer and the cache use the prefix in ``TEST_CHANNEL_PREFIX``, so that the workers of
one test run never hear the tables of another run sharing the Redis server (two runs number their
tables alike), the socket places a killed worker leaves in the cache never count against another
run's users (numbered alike too), and a test deletes all its processes left in Redis by that
prefix."""

import os

from gandengyan.settings import *  # noqa: F403
from gandengyan.settings import CACHES, CHANNEL_LAYERS

_prefix = os.environ.get("TEST_CHANNEL_PREFIX", "")
if _prefix and CHANNEL_LAYERS["default"]["BACKEND"] == "channels_redis.core.RedisChannelLayer":
    CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = _prefix
if _prefix and CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    CACHES["default"]["KEY_PREFIX"] = f"{_prefix}-cache"
