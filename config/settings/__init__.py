"""Settings, one module per concern; all environment access goes through `env`."""

from .agent import *  # noqa: F401,F403
from .observability import *  # noqa: F401,F403
from .base import *  # noqa: F401,F403
from .services import *  # noqa: F401,F403
