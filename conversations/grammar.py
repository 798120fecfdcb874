"""The fast path's grammar, derived from the registry's language metadata (never from code).

For every ACTIVE capability with a `language` block this builds: its verbs (pt-BR and en, as
folded token sequences), its keywords (the content words of its verbs and phrasings, without the
`{slot}` placeholders), and its slots. Entity synonyms come from the slots of every capability:
a slot of type `employee` that lists "funcionário" makes "funcionário" name an employee anywhere.

A grammar is immutable and cached per registry version, like the snapshot it comes from.
Word comparison (`same_word`) is accent/case-insensitive and tolerant of inflection: Snowball
stems in both languages, or the same verb root ("coloque"/"coloca", "abra"/"abre") — the
Portuguese imperative and indicative differ only in their last vowel, which stemmers do not fold.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from registry.selectors import CapabilitySpec, RegistrySnapshot

from .lexicon import ARTICLES, tokens
from .metrics import grammar_cache_observe
from .word_match import (  # noqa: F401 - read as grammar.*
    TYPO_MIN,
    TYPO_SHORT_MIN,
    camel_parts,
    dropped_letter,
    english_form,
    find_phrase,
    one_typo,
    same_word,
    verb_root,
)

_PLACEHOLDER = re.compile(r"\{[^}]*\}")


def content(parts: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p for p in parts if p not in ARTICLES)


@dataclass(frozen=True)
class Verb:
    capability: str
    words: tuple[str, ...]  # folded content tokens, e.g. ("muda", "validade")
    language: str
    batch: bool = False  # a verb of the capability's `batch` (run over a selection)
    # "dá baixa", "o que é": a first word that folds to an article is left out of `words` like any article — it must
    # still stand right before them (ranking.verb_matches, _lead), else "de gravidade baixa" says "baixa"
    lead: str | None = None


@dataclass(frozen=True)
class SlotSpec:
    name: str
    type: str
    required: bool
    many: bool
    from_context: bool
    parse: str | None
    field: str  # the input field the value goes to
    resolver: Mapping[str, Any] | None
    values: tuple[str, ...]
    synonyms: frozenset[str]  # folded single words and phrases
    # enum value → folded phrases naming it ("DRAFT" → ("em", "rascunho"), ...), and its display words
    value_phrases: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    value_labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    noun: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # language → one/many/gender
    label: Mapping[str, str] = field(default_factory=dict)  # language → the field's name in replies
    not_before: str | None = None  # "today": a date slot refusing past dates (manifest)
    unit: str | None = None  # "days": the unit its amounts are said in (manifest)
    named_by: tuple[str, ...] = ()  # a reference's item fields that also name one (attributes.py)
    synonyms_only: bool = False  # an enum named by its value_synonyms only (manifest `synonyms_only`)

    def value_label(self, value: str, language: str) -> str:
        return (self.value_labels.get(value) or {}).get(language) or value


@dataclass(frozen=True)
class BatchSpec:
    """The registry's `language.batch`: run the capability over the permits a read selects."""

    template: str
    ids: str
    select: str
    label: str
    tally_field: str | None
    tally: Mapping[str, str]  # placeholder name → output value counted
    texts: Mapping[str, Mapping[str, str]]  # summary / done / empty → language → template


@dataclass(frozen=True)
class CapabilityGrammar:
    id: str
    kind: str
    entity: str
    intent: str
    verbs: tuple[Verb, ...]
    keywords: frozenset[str]
    slots: tuple[SlotSpec, ...]
    batch: BatchSpec | None = None
    # language → the manifest's phrasings as written ("abre a permissão {permit}"): examples for help
    examples: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # output field → folded phrases that ask for it ("local", "onde", "where"): `language.fields`
    fields: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    # output field → language → its first phrase as written ("<campo>"): how an answer names the field
    field_names: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def slot(self, name: str) -> SlotSpec | None:
        return next((s for s in self.slots if s.name == name), None)

    @property
    def types(self) -> frozenset[str]:
        return frozenset({self.entity, *(s.type for s in self.slots)})


_NAMED_MEMO_MAX = 2048  # distinct messages' words kept per grammar (a grammar lives until the registry changes)


@dataclass(frozen=True)
class Grammar:
    version: int | None
    capabilities: Mapping[str, CapabilityGrammar]
    # entity type → folded synonym phrases ("permissao", "permissao de trabalho", "pt", ...)
    synonyms: Mapping[str, frozenset[tuple[str, ...]]]
    # folded synonym word → entity/capability-entity types it names (for enum values like tabs)
    concepts: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # entity type → language → {one, many, gender}: how replies name it (the manifest's slot `noun`)
    nouns: Mapping[str, Mapping[str, Mapping[str, str]]] = field(default_factory=dict)

    @cached_property
    def verb_heads(self) -> frozenset[str]:
        """The first word of every capability's verb phrases (ranking's index of which verbs a message may say)."""
        return frozenset(v.words[0] for c in self.capabilities.values() for v in c.verbs if v.words)

    @cached_property
    def noun_words(self) -> frozenset[str]:
        """Entities named in one word (the registry's synonyms): a noun, never a form of a verb."""
        return frozenset(p[0] for phrases in self.synonyms.values() for p in phrases if len(p) == 1)

    def field_phrases(self, entity: str, slot: SlotSpec) -> frozenset[tuple[str, ...]]:
        """The phrases that name the field `slot` writes on `entity`: the slot's label and the entity's reads'
        `language.fields` for it (field_write.py, the Extractor's numbers of an item)."""
        phrases = {tuple(tokens(label)) for label in slot.label.values()}
        phrases |= {p for c in self.capabilities.values() if c.entity == entity and c.kind == "read"
                    for p in c.fields.get(slot.field, ())}
        return frozenset(p for p in phrases if p)

    @cached_property
    def field_words(self) -> frozenset[str]:
        """Fields asked for in one word (the manifest's `language.fields`): nouns, never a verb's place."""
        return frozenset(p[0] for c in self.capabilities.values() for phrases in c.fields.values() for p in phrases
                         if len(p) == 1)

    @cached_property
    def referenced(self) -> frozenset[str]:
        """Entity types a number or a name refers to (a `reference` slot's type): what a page is about."""
        return frozenset(s.type for c in self.capabilities.values() for s in c.slots if s.parse == "reference")

    def noun(self, entity_type: str, language: str, *, many: bool = False, article: str = "") -> str:
        """"inspeção", "as inspeções", "da permissão" (article: "", "the", "of", "in"); the type's
        own words when the manifest declares no noun for it."""
        forms = (self.nouns.get(entity_type) or {}).get(language) or (self.nouns.get(entity_type) or {}).get("pt-BR")
        word = (forms or {}).get("many" if many else "one") or " ".join(camel_parts(entity_type))
        if not article:
            return word
        if language.startswith("en"):
            return f"{ {'the': 'the', 'of': 'of the', 'in': 'in the'}[article]} {word}"
        female = (forms or {}).get("gender", "f") == "f"
        base = ("a" if female else "o") + ("s" if many else "")
        return f"{ {'the': '', 'of': 'd', 'in': 'n'}[article]}{base} {word}"

    def slot_label(self, slot: SlotSpec, language: str) -> str:
        """The slot's field as replies name it: its `label`, else its entity's noun, else its name."""
        if slot.label:
            return slot.label.get(language) or next(iter(slot.label.values()))
        if slot.type in self.nouns:
            return self.noun(slot.type, language)
        return " ".join(camel_parts(slot.name)) if slot.name[:1].islower() else slot.name

    def types_named_in(self, parts: list[str]) -> dict[str, tuple[int, int]]:
        """Entity types whose synonym occurs in `parts`, with the (start, end) of the occurrence.

        Asked three or four times a turn of the same words, each time every synonym of every type word by word
        (about 230 phrase searches a turn): the answer is kept per words said (`_named_memo`, bounded), and a
        test holds the kept answer to the searched one."""
        key = tuple(parts)
        if key not in self._named_memo:
            if len(self._named_memo) >= _NAMED_MEMO_MAX:
                self._named_memo.clear()
            self._named_memo[key] = self._types_searched_in(parts)
        return dict(self._named_memo[key])

    @cached_property
    def _named_memo(self) -> dict[tuple[str, ...], dict[str, tuple[int, int]]]:
        return {}

    @cached_property
    def _synonyms_longest_first(self) -> dict[str, list[tuple[str, ...]]]:
        return {type_: sorted(phrases, key=len, reverse=True) for type_, phrases in self.synonyms.items()}

    def _types_searched_in(self, parts: list[str]) -> dict[str, tuple[int, int]]:
        found: dict[str, tuple[int, int]] = {}
        for type_, phrases in self._synonyms_longest_first.items():
            for phrase in phrases:
                at = find_phrase(parts, phrase)
                if at is not None:
                    found[type_] = at
                    break
        return found

    def enum_phrase(self, slot: SlotSpec, parts: list[str]) -> tuple[str, tuple[int, int]] | None:
        """The enum value one of the slot's declared phrases names, and where ("sem inspetor definido")."""
        phrases = sorted(((p, v) for v, ps in slot.value_phrases.items() for p in ps), key=lambda t: -len(t[0]))
        for phrase, value in phrases:
            at = find_phrase(parts, phrase)
            if at is not None:
                return value, at
        return None

    def enum_value(self, slot: SlotSpec, parts: list[str]) -> str | None:
        """The enum value a message names for `slot`: one of its declared words, the value itself, or a
        synonym whose concept matches it."""
        said = self.enum_phrase(slot, parts)
        if said is not None or slot.synonyms_only:
            return said[0] if said is not None else None
        for part in parts:
            for value in slot.values:
                if same_word(part, value.lower()):
                    return value
        for part in parts:
            if not any(same_word(part, s) for s in slot.synonyms if " " not in s):
                continue
            for concept in self.concepts.get(part, frozenset()) | _concepts_like(self.concepts, part):
                for value in slot.values:
                    if any(same_word(c, value.lower()) for c in camel_parts(concept)):
                        return value
        return None


def _concepts_like(concepts: Mapping[str, frozenset[str]], word: str) -> frozenset[str]:
    hits: set[str] = set()
    for synonym, types in concepts.items():
        if same_word(word, synonym):
            hits |= types
    return frozenset(hits)


def _folded_list(values: Any) -> list[tuple[str, ...]]:
    out = []
    for value in values or ():
        parts = tuple(tokens(str(value)))
        if parts:
            out.append(parts)
    return out


def _slot(raw: Mapping[str, Any]) -> SlotSpec:
    synonyms = raw.get("synonyms") or {}
    folded = frozenset(" ".join(p) for lang in synonyms.values() for p in _folded_list(lang))
    value_synonyms = raw.get("value_synonyms") or {}
    return SlotSpec(
        name=str(raw["name"]), type=str(raw.get("type", "text")), required=bool(raw.get("required")),
        many=bool(raw.get("many")), from_context=bool(raw.get("from_context")), parse=raw.get("parse"),
        field=str(raw.get("field") or raw["name"]), resolver=raw.get("resolver"),
        values=tuple(str(v) for v in raw.get("values") or ()), synonyms=folded,
        value_phrases={str(v): tuple(p for lang in langs.values() for p in _folded_list(lang))
                       for v, langs in value_synonyms.items()},
        value_labels={str(v): {lang: str(words[0]) for lang, words in langs.items() if words}
                      for v, langs in value_synonyms.items()},
        noun={str(lang): dict(forms) for lang, forms in (raw.get("noun") or {}).items()},
        label={str(lang): str(text) for lang, text in (raw.get("label") or {}).items()},
        not_before=raw.get("not_before"), unit=raw.get("unit"),
        named_by=tuple(str(p) for p in raw.get("named_by") or ()),
        synonyms_only=bool(raw.get("synonyms_only")),
    )


def _batch(spec_id: str, raw: Mapping[str, Any] | None) -> tuple[BatchSpec | None, list[Verb]]:
    if not raw:
        return None, []
    verbs = [Verb(spec_id, content(parts), lang, batch=True)
             for lang, entries in (raw.get("verbs") or {}).items() for parts in _folded_list(entries) if content(parts)]
    tally = raw.get("tally") or {}
    batch = BatchSpec(template=str(raw["template"]), ids=str(raw["ids"]), select=str(raw["select"]),
                      label=str(raw.get("label") or "id"), tally_field=tally.get("field"),
                      tally={str(k): str(v) for k, v in (tally.get("values") or {}).items()},
                      texts={kind: dict(raw.get(kind) or {}) for kind in ("summary", "done", "empty")})
    return batch, verbs


_VERB_LIKE_ARTICLES = frozenset({"da", "de"})  # "dá"/"dê" (dar) folded
_SHORT_ARTICLES = frozenset({"o", "a", "os", "as", "um", "uma"})


def _lead(parts: tuple[str, ...], words: tuple[str, ...]) -> str | None:
    """The article a verb opens with that must stand before its words: a verb form that folds to an article ("dá
    baixa"), or the article of a verb left one word without it ("o que é" is "que" alone: any "que" would ask)."""
    if parts[0] in _VERB_LIKE_ARTICLES or (len(words) == 1 and parts[0] in _SHORT_ARTICLES):
        return parts[0]
    return None


def _capability(spec: CapabilitySpec) -> CapabilityGrammar | None:
    language = spec.language or {}
    if not language:
        return None
    verbs: list[Verb] = []
    keywords: set[str] = set()
    for lang, entries in (language.get("verbs") or {}).items():
        for parts in _folded_list(entries):
            words = content(parts)
            if words and not (len(words) == 1 and words[0] in ARTICLES):
                verbs.append(Verb(spec.id, words, lang, lead=_lead(parts, words)))
                keywords.update(words)
    for entries in (language.get("phrasings") or {}).values():
        for phrasing in entries or ():
            keywords.update(content(tokens(_PLACEHOLDER.sub(" ", str(phrasing)))))
    slots = tuple(_slot(s) for s in language.get("slots") or () if isinstance(s, Mapping) and s.get("name"))
    batch, batch_verbs = _batch(spec.id, language.get("batch"))
    examples = {str(lang): tuple(str(p) for p in entries or ()) for lang, entries in
                (language.get("phrasings") or {}).items()}
    return CapabilityGrammar(id=spec.id, kind=spec.kind, entity=str(language.get("entity", "")),
                             intent=str(language.get("intent", "")), verbs=tuple(verbs + batch_verbs),
                             keywords=frozenset(k for k in keywords if len(k) > 2), slots=slots, batch=batch,
                             examples=examples,
                             fields={str(f): tuple(p for words in langs.values() for p in _folded_list(words))
                                     for f, langs in (language.get("fields") or {}).items()},
                             field_names={str(f): {str(lang): str(words[0]) for lang, words in langs.items() if words}
                                          for f, langs in (language.get("fields") or {}).items()})


def grammar_build(snapshot: RegistrySnapshot) -> Grammar:
    capabilities: dict[str, CapabilityGrammar] = {}
    synonyms: dict[str, set[tuple[str, ...]]] = {}
    concepts: dict[str, set[str]] = {}
    nouns: dict[str, dict[str, Mapping[str, str]]] = {}
    for key, spec in snapshot.capabilities.items():
        grammar = _capability(spec)
        if grammar is None:
            continue
        capabilities[key] = grammar
        for slot in grammar.slots:
            for lang, forms in slot.noun.items():
                nouns.setdefault(slot.type, {}).setdefault(lang, forms)
            if slot.type in ("text", "integer", "knowledgeRef") or slot.parse == "enum":
                continue
            for phrase in slot.synonyms:
                synonyms.setdefault(slot.type, set()).add(tuple(phrase.split()))
                if " " not in phrase:
                    concepts.setdefault(phrase, set()).update({slot.type, grammar.entity})
    return Grammar(version=snapshot.version, capabilities=capabilities,
                   synonyms={k: frozenset(v) for k, v in synonyms.items()},
                   concepts={k: frozenset(v) for k, v in concepts.items()}, nouns=nouns)


_lock = threading.Lock()
_cache: dict[int | None, Grammar] = {}


def grammar_for(snapshot: RegistrySnapshot) -> Grammar:
    cached = _cache.get(snapshot.version)
    if cached is not None and snapshot.version is not None:
        grammar_cache_observe(hit=True)
        return cached
    grammar_cache_observe(hit=False)
    grammar = grammar_build(snapshot)
    with _lock:
        _cache.clear()
        _cache[snapshot.version] = grammar
    return grammar
