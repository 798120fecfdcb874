"""Settings of the agent runtime itself: LLM endpoint, TTLs, test control, fault injection."""

from django.core.exceptions import ImproperlyConfigured

from .env import env_bool, env_int, env_str, env_url

# Unset LLM_BASE_URL = no LLM: only the deterministic paths run.
LLM_BASE_URL = env_url("LLM_BASE_URL", schemes=("http", "https"))
LLM_MODEL = env_str("LLM_MODEL", "gpt-4o-mini")
LLM_API_KEY = env_str("LLM_API_KEY")
LLM_TIMEOUT_SECONDS = env_int("LLM_TIMEOUT_SECONDS", 20, minimum=1)

AGENT_VERSION = env_str("AGENT_VERSION", "0.1.0")
AGENT_CLARIFICATION_TTL_SECONDS = env_int("AGENT_CLARIFICATION_TTL_SECONDS", 15 * 60, minimum=1)
AGENT_CONFIRMATION_TTL_SECONDS = env_int("AGENT_CONFIRMATION_TTL_SECONDS", 5 * 60, minimum=1)
# Bounds when an execution may *start* after its ALLOW receipt was issued (invariant 3).
POLICY_RECEIPT_TTL_SECONDS = env_int("POLICY_RECEIPT_TTL_SECONDS", 5 * 60, minimum=1)
AGENT_OPERATION_CONTEXT_TTL_SECONDS = env_int("AGENT_OPERATION_CONTEXT_TTL_SECONDS", 30 * 60, minimum=1)
# LGPD retention: after this many days what users typed (events, turns, intent copies) is replaced by
# "[redacted]" by a daily maintainer job (conversations/retention.py); 0 keeps the texts forever.
AGENT_MESSAGE_TEXT_RETENTION_DAYS = env_int("AGENT_MESSAGE_TEXT_RETENTION_DAYS", 90, minimum=0)

# Per-minute turn limits (Redis-backed fixed windows); 429 with Retry-After beyond them.
AGENT_RATE_USER_PER_MINUTE = env_int("AGENT_RATE_USER_PER_MINUTE", 120, minimum=1)
AGENT_RATE_TENANT_PER_MINUTE = env_int("AGENT_RATE_TENANT_PER_MINUTE", 2000, minimum=1)
# Retry-After of the 503 answered when no database connection can be had (config/overload.py).
OVERLOAD_RETRY_AFTER_SECONDS = env_int("OVERLOAD_RETRY_AFTER_SECONDS", 2, minimum=1)
# How long a question's turn waits for its read execution before answering "still reading".
AGENT_READ_WAIT_SECONDS = env_int("AGENT_READ_WAIT_SECONDS", 3, minimum=0)
# How long an authenticated token's (user, tenant, role) may be served from the cache when no
# signal dropped it first (tenancy/token_cache.py); 0 turns the cache off.
TOKEN_CONTEXT_CACHE_SECONDS = env_int("TOKEN_CONTEXT_CACHE_SECONDS", 30, minimum=0)
# How long a list a turn read to find names (catalogs, an entity's children) may be reused when the
# application did not say its data changed first (conversations/list_cache.py); 0 turns it off.
AGENT_LIST_CACHE_SECONDS = env_int("AGENT_LIST_CACHE_SECONDS", 30, minimum=0)

# What a cancel does to a step already calling the API (policy/cancel.py): "finish" keeps its effect,
# "compensate" runs its registered compensation once it finished. Per tenant slug: code only.
AGENT_CANCEL_IN_FLIGHT = env_str("AGENT_CANCEL_IN_FLIGHT", "finish")
if AGENT_CANCEL_IN_FLIGHT not in ("finish", "compensate"):
    raise ImproperlyConfigured(f"AGENT_CANCEL_IN_FLIGHT must be finish or compensate, got {AGENT_CANCEL_IN_FLIGHT!r}")
AGENT_CANCEL_IN_FLIGHT_BY_TENANT: dict[str, str] = {}

# Plans expire when not confirmed and started in time.
PLAN_TTL_SECONDS = env_int("PLAN_TTL_SECONDS", AGENT_CONFIRMATION_TTL_SECONDS, minimum=1)
# Adaptive runtime (PRD-034): how long a batch waits for a resource before asking for human review,
# and how stale a running step's heartbeat may get before the watchdog recovers it (0 = twice the lease).
RUNTIME_MAX_WAIT_SECONDS = env_int("RUNTIME_MAX_WAIT_SECONDS", 30, minimum=1)
RUNTIME_HEARTBEAT_TIMEOUT_SECONDS = env_int("RUNTIME_HEARTBEAT_TIMEOUT_SECONDS", 0, minimum=0)
# Overrides of the execution budget's defaults (execution.limits.default_budget); code only.
RUNTIME_BUDGET: dict[str, int] = {}

# Where registered resources live over HTTP; unset = reached in-process (embedded default, fast tests).
SST_API_BASE_URL = env_url("SST_API_BASE_URL", schemes=("http", "https"))
KNOWLEDGE_API_BASE_URL = env_url("KNOWLEDGE_API_BASE_URL", schemes=("http", "https"))
COMPLIANCE_API_BASE_URL = env_url("COMPLIANCE_API_BASE_URL", schemes=("http", "https"))
COMPLIANCE_SECONDARY_API_BASE_URL = env_url("COMPLIANCE_SECONDARY_API_BASE_URL", schemes=("http", "https"))

# The sample SST API's fault injector: off unless enabled (tests and demos only).
SST_FAULT_INJECTION = env_bool("SST_FAULT_INJECTION", default=False)

# Test-control API (/api/_test/...): routes exist only when on, and need the token header.
AGENT_TEST_CONTROL = env_bool("AGENT_TEST_CONTROL", default=False)
AGENT_TEST_CONTROL_TOKEN = env_str("AGENT_TEST_CONTROL_TOKEN")
