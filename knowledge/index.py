"""The in-process BM25 index of one knowledge package, and its per-tenant cache.

Written by hand rather than with bm25s/rank-bm25: those score a whole matrix per query (numpy /
scipy, two heavy dependencies for corpora of a few hundred sections), while an inverted index with
the BM25 term weight precomputed per posting answers a query in time proportional to the postings
of its few terms, is built incrementally per tenant and version, and is ~60 lines. Scoring is
Okapi BM25 (k1=1.2, b=0.75, Lucene's non-negative idf) over one bag of words per section in which
the title counts three times and keywords twice.

Cache: keyed by (tenant id, package id). A key only ever holds that tenant's sections, the
lookup always goes through the tenant's active package, and `KnowledgeIndex.tenant_id` is
checked on every hit, so one tenant's warm entry can never answer another tenant (PRD-001 §26).
"""

from __future__ import annotations

import math
import threading
from collections import Counter, OrderedDict, defaultdict
from dataclasses import dataclass, field

from .text import fold, index_terms

K1 = 1.2
B = 0.75
TITLE_WEIGHT = 3
KEYWORD_WEIGHT = 2
CACHE_SIZE = 64


@dataclass(frozen=True)
class IndexedSection:
    section_id: str
    document_title: str
    title: str
    body: str
    semantic_ids: tuple[str, ...]
    keywords: tuple[str, ...]
    wikilinks: tuple[str, ...]
    language: str
    source: str
    position: int


@dataclass
class KnowledgeIndex:
    tenant_id: str
    package_id: int
    version: int
    label: str
    sections: list[IndexedSection] = field(default_factory=list)
    postings: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    idf: dict[str, float] = field(default_factory=dict)
    by_semantic_id: dict[str, list[int]] = field(default_factory=dict)
    by_document_title: dict[str, list[int]] = field(default_factory=dict)
    keyword_phrases: dict[str, list[tuple[tuple[str, ...], int]]] = field(default_factory=dict)
    # For a subsection (`<doc>#<heading>`): its document's lead section, and the terms of its own
    # heading and body that the document title lacks (what a question must say to mean this part).
    lead_of: dict[int, int] = field(default_factory=dict)
    own_terms: dict[int, frozenset[str]] = field(default_factory=dict)

    @property
    def max_idf(self) -> float:
        """The idf of a term no section contains: what an unmatched query word weighs."""
        return math.log(1 + (len(self.sections) + 0.5) / 0.5)

    def term_scores(self, term: str) -> dict[int, float]:
        idf = self.idf.get(term)
        if idf is None:
            return {}
        return {doc: idf * weight for doc, weight in self.postings[term]}


def build_index(*, tenant_id: str, package_id: int, version: int, label: str,
                sections: list[IndexedSection]) -> KnowledgeIndex:
    index = KnowledgeIndex(tenant_id=tenant_id, package_id=package_id, version=version, label=label,
                           sections=sections)
    bags: list[Counter[str]] = []
    for doc, section in enumerate(sections):
        keyword_terms = [index_terms(keyword, section.language) for keyword in section.keywords]
        bag = Counter(index_terms(section.body, section.language))
        for _ in range(TITLE_WEIGHT):
            bag.update(index_terms(section.title, section.language))
        for terms in keyword_terms:
            bag.update({term: KEYWORD_WEIGHT for term in terms})
            if terms:
                index.keyword_phrases.setdefault(terms[0], []).append((tuple(terms), doc))
        bags.append(bag)
        for semantic_id in section.semantic_ids:
            index.by_semantic_id.setdefault(semantic_id.casefold(), []).append(doc)
        index.by_document_title.setdefault(fold(section.document_title), []).append(doc)
    _link_leads(index)
    average = (sum(sum(bag.values()) for bag in bags) / len(bags)) if bags else 1.0
    postings: defaultdict[str, list[tuple[int, float]]] = defaultdict(list)
    for doc, bag in enumerate(bags):
        norm = K1 * (1 - B + B * sum(bag.values()) / average)
        for term, tf in bag.items():
            postings[term].append((doc, tf * (K1 + 1) / (tf + norm)))
    total = len(bags)
    index.postings = dict(postings)
    index.idf = {term: math.log(1 + (total - len(p) + 0.5) / (len(p) + 0.5)) for term, p in postings.items()}
    return index


def _link_leads(index: KnowledgeIndex) -> None:
    leads = {(section.source, section.section_id): doc for doc, section in enumerate(index.sections)
             if "#" not in section.section_id}
    for doc, section in enumerate(index.sections):
        lead = leads.get((section.source, section.section_id.split("#", 1)[0]))
        if lead is None or lead == doc:
            continue
        index.lead_of[doc] = lead
        inherited = set(index_terms(section.document_title, section.language))
        heading = section.title.removeprefix(section.document_title)
        index.own_terms[doc] = frozenset(index_terms(f"{heading} {section.body}", section.language)) - inherited


class IndexCache:
    """A small thread-safe LRU of built indexes, keyed by (tenant id, package id)."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self._size = size
        self._entries: OrderedDict[tuple[str, int], KnowledgeIndex] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, tenant_id: str, package_id: int) -> KnowledgeIndex | None:
        with self._lock:
            index = self._entries.get((tenant_id, package_id))
            if index is None:
                return None
            self._entries.move_to_end((tenant_id, package_id))
        if index.tenant_id != tenant_id:  # defence in depth: never serve another tenant's index
            return None
        return index

    def put(self, index: KnowledgeIndex) -> None:
        with self._lock:
            self._entries[(index.tenant_id, index.package_id)] = index
            self._entries.move_to_end((index.tenant_id, index.package_id))
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def keys(self) -> list[tuple[str, int]]:
        with self._lock:
            return list(self._entries)


INDEX_CACHE = IndexCache()
