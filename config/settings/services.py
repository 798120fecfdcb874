"""Database, Redis (Celery broker/results, channel layer, cache) and Celery.

Unset DATABASE_URL / REDIS_URL select the embedded default: SQLite, the in-memory channel layer,
a local-memory cache and eager Celery. One REDIS_URL feeds four logical databases, counted from
the one the URL names, so the broker, results, channel layer and cache never share keys.
"""

import re
from urllib.parse import urlparse, urlunparse

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from kombu import Exchange, Queue

from .base import BASE_DIR
from .env import env_bool, env_int, env_str, env_url

DATABASE_URL = env_url("DATABASE_URL", schemes=("postgres", "postgresql", "sqlite"))
if DATABASE_URL:
    try:
        _db = dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)
    except ValueError as exc:
        raise ImproperlyConfigured(f"DATABASE_URL is malformed: {exc}") from None
else:
    _db = {"ENGINE": "django.db.backends.sqlite3", "NAME": str(BASE_DIR / "db.sqlite3")}
if _db["ENGINE"] == "django.db.backends.sqlite3":
    _db.setdefault("OPTIONS", {})["timeout"] = 20
USES_POSTGRES = _db["ENGINE"] == "django.db.backends.postgresql"
if USES_POSTGRES:
    # Server-side binding with psycopg's automatic prepared statements: the hot statements (a turn's
    # lock, plan read, live policy state, writes) are planned once per connection instead of on
    # every call — planning cost more than executing them. Django turns preparing off by default for
    # transaction-pooling proxies (pgbouncer); DB_PREPARE_THRESHOLD=0 turns it off here too.
    _threshold = env_int("DB_PREPARE_THRESHOLD", 5, minimum=0)
    _db.setdefault("OPTIONS", {}).update(server_side_binding=True, prepare_threshold=_threshold or None)
# Under ASGI every request runs in a thread of its own, so persistent per-thread connections pile up
# until PostgreSQL refuses clients; Django's advice is no persistent connections there and the
# driver's pool instead. config/asgi.py turns DB_POOL on; workers and tests keep persistent ones.
DB_POOL = env_bool("DB_POOL", default=False) and USES_POSTGRES
if DB_POOL:
    _db["CONN_MAX_AGE"] = 0
    # How long a request waits for a connection before it is refused with 503 + Retry-After
    # (config/overload.py): under overload, refusing sooner beats queueing for 10 s.
    _db.setdefault("OPTIONS", {})["pool"] = {"min_size": 1, "max_size": env_int("DB_POOL_MAX_SIZE", 10, minimum=1),
                                             "timeout": env_int("DB_POOL_TIMEOUT_SECONDS", 5, minimum=1)}
# The application's own connections act as DATABASE_RUNTIME_ROLE (ARCHITECTURE invariant 11): a role
# that is neither a superuser nor a member of agent_maintainer, so it cannot DELETE or TRUNCATE an
# append-only row. It is set when the connection starts (a `role` startup option: no round trip);
# `migrate` and `flush` act as the login (the owner) instead (tenancy.db.owner_session). Default
# `agent_runtime`, created by scripts/ensure_database.py; `none` acts as the login role itself
# (production logging in as the runtime role). tenancy's start-up check refuses to serve otherwise.
DATABASE_RUNTIME_ROLE = ""
if USES_POSTGRES:
    DATABASE_RUNTIME_ROLE = env_str("DATABASE_RUNTIME_ROLE", "agent_runtime")
    if DATABASE_RUNTIME_ROLE.lower() == "none":
        DATABASE_RUNTIME_ROLE = ""
    elif not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", DATABASE_RUNTIME_ROLE):
        raise ImproperlyConfigured(f"DATABASE_RUNTIME_ROLE must be a role name ([a-z_][a-z0-9_]*) or 'none', "
                                   f"got {DATABASE_RUNTIME_ROLE!r}")
    if DATABASE_RUNTIME_ROLE:
        _options = _db.setdefault("OPTIONS", {})
        _options["options"] = f"{_options.get('options', '')} -c role={DATABASE_RUNTIME_ROLE}".strip()
DATABASES = {"default": _db}

REDIS_URL = env_url("REDIS_URL", schemes=("redis", "rediss"))


def _redis_db(url: str, offset: int) -> str:
    parsed = urlparse(url)
    path = parsed.path.strip("/") or "0"
    if not path.isdigit():
        raise ImproperlyConfigured(f"REDIS_URL must end in a database number, got {url!r}")
    return urlunparse(parsed._replace(path=f"/{int(path) + offset}"))


# REDIS_URL's database number n is the first of five: broker n, results n+1, channel layer n+2, cache n+3,
# the execution runtime's lanes n+4 (scripts/check_services.py refuses an n the server has no room for).
REDIS_DATABASES_USED = 5

if REDIS_URL:
    RUNTIME_REDIS_URL = _redis_db(REDIS_URL, 4)
    CELERY_BROKER_URL = _redis_db(REDIS_URL, 0)
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"  # kombu's Redis transport, one publishing client
    CELERY_RESULT_BACKEND = _redis_db(REDIS_URL, 1)
    # Redis Pub/Sub: one subscription per process and group feeds each consumer's own queue. With
    # the list-based RedisChannelLayer one consumer per process received for all of them; when
    # daphne cancelled that one (its socket closed — and on Python 3.11 asyncio.wait_for can
    # swallow the cancel, so it lingers and is cancelled again up to 10 s later), redis-py dropped
    # the reply it had not read and the event was lost for every socket of the process
    # (tests/websocket/test_leaving_socket.py). Delivery stays best effort: consumers fill a seq gap
    # from the table. Pub/Sub ignores database numbers, so the prefix carries it.
    _layer_url = _redis_db(REDIS_URL, 2)
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            # Room for a burst of connects (redis-py's default pool is 100).
            "CONFIG": {"hosts": [{"address": _layer_url, "socket_timeout": 30, "max_connections": 2000}],
                       "prefix": f"asgi.{urlparse(_layer_url).path.strip('/')}."},
        }
    }
    # config/cache.py: Django's backend, with one redis.Redis per pool instead of one per call.
    CACHES = {"default": {"BACKEND": "config.cache.SharedClientRedisCache",
                          "LOCATION": _redis_db(REDIS_URL, 3)}}
    CELERY_TASK_ALWAYS_EAGER = False
else:
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = "cache+memory://"
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    CELERY_TASK_ALWAYS_EAGER = True

CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_CONCURRENCY = env_int("CELERY_WORKER_CONCURRENCY", 2, minimum=1)

# Execution (issue 5). A task whose worker died unacknowledged is redelivered by Redis after the
# visibility timeout, which must exceed the longest step (max timeout x attempts + backoff); a
# StepRun's lease is the same span, so a redelivered step is taken over only once its lease expired.
EXECUTION_VISIBILITY_TIMEOUT_SECONDS = env_int("EXECUTION_VISIBILITY_TIMEOUT_SECONDS", 300, minimum=1)
EXECUTION_STEP_LEASE_SECONDS = EXECUTION_VISIBILITY_TIMEOUT_SECONDS
# How long a request may run a read-only plan's steps itself before the rest go to a worker (execution/inline.py).
EXECUTION_INLINE_READ_MS = env_int("EXECUTION_INLINE_READ_MS", 2000, minimum=0)
EXECUTION_RETRY_BUDGET = env_int("EXECUTION_RETRY_BUDGET", 10, minimum=0)
# Adaptive runtime (PRD-034 §55-§60): how long a batch waits for a resource with no registered
# fallback before asking the planner for an alternative (capped by RUNTIME_MAX_WAIT_SECONDS, after
# which a batch with no alternative goes to human review).
RUNTIME_REPLAN_AFTER_SECONDS = env_int("RUNTIME_REPLAN_AFTER_SECONDS", 10, minimum=0)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": EXECUTION_VISIBILITY_TIMEOUT_SECONDS,
    # How often a worker looks for unacknowledged messages older than the visibility timeout.
    "unacked_restore_interval": max(1, min(60, EXECUTION_VISIBILITY_TIMEOUT_SECONDS // 5)),
}
# Priority queues (PRD-034 §40-§42, execution/priority.py): priority → its registered, equivalent
# queues (first = preferred; a saturated one may hand a task to another of the SAME group, never to
# another priority). Priority rises only by the deadline rule, never on request.
EXECUTION_PRIORITY_QUEUES: dict[str, tuple[str, ...]] = {"normal": ("execution",), "high": ("execution_high",)}
# A worker started without -Q consumes every queue listed here (`make run`'s worker included); one
# started with -Q must list them all (tests/execution/worker.py does).
CELERY_TASK_QUEUES = tuple(Queue(name, Exchange(name), routing_key=name) for name in (
    "default", *dict.fromkeys(q for group in EXECUTION_PRIORITY_QUEUES.values() for q in group)))
# Celery's Django fixup closes the DB connection around every task unless told to reuse it: a new
# PostgreSQL connection per step cost ~10 ms (bench/step_dispatch.py). Tasks instead call Django's
# close_old_connections() first, which honours CONN_MAX_AGE and the health check like a request does.
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", 10_000, minimum=0)
# The priority router picks run_step's queue by the rule; every other execution task → execution.
CELERY_TASK_ROUTES = ("execution.priority.route_task", {"execution.*": {"queue": "execution"}})
CELERY_BEAT_SCHEDULE: dict = {
    # Leases and runtime heartbeats (PRD-034 §45-§48); safe to run from two beats (Redis lock + CAS).
    "execution-watchdog": {"task": "execution.watchdog", "schedule": 30.0, "options": {"queue": "execution"}},
    # Learning without authority (§102-§104): proposals for admins to review, never applied.
    "execution-runtime-suggestions": {"task": "execution.runtime_suggestions", "schedule": 3600.0,
                                      "options": {"queue": "execution"}},
    "conversations-expire-pending": {"task": "conversations.expire_pending", "schedule": 30.0,
                                     "options": {"queue": "default"}},
    # LGPD retention (AGENT_MESSAGE_TEXT_RETENTION_DAYS): needs a worker whose login may act as agent_maintainer.
    "conversations-redact-message-text": {"task": "conversations.redact_message_text", "schedule": 24 * 3600.0,
                                          "options": {"queue": "default"}},
}
