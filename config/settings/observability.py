"""Structured JSON logs (structlog) and Prometheus metrics settings.

Every log line is one JSON object carrying the context bound for the current request, turn or
task (requestId, traceId, tenantId, conversationId, planId, executionId, ...) through structlog's
contextvars, so callers bind ids once instead of repeating them in each call.
"""

import structlog

from .env import env_str

LOG_LEVEL = env_str("LOG_LEVEL", "INFO")
# Prometheus multi-process mode (web + Celery workers in one exposition) when this directory is set.
PROMETHEUS_MULTIPROC_DIR = env_str("PROMETHEUS_MULTIPROC_DIR")
# Bearer token for scrapers; staff users may read /metrics with their session too.
METRICS_TOKEN = env_str("METRICS_TOKEN")

_SHARED = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
]

structlog.configure(
    processors=[*_SHARED, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
    logger_factory=structlog.stdlib.LoggerFactory(),
    wrapper_class=structlog.stdlib.BoundLogger,
    cache_logger_on_first_use=True,
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {
            "()": structlog.stdlib.ProcessorFormatter,
            "processors": [
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                structlog.processors.JSONRenderer(ensure_ascii=False),
            ],
            "foreign_pre_chain": _SHARED,
        }
    },
    # Rendered and written off the request's thread (config/logqueue.py).
    "handlers": {"console": {"()": "config.logqueue.BackgroundConsoleHandler", "formatter": "json"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {"django.db.backends": {"level": "WARNING"}, "httpx": {"level": "WARNING"},
                "httpcore": {"level": "WARNING"}},
}
