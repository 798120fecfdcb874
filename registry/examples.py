"""Example sentences for a newcomer, taken from the registry's language metadata (capability `phrasings`).

What a user of `role` in `tenant` may actually do (ACTIVE, discoverable, permitted, not blocked), one
phrasing per capability, taken round-robin across entities so the examples show the range rather
than five ways of doing one thing. Phrasings with a `{slot}` placeholder are left out: an example
is a sentence the user can send as it is. Nothing here names an SST entity: it is all manifest data.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .selectors import registry_snapshot


def examples_for(*, tenant: Any, role: str, language: str, limit: int = 6) -> list[str]:
    by_entity: OrderedDict[str, list[str]] = OrderedDict()
    for spec in registry_snapshot().discoverable_for(tenant=tenant, role=role):
        phrasings = ((spec.language or {}).get("phrasings") or {}).get(language) or []
        sentence = next((p for p in phrasings if "{" not in p), None)
        if sentence:
            by_entity.setdefault(str((spec.language or {}).get("entity") or ""), []).append(sentence)
    examples: list[str] = []
    queues = list(by_entity.values())
    while queues and len(examples) < limit:
        for queue in list(queues):
            if not queue:
                queues.remove(queue)
                continue
            sentence = queue.pop(0)
            if sentence not in examples and len(examples) < limit:
                examples.append(sentence)
    return examples
