"""Settings, one module per concern; all environment access goes through `env`."""
# ruff: noqa: I001 - the order is the layering: later modules may read earlier ones

from .base import *  # noqa: F401,F403
from .services import *  # noqa: F401,F403
from .agent import *  # noqa: F401,F403
from .observability import *  # noqa: F401,F403
