"""The domain is data (issue #15 point 1): the agent apps name no SST entity, field or capability.

Everything entity-specific lives in `capabilities/*.yaml` and the manifest schema. This test greps
the agent apps' code *and comments* (non-test, non-migration .py files) for the domain's words,
taken from the manifest itself — every capability id and its non-generic segments, entity types,
slot names, fields and types, nouns and synonyms — plus a few fixed words, and counts the lines
that name one per file.

It is a ratchet: `BASELINE` records the lines still left per file. A file may not gain a line (move
the knowledge into the manifest instead), and a baseline higher than the actual count fails too, so
that the number is lowered as code is cleaned. A file that reaches 0 leaves the dict.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
APPS = ("conversations", "planning", "policy", "execution", "events", "registry")

# Manifest words that are not the domain's: generic verbs of capability ids, generic field names,
# and synonyms that are ordinary words of the agent's own vocabulary (a Celery worker, a team...).
GENERIC = frozenset({
    "read", "search", "count", "create", "update", "delete", "add", "remove", "list", "open", "opentab", "cancel",
    "approve", "complete", "readmany", "reschedule", "navigation", "knowledge", "knowledgeref", "semantic_id",
    "description", "notes", "number", "q", "reason", "status", "tab", "text", "integer", "date", "pt", "dados",
    "details", "detalhes", "person", "team", "equipe", "issue", "activity", "atividade", "hazard", "risco", "riscos",
    "worker", "workers", "responsible",
})
# Words of the domain the manifest does not spell as a slot or synonym.
FIXED = frozenset({"permit", "validity", "validade"})
# Not the domain although they contain a domain word: an OpenAPI component name, Django's admin
# site, Portuguese "permissão" meaning an access right.
IGNORED = re.compile(r"component_name=|admin_site|(?:tem|sem) (?:a )?permiss[ãa]o\b", re.IGNORECASE)

# Lines naming the domain, per file, still to be cleaned. Only ever lowered.
BASELINE: dict[str, int] = {
    "conversations/batch.py": 8,
    "conversations/batch_plan.py": 1,
    "conversations/clarify.py": 2,
    "conversations/corrections.py": 5,
    "conversations/data_spans.py": 2,
    "conversations/explain.py": 2,
    "conversations/extraction.py": 1,
    "conversations/freetext.py": 1,
    "conversations/grammar.py": 6,
    "conversations/hooks.py": 1,
    "conversations/intents.py": 1,
    "conversations/lexicon.py": 1,
    "conversations/matching.py": 1,
    "conversations/messages.py": 24,
    "conversations/navigation.py": 3,
    "conversations/operations.py": 1,
    "conversations/pages.py": 6,
    "conversations/question.py": 2,
    "conversations/reads.py": 7,
    "conversations/references.py": 8,
    "conversations/request.py": 1,
    "conversations/services.py": 2,
    "conversations/social.py": 1,
    "conversations/state.py": 10,
    "conversations/summary.py": 6,
    "conversations/turns.py": 2,
    "conversations/understanding.py": 5,
    "conversations/undo.py": 1,
    "execution/composer.py": 23,
    "execution/messages.py": 16,
    "planning/conditions.py": 2,
    "registry/apis.py": 1,
}


def _unaccented(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def domain_words() -> set[str]:
    words = set(FIXED)
    for path in sorted((ROOT / "capabilities").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for capability in data.get("capabilities") or ():
            words.add(capability["id"])
            words.update(capability["id"].split("."))
            language = capability.get("language") or {}
            words.add(language.get("entity") or "")
            for slot in language.get("slots") or ():
                words.update((slot["name"], slot["type"], slot.get("field") or slot["name"]))
                for noun in (slot.get("noun") or {}).values():
                    words.update((noun["one"], noun["many"]))
                for synonyms in (slot.get("synonyms") or {}).values():
                    words.update(synonyms)
    # A generic word's plural is generic too ("issues" as in "raises issues").
    words = {w for w in words if len(w) > 2 and w.lower() not in GENERIC and w.lower().removesuffix("s") not in GENERIC}
    return words | {_unaccented(w) for w in words}


def domain_pattern(words: set[str]) -> re.Pattern[str]:
    """A word, in any case, not inside another word: after a non-letter (or a camelCase hump), before
    a non-lowercase letter (`permit_id`, `PERMIT_APPROVED`, `permitComponent`), plural allowed."""
    ordered = sorted(words, key=len, reverse=True)
    plain = "|".join(re.escape(w) for w in ordered)
    humped = "|".join(re.escape(w[0].upper() + w[1:]) for w in ordered)
    letters = "A-Za-z\u00c0-\u017f"
    return re.compile(rf"(?i:(?<![{letters}])(?:{plain})(?:e?s)?)(?![a-z\u00e0-\u017f])"
                      rf"|(?<=[a-z])(?:{humped})(?:e?s)?(?![a-z\u00e0-\u017f])")


def agent_files() -> list[Path]:
    files = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            parts = path.relative_to(ROOT).parts
            if "tests" in parts or "migrations" in parts or path.name.startswith("test_"):
                continue
            files.append(path)
    return files


def domain_lines() -> dict[str, list[str]]:
    pattern = domain_pattern(domain_words())
    found: dict[str, list[str]] = {}
    for path in agent_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(IGNORED.sub(" ", line)):
                found.setdefault(path.relative_to(ROOT).as_posix(), []).append(f"{number}: {line.strip()}")
    return found


def test_the_word_list_comes_from_the_manifest():
    words = domain_words()
    assert {"workPermit", "inspection", "permit_id", "inspection_id", "validity_days", "inspeção", "inspecao",
            "permissão", "achado", "workPermit.updateValidity", "assignInspector"} <= words
    assert not words & {"read", "status", "number", "worker"}
    pattern = domain_pattern(words)
    for hit in ("PERMIT_APPROVED", "a permissão 12", "readPermitFacts", "\"permit_id\"", "inspeções", "workPermit."):
        assert pattern.search(hit), hit
    for miss in ("permission", "the executor", "a Celery worker", "respect", "website"):
        assert not pattern.search(miss), miss


def test_agent_apps_name_no_domain_entity_beyond_the_baseline():
    found = {path: len(lines) for path, lines in domain_lines().items()}
    grown = {path: lines for path, lines in domain_lines().items() if len(lines) > BASELINE.get(path, 0)}
    assert not grown, ("domain words in agent code (move them to capabilities/*.yaml):\n" + "\n".join(
        f"{path} ({len(lines)} lines, baseline {BASELINE.get(path, 0)}):\n  " + "\n  ".join(lines)
        for path, lines in grown.items()))
    stale = {path: (count, found.get(path, 0)) for path, count in BASELINE.items() if count > found.get(path, 0)}
    assert not stale, f"cleaner than the baseline: lower BASELINE to the actual counts (baseline, actual): {stale}"
