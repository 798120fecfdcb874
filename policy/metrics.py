"""Policy metrics: how long evaluate/revalidate take and what they decided (low-cardinality labels)."""

from __future__ import annotations

from prometheus_client import Histogram

_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1)

EVALUATE_LATENCY = Histogram("sst_agent_policy_evaluate_seconds", "policy.evaluate latency by outcome.",
                             ["outcome"], buckets=_BUCKETS)
REVALIDATE_LATENCY = Histogram("sst_agent_policy_revalidate_seconds",
                               "policy.revalidate latency by outcome (ok, deny).", ["outcome"], buckets=_BUCKETS)
