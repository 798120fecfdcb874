"""Knowledge metrics: the per-process BM25 index cache's hit rate (PRD-006 §40 "cache hit rate")."""

from __future__ import annotations

from prometheus_client import Counter

INDEX_CACHE_LOOKUPS = Counter("sst_agent_knowledge_index_cache",
                              "knowledge_index_get(): the tenant's active package index reused (hit) or built (miss).",
                              ["result"])
