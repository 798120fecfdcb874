"""Reads: the tenant's active knowledge package and the Knowledge Router's search.

Retrieval follows PRD-001 §7, each layer scoped to the tenant's active package:
1. exact — the entity the conversation is about: a semantic id (`component:workingAtHeight`,
   `workPermit.validity`) or a document whose title equals the entity's name (accent- and
   case-insensitive, SCENARIOS.md) — unless the question fully matches other sections and barely
   any of the entity's, in which case the user changed subject and the entity is only context;
2. keywords declared by the documents, matched as stemmed phrases in the question;
3. BM25 over the question, normalised for Portuguese and English (accents, case, stems);
4. contextual boost from the UI context (focused field, tab, page), the entity and the topic —
   and when the question itself says nothing ("Explique este campo"), that context *is* the
   question;
5. wikilinks: documents the best section links to come next when there is room.
A section is cited only when it is an exact or keyword hit or its BM25 match covers at least half
of the question's weight, so "Não encontrei" beats citing noise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tenancy.models import Tenant

from .answers import compose_answer, excerpt_for
from .index import INDEX_CACHE, IndexedSection, KnowledgeIndex, build_index
from .metrics import INDEX_CACHE_LOOKUPS
from .models import KnowledgePackage, KnowledgeSection
from .results import KnowledgeReference, KnowledgeResult
from .text import detect_language, fold, query_terms

EXACT_BOOST = 1000.0
KEYWORD_BOOST = 10.0
CONTEXT_WEIGHT = 0.3
# Breaks ties (an exact entity hit documented in both languages) in favour of the user's language.
LANGUAGE_BONUS = 0.5
MIN_COVERAGE = 0.5
FULL_COVERAGE = 0.99
MAX_LIMIT = 50

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")

Terms = list[frozenset[str]]


def active_package_get(*, tenant: Tenant) -> KnowledgePackage | None:
    return (
        KnowledgePackage.objects.for_tenant(tenant).filter(is_active=True)
        .only("id", "version", "label", "content_hash", "tenant_id").first()
    )


def knowledge_index_get(*, tenant: Tenant, package: KnowledgePackage) -> KnowledgeIndex:
    tenant_id = str(tenant.pk)
    if package.tenant_id != tenant.pk:
        raise ValueError("package does not belong to tenant")
    index = INDEX_CACHE.get(tenant_id, package.pk)
    INDEX_CACHE_LOOKUPS.labels(result="miss" if index is None else "hit").inc()
    if index is None:
        rows = KnowledgeSection.objects.for_tenant(tenant).filter(package=package).order_by("position", "id")
        sections = [
            IndexedSection(
                section_id=row.section_id, document_title=row.document_title, title=row.title, body=row.body,
                semantic_ids=tuple(row.semantic_ids), keywords=tuple(row.keywords), wikilinks=tuple(row.wikilinks),
                language=row.language, source=row.source, position=row.position,
            )
            for row in rows
        ]
        index = build_index(tenant_id=tenant_id, package_id=package.pk, version=package.version,
                            label=package.label, sections=sections)
        INDEX_CACHE.put(index)
    return index


def _humanise(identifier: str) -> str:
    return _CAMEL.sub(" ", identifier).replace("_", " ").replace(".", " ")


def _context_texts(ui_context: Mapping[str, Any] | None, entity: Mapping[str, Any] | None,
                   topic: str | None) -> list[str]:
    """Context phrases, most specific first: focused field, entity, topic, tab, page."""
    ui = ui_context or {}
    texts: list[str] = []
    focus = ui.get("focus") or {}
    if isinstance(focus, Mapping):
        texts.append(" ".join(str(focus.get(key) or "") for key in ("label", "fieldName")))
    if entity:
        texts.append(str(entity.get("name") or ""))
    texts.append(_humanise(topic or ""))
    for key in ("tab", "page"):
        part = ui.get(key) or {}
        if isinstance(part, Mapping):
            texts.append(str(part.get("title") or "") or _humanise(str(part.get("id") or "")))
    return [text.strip() for text in texts if text and text.strip()]


def _bm25(index: KnowledgeIndex, terms: Terms) -> tuple[dict[int, float], dict[int, float], float]:
    """Per-section score, per-section matched idf mass, and the query's total idf mass."""
    scores: dict[int, float] = {}
    matched: dict[int, float] = {}
    total = 0.0
    for stems in terms:
        known = [stem for stem in stems if stem in index.idf]
        weight = max((index.idf[stem] for stem in known), default=index.max_idf)
        total += weight
        best: dict[int, float] = {}
        for stem in known:
            for doc, score in index.term_scores(stem).items():
                if score > best.get(doc, 0.0):
                    best[doc] = score
        for doc, score in best.items():
            scores[doc] = scores.get(doc, 0.0) + score
            matched[doc] = matched.get(doc, 0.0) + weight
    return scores, matched, total


def _keyword_hits(index: KnowledgeIndex, terms: Terms) -> dict[int, int]:
    hits: dict[int, int] = {}
    for start, stems in enumerate(terms):
        for stem in stems:
            for phrase, doc in index.keyword_phrases.get(stem, ()):
                window = terms[start:start + len(phrase)]
                if len(window) == len(phrase) and all(p in w for p, w in zip(phrase, window, strict=True)):
                    hits[doc] = hits.get(doc, 0) + 1
    return hits


def _exact_hits(index: KnowledgeIndex, semantic_ids: list[str], names: list[str]) -> set[int]:
    hits: set[int] = set()
    for semantic_id in semantic_ids:
        hits.update(index.by_semantic_id.get(semantic_id.casefold(), ()))
    for name in names:
        hits.update(index.by_document_title.get(fold(name), ()))
    return hits


def _wikilinked(index: KnowledgeIndex, doc: int, ranked: list[int]) -> list[int]:
    linked = []
    for target in index.sections[doc].wikilinks:
        linked.extend(d for d in index.by_document_title.get(fold(target), ())[:1] if d not in ranked)
    return linked


def rank(
    index: KnowledgeIndex, *, query: str, semantic_ids: list[str], names: list[str], context: list[str],
    language: str | None = None,
) -> tuple[list[tuple[int, float, bool]], Terms]:
    """Ranked (section, score, exact) and the terms that were searched for (for excerpts)."""
    terms = query_terms(query)
    context_terms = [stems for text in context for stems in query_terms(text)]
    if not terms and context:
        # Nothing in the question but deixis ("explique este campo"): the context is the question.
        terms, context_terms = query_terms(context[0]), [s for text in context[1:] for s in query_terms(text)]
        min_coverage = 1e-9
    else:
        min_coverage = MIN_COVERAGE
    exact = _exact_hits(index, semantic_ids, names)
    keywords = _keyword_hits(index, terms)
    scores, matched, total = _bm25(index, terms)
    boost, _, _ = _bm25(index, context_terms)
    exact_boost = EXACT_BOOST
    coverage = {doc: mass / total for doc, mass in matched.items()} if total else {}
    if terms and exact and max(coverage.get(doc, 0.0) for doc in exact) < MIN_COVERAGE and any(
        value >= FULL_COVERAGE for value in coverage.values()
    ):
        # The question names something else outright ("O que é trabalho a quente?" right after
        # adding "Trabalho em Altura"): the conversation's entity is then only context.
        exact_boost = 0.0
    candidates = set(exact) | set(keywords)
    candidates |= {doc for doc, value in coverage.items() if value >= min_coverage}
    ranked = sorted(
        (
            (doc, exact_boost * (doc in exact) + KEYWORD_BOOST * keywords.get(doc, 0)
             + scores.get(doc, 0.0) + CONTEXT_WEIGHT * boost.get(doc, 0.0)
             + LANGUAGE_BONUS * (index.sections[doc].language == language), doc in exact)
            for doc in candidates
        ),
        key=lambda item: (-item[1], item[0]),
    )
    ranked = _leads_first(index, ranked, query_terms(query) or terms, exact, keywords)
    if ranked:
        top_doc, top_score, _ = ranked[0]
        ranked += [(doc, 0.1 * top_score, False) for doc in _wikilinked(index, top_doc, [d for d, _, _ in ranked])]
    return ranked, terms + context_terms


def _leads_first(index: KnowledgeIndex, ranked: list[tuple[int, float, bool]], question: Terms,
                 exact: set[int], keywords: dict[int, int]) -> list[tuple[int, float, bool]]:
    """A subsection comes after its document's lead section (the opening, where a document defines
    its subject) unless the question names something only that subsection has ("resgate"), or the
    subsection's own semantic id or keyword matched (`workPermit.validity`).

    Semantic ids, keywords and the title words belong to the whole document, and BM25's length
    normalisation makes a short subsection win on them alone: "O que é trabalho em altura?" would
    otherwise quote the two-line rescue section instead of the definition.
    """
    placed: set[int] = set()
    ordered: list[tuple[int, float, bool]] = []
    for doc, score, is_exact in ranked:
        lead = index.lead_of.get(doc)
        asked_for = lead is not None and (
            (doc in exact and lead not in exact) or keywords.get(doc, 0) > keywords.get(lead, 0)
            or any(stems & index.own_terms.get(doc, frozenset()) for stems in question))
        if lead is not None and lead not in placed and not asked_for:
            ordered.append((lead, score, lead in exact))
            placed.add(lead)
        if doc not in placed:
            ordered.append((doc, score, is_exact))
            placed.add(doc)
    return ordered


def _semantic_ids(semantic_id: str | None, entity_type: str | None, entity: Mapping[str, Any] | None) -> list[str]:
    ids = []
    if semantic_id:
        ids.append(semantic_id if (":" in semantic_id or "." in semantic_id or not entity_type)
                   else f"{entity_type}:{semantic_id}")
    if entity and entity.get("type") and entity.get("key"):
        ids.append(f"{entity['type']}:{entity['key']}")
    return ids


def knowledge_search(
    *,
    tenant: Tenant,
    query: str = "",
    semantic_id: str | None = None,
    entity_type: str | None = None,
    entity: Mapping[str, Any] | None = None,
    topic: str | None = None,
    ui_context: Mapping[str, Any] | None = None,
    language: str | None = None,
    limit: int = 5,
    synthesize: bool = False,
) -> KnowledgeResult:
    """Search the tenant's active knowledge package and answer from it, with citations.

    `entity` is `{"type", "key"?, "name"?}` of what the conversation is about (the component just
    added): its semantic id `<type>:<key>` or a document titled like its name is an exact hit.
    `synthesize=True` lets a configured LLM phrase the answer from the retrieved sections only.
    """
    limit = max(1, min(limit, MAX_LIMIT))
    language = language if language in ("pt", "en") else (detect_language(query) if query.strip() else None)
    package = active_package_get(tenant=tenant)
    if package is None:
        return compose_answer(knowledge_version=None, references=(), question=query, language=language or "pt",
                              context=None, synthesize=False, no_package=True)
    index = knowledge_index_get(tenant=tenant, package=package)
    context = _context_texts(ui_context, entity, topic)
    names = [str(entity["name"])] if entity and entity.get("name") else []
    ranked, terms = rank(index, query=query, semantic_ids=_semantic_ids(semantic_id, entity_type, entity),
                         names=names, context=context, language=language or "pt")
    references = tuple(_reference(index, doc, score, exact, terms) for doc, score, exact in ranked[:limit])
    if language is None:
        language = references[0].language if references else "pt"
    context_package = {"topic": topic, "entity": dict(entity) if entity else None, "ui_context": ui_context}
    return compose_answer(knowledge_version=index.label, references=references, question=query,
                          language=language, context=context_package, synthesize=synthesize, terms=terms)


def _reference(index: KnowledgeIndex, doc: int, score: float, exact: bool, terms: Terms) -> KnowledgeReference:
    section = index.sections[doc]
    return KnowledgeReference(
        id=section.section_id, title=section.title, source=section.source, version=index.label, score=score,
        excerpt=excerpt_for(section.body, section.language, terms), semantic_ids=section.semantic_ids,
        body=section.body, language=section.language, exact=exact,
    )
