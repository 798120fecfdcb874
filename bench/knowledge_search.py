"""Knowledge Router retrieval: latency on 10,000 sections and recall@3 on a labelled set.

Loads the shipped demo corpus plus generated sections (pseudo-words mixed with the corpus's own
vocabulary, so noise competes on real terms) into a throw-away tenant of the database in
DATABASE_URL (with the knowledge and tenancy migrations applied), inside one transaction that is
rolled back at the end so nothing is left behind, then times `knowledge_search` with a warm index — the path a
conversation turn takes: one query for the active package, ranking, the extractive answer — and,
in the same run, a plain substring search over the same sections as the baseline. recall@3 is
measured for both on knowledge/tests/labelled.yaml over the same 10,000-section package.
Self-contained (no bench/_common.py existed when it was written). Prints one JSON line last and
writes it to bench/results/knowledge_search.json (design/BENCH.md).

    DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/knowledge_search.py
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

import yaml  # noqa: E402
from django.db import transaction  # noqa: E402

from knowledge.index import INDEX_CACHE  # noqa: E402
from knowledge.selectors import active_package_get, knowledge_index_get, knowledge_search  # noqa: E402
from knowledge.services import folder_documents, knowledge_package_create  # noqa: E402
from knowledge.text import words  # noqa: E402
from tenancy.services import tenant_create  # noqa: E402

NAME = "knowledge_search"
SECTIONS = 10_000
SECTIONS_PER_DOCUMENT = 5
ITERATIONS = 600
WARMUP = 50
SEED = 20260901
CORPUS = ROOT / "knowledge" / "corpus"
LABELLED = ROOT / "knowledge" / "tests" / "labelled.yaml"
RESULTS = ROOT / "bench" / "results" / f"{NAME}.json"


def _pseudo_words(rng: random.Random, count: int) -> list[str]:
    syllables = [c + v for c in "bcdfglmnprstvz" for v in "aeiou"]
    return ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(count)]


def generated_documents(rng: random.Random, count: int) -> list[dict[str, str]]:
    """`count` sections in documents of SECTIONS_PER_DOCUMENT; Zipf-ish pseudo-words + real terms."""
    real = sorted({w for doc in folder_documents(CORPUS) for w in words(doc["text"]) if len(w) > 3})
    vocabulary = _pseudo_words(rng, 5000)
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]

    def sentence() -> str:
        picked = rng.choices(vocabulary, weights=weights, k=rng.randint(8, 16))
        picked += rng.sample(real, k=2)  # one real term in ~7: noise that matches real queries
        rng.shuffle(picked)
        return " ".join(picked).capitalize() + "."

    documents = []
    for number in range(count // SECTIONS_PER_DOCUMENT):
        title = " ".join(rng.sample(vocabulary[:2000], 3)).title() + f" {number}"
        parts = [f"# {title}", "", " ".join(sentence() for _ in range(3))]
        for heading in range(1, SECTIONS_PER_DOCUMENT):
            parts += ["", f"## {rng.choice(vocabulary).title()} {heading}", "", " ".join(sentence() for _ in range(3))]
        documents.append({"text": "\n".join(parts), "source": f"generated/{number}.md", "language": "pt"})
    return documents


def substring_search(sections: list[tuple[str, str]], query: str, limit: int = 3) -> list[str]:
    """Baseline: rank sections by how many of the query's words (3+ letters) occur as substrings."""
    needles = [word for word in query.casefold().split() if len(word) > 2]
    scored = []
    for section_id, haystack in sections:
        hits = sum(needle in haystack for needle in needles)
        if hits:
            scored.append((-hits, section_id))
    scored.sort()
    return [section_id for _, section_id in scored[:limit]]


def percentiles(samples: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return {"p50_ms": round(cuts[49], 3), "p95_ms": round(cuts[94], 3), "p99_ms": round(cuts[98], 3)}


def timed(function, queries: list[str]) -> list[float]:
    for query in queries[:WARMUP]:
        function(query)
    samples = []
    for i in range(ITERATIONS):
        start = time.perf_counter()
        function(queries[i % len(queries)])
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def recall_at_3(search, labelled: list[dict]) -> float:
    return round(sum(item["expected"] in search(item["query"]) for item in labelled) / len(labelled), 3)


def main() -> dict:
    rng = random.Random(SEED)
    labelled = yaml.safe_load(LABELLED.read_text(encoding="utf-8"))
    demo = folder_documents(CORPUS)
    with transaction.atomic():
        tenant = tenant_create(slug=f"bench-knowledge-{uuid.uuid4().hex[:8]}", name="bench knowledge")
        documents = demo + generated_documents(rng, SECTIONS)
        package = knowledge_package_create(tenant=tenant, documents=documents, source="bench")
        INDEX_CACHE.clear()
        start = time.perf_counter()
        index = knowledge_index_get(tenant=tenant, package=active_package_get(tenant=tenant))
        build_ms = (time.perf_counter() - start) * 1000
        haystacks = [(s.section_id, f"{s.title}\n{s.body}".casefold()) for s in index.sections]
        queries = [item["query"] for item in labelled]

        ours = timed(lambda q: knowledge_search(tenant=tenant, query=q, limit=3), queries)
        baseline = timed(lambda q: substring_search(haystacks, q), queries)
        ours_recall = recall_at_3(
            lambda q: [r.id for r in knowledge_search(tenant=tenant, query=q, limit=3).references], labelled)
        baseline_recall = recall_at_3(lambda q: substring_search(haystacks, q), labelled)
        transaction.set_rollback(True)  # leave no rows behind
    ours_p, base_p = percentiles(ours), percentiles(baseline)
    return {
        "name": NAME,
        "n": ITERATIONS,
        **ours_p,
        "ratio": round(ours_p["p50_ms"] / base_p["p50_ms"], 3),
        "baseline": {"name": "substring", "n": ITERATIONS, **base_p, "recall_at_3": baseline_recall},
        "recall_at_3": ours_recall,
        "labelled_queries": len(labelled),
        "sections": len(index.sections),
        "knowledge_version": package.label,
        "index_build_ms": round(build_ms, 1),
    }


if __name__ == "__main__":
    result = main()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result) + "\n", encoding="utf-8")
    print(json.dumps(result))
