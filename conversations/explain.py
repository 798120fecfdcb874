"""Knowledge questions ("explique isso", "what does this mean?"): answered by the knowledge base,
about the entity pointed at (a demonstrative) or the topic's words, with citations."""

from __future__ import annotations

from collections.abc import Mapping

from knowledge.selectors import knowledge_search
from knowledge.text import is_stop_word

from . import lexicon
from .flow import rest, topic_set
from .grammar import camel_parts
from .ranking import Ranked
from .state import situation_for
from .turns import Turn


def _topic_words(turn: Turn, parts: list[str]) -> list[str]:
    skip = set(lexicon.DEMONSTRATIVES) | set(lexicon.EXPLAIN_MARKERS) | set(lexicon.ARTICLES)
    skip |= {w for phrases in turn.grammar.synonyms.values() for p in phrases for w in p}
    knowledge = next((c for c in turn.grammar.capabilities.values()
                      if any(s.type == "knowledgeRef" for s in c.slots)), None)
    verbs = {w for v in knowledge.verbs for w in v.words} if knowledge else set()
    return [p for p in parts if p not in skip and p not in verbs and not is_stop_word(p) and not p.isdigit()]


def explain(turn: Turn, parts: list[str], *, from_word: int = 0) -> None:
    """`from_word`: where the request to explain starts — the words before it only lead up to it."""
    situation = situation_for(turn.conversation)
    parts = parts[from_word:] or parts
    entity = None
    pointing = any(p in lexicon.DEMONSTRATIVES for p in parts)
    named = turn.grammar.types_named_in(parts)
    if pointing:
        candidates = [*situation.created, *([situation.active] if situation.active else []), *_last_acted_on(turn)]
        for ref in candidates:
            if not named or any(_similar_type(t, str(ref.get("type"))) for t in named):
                entity = ref
                break
    words = _topic_words(turn, parts)
    focus = (turn.conversation.last_ui_context or {}).get("focus") or {}
    if not words and isinstance(focus, Mapping) and focus.get("label") and pointing and entity is None:
        words = lexicon.tokens(str(focus.get("label")))
    knowledge_entity = None
    if entity is not None:
        kind = [p for p in camel_parts(str(entity.get("type"))) if p not in ("permit", "type", "work")]
        knowledge_entity = {"type": kind[-1] if kind else entity.get("type"), "key": entity.get("key"),
                            "name": entity.get("label")}
    query = " ".join(parts) if from_word else turn.text
    result = knowledge_search(tenant=turn.tenant, query=query, entity=knowledge_entity,
                              ui_context=turn.conversation.last_ui_context or None,
                              topic=" ".join(words) or None, language="en" if turn.language == "en" else "pt")
    turn.llm_calls += result.llm_calls
    topic_set(turn, words=words, entity=entity, semantic_id=None)
    context = dict(turn.conversation.context or {})
    context["knowledge_version"] = result.knowledge_version
    turn.conversation.context = context
    rest(turn)
    turn.reply("answer", "knowledge.answer", message=result.answer.text,
               citations=[{"id": c.id, "title": c.title, "source": c.source, "version": c.version}
                          for c in result.answer.citations])


def _last_acted_on(turn: Turn) -> list[Mapping]:
    """What the last operation acted on: after "desfaça" removed an item, "explique esse <item>" is about
    it, even when the page's selection (the item's parent) is the active entity and nothing was created."""
    slots = ((turn.conversation.last_result or {}).get("intent") or {}).get("slots") or {}
    return [v["entity"] for values in slots.values() for v in values
            if isinstance(v, Mapping) and isinstance(v.get("entity"), Mapping)]


def _similar_type(a: str, b: str) -> bool:
    return a == b or bool((set(camel_parts(a)) & set(camel_parts(b))) - {"type", "permit", "work"})


def explains(reading: Ranked) -> bool:
    return (reading.verb is not None and any(s.type == "knowledgeRef" for s in reading.cap.slots)
            and any(w in lexicon.EXPLAIN_MARKERS for w in reading.verb.words))


def explanation_first(ranked: list[Ranked]) -> list[Ranked]:
    """"o que significa um <filho> numa <entidade>?": a verb that asks what something means, said before any other
    verb, reads the rest as its topic — the nouns after it name what to explain, not a list to show."""
    explaining = next((r for r in ranked if explains(r)), None)
    if explaining is None or explaining is (ranked[0] if ranked else None):
        return ranked
    first = min(r.verb_span[0] for r in ranked if r.verb_span)
    if explaining.verb_span is None or explaining.verb_span[0] > first:
        return ranked
    start, end = explaining.verb_span
    if any(r.verb_span and r.verb_span[0] == start and r.verb_span[1] > end for r in ranked):
        return ranked  # "define <pessoa> como <papel>": a longer verb said from the same word is that one
    return [explaining, *(r for r in ranked if r is not explaining)]
