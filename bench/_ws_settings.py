"""Settings of the bench's daphne: the project's, with the channel layer's Redis pool fixed.

redis-py 8 defaults to a 5 s socket timeout — the same as channels-redis' 5 s BZPOPMIN — so an idle
consumer's receive times out and the socket drops every ~5 s, and its pool of 100 connections is
exhausted by a burst of group_add calls. The fix is requested for config/settings/services.py;
until it lands the bench applies it here so it measures fan-out, not reconnects.
"""

from config.settings import *  # noqa: F401,F403
from config.settings import CHANNEL_LAYERS

_hosts = CHANNEL_LAYERS["default"].get("CONFIG", {}).get("hosts")
if _hosts:
    CHANNEL_LAYERS = {"default": {**CHANNEL_LAYERS["default"], "CONFIG": {
        **CHANNEL_LAYERS["default"]["CONFIG"],
        "hosts": [{"address": h, "socket_timeout": 30, "max_connections": 2000} if isinstance(h, str) else h
                  for h in _hosts]}}}
