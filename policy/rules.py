"""The policy's rule tables: data, read by the engine, changed here (and reviewed) only.

Risk → confirmation level (ARCHITECTURE.md invariant 4):

    read → none (ALLOW) · low, medium → soft · high → strong · critical → human_review

Step risk starts at the capability version's declared `risk_level` and is then adjusted by
`RISK_RULES`, in order:

- `RISK_DESTRUCTIVE` (floor): a capability whose verb (last segment of its id) is in
  `DESTRUCTIVE_VERBS` is at least HIGH whatever its manifest says. A floor, not a "+1", so that
  delete / cancel stay *strong* as invariant 4 requires, while a mis-declared `delete` at `low`
  cannot slip through with a soft "sim".
- `RISK_BATCH` (+1 level): a step touching more than `BATCH_THRESHOLD` targets is raised one
  level (a batch delete becomes critical → human_review). Reads are never raised: a read needs
  no confirmation however many rows it returns.

Plan risk = MAX(step risks) (PRD-006 §12).

Preconditions are not here: they are data of each capability version (the manifest's
`preconditions`, read through registry_adapter), resource-state rules judged on the server-side
facts the caller read about each target, so that an operation that cannot succeed is denied
*before* a confirmation is asked. A rule:

    {"target": "<entity type>", "fact": "<fact name>", "in" | "not_in": [values], "code": "<REASON>",
     "says": {"pt-BR": "...", "en": "..."}}

applies to every target of that type; a fact the rule needs that is absent → DENY `FACT_MISSING`.
A failed rule's reason carries its `says` (Decision.says gives the user-facing text per code).
"""

from __future__ import annotations

from typing import Any

RISKS: tuple[str, ...] = ("read", "low", "medium", "high", "critical")
RISK_RANK: dict[str, int] = {risk: rank for rank, risk in enumerate(RISKS)}

NONE, SOFT, STRONG, HUMAN_REVIEW = "none", "soft", "strong", "human_review"
LEVELS: tuple[str, ...] = (NONE, SOFT, STRONG, HUMAN_REVIEW)
LEVEL_RANK: dict[str, int] = {level: rank for rank, level in enumerate(LEVELS)}

LEVEL_FOR_RISK: dict[str, str] = {
    "read": NONE,
    "low": SOFT,
    "medium": SOFT,
    "high": STRONG,
    "critical": HUMAN_REVIEW,
}

BATCH_THRESHOLD = 10
DESTRUCTIVE_VERBS: frozenset[str] = frozenset({"delete", "cancel"})

RISK_RULES: tuple[dict[str, Any], ...] = (
    {"code": "RISK_DESTRUCTIVE", "when": "verb_in", "verbs": DESTRUCTIVE_VERBS, "effect": "at_least", "risk": "high"},
    {"code": "RISK_BATCH", "when": "targets_over", "threshold": BATCH_THRESHOLD, "effect": "raise", "by": 1},
)


def level_for(risk: str) -> str:
    return LEVEL_FOR_RISK[risk]


def raise_risk(risk: str, by: int) -> str:
    return RISKS[min(RISK_RANK[risk] + by, len(RISKS) - 1)]


def step_risk(*, declared: str, capability_key: str, target_count: int) -> tuple[str, list[str]]:
    """The risk of one step after the rule table, and the codes of the rules that changed it."""
    risk, applied = declared, []
    verb = capability_key.rsplit(".", 1)[-1]
    for rule in RISK_RULES:
        if risk == "read":
            break
        if rule["when"] == "verb_in" and verb in rule["verbs"] and RISK_RANK[risk] < RISK_RANK[rule["risk"]]:
            risk = rule["risk"]
            applied.append(rule["code"])
        elif rule["when"] == "targets_over" and target_count > rule["threshold"]:
            risk = raise_risk(risk, rule["by"])
            applied.append(rule["code"])
    return risk, applied
