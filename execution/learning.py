"""Learning without authority (PRD-034 §102-§104): suggestions from observed runs, for admins to review.

From the recorded adaptations, per capability lane: when the controller kept cutting the batch
because the lane degraded, propose the size it settled on as the capability's default ("batch 25:
1 % timeouts; batch 50: 12 %"). A suggestion is a row an admin accepts or rejects in the admin; nothing
in the runtime reads it, so accepting one changes nothing until the manifest is changed and approved
through the registry's own two-person process.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import timedelta
from typing import Any

from registry.selectors import registry_snapshot
from tenancy import clock

from .models import RuntimeAdaptation, RuntimeOptimizationSuggestion, SuggestionStatus

MIN_SHRINKS = 3


def suggestions_derive(*, since: timedelta = timedelta(days=1)) -> list[RuntimeOptimizationSuggestion]:
    """Record one PROPOSED suggestion per (tenant, lane) whose batch was cut at least MIN_SHRINKS times."""
    cuts: dict[tuple[Any, str], list[RuntimeAdaptation]] = defaultdict(list)
    rows = (RuntimeAdaptation.objects.all_tenants().filter(kind="BATCH", at__gte=clock.now() - since)
            .exclude(reason="RATE_LIMITED"))
    for row in rows:
        if isinstance(row.old, int) and isinstance(row.new, int) and row.new < row.old:
            cuts[(row.tenant_id, row.lane)].append(row)
    snapshot = registry_snapshot()
    created = []
    for (tenant_id, lane), shrinks in cuts.items():
        capability, _, resource = lane.partition("@")
        spec = snapshot.get(capability)
        if spec is None or len(shrinks) < MIN_SHRINKS:
            continue
        current = int((spec.adaptation or {}).get("max_batch", 1))
        proposed = Counter(r.new for r in shrinks).most_common(1)[0][0]
        if proposed >= current or RuntimeOptimizationSuggestion.objects.for_tenant(tenant_id).filter(
                capability=capability, resource=resource, status=SuggestionStatus.PROPOSED).exists():
            continue
        rates = [r.metrics.get("timeout_rate", 0) for r in shrinks]
        created.append(RuntimeOptimizationSuggestion.objects.create(
            tenant_id=tenant_id, capability=capability, resource=resource, current={"max_batch": current},
            proposed={"max_batch": proposed},
            evidence={"adaptations": [r.pk for r in shrinks[:20]], "shrinks": len(shrinks),
                      "executions": len({r.execution_id for r in shrinks}),
                      "timeout_rate_at_cut": round(sum(rates) / len(rates), 3)},
            confidence=min(1.0, len(shrinks) / 10), expected_improvement=round(sum(rates) / len(rates), 3),
            created_at=clock.now()))
    return created


def suggestion_review(*, suggestion: RuntimeOptimizationSuggestion, actor: Any, accept: bool
                      ) -> RuntimeOptimizationSuggestion:
    """Mark a suggestion reviewed (audited). It changes no runtime behaviour by itself (§104)."""
    from policy.audit import audit_record

    status = SuggestionStatus.ACCEPTED if accept else SuggestionStatus.REJECTED
    RuntimeOptimizationSuggestion.objects.for_tenant(suggestion.tenant_id).filter(
        pk=suggestion.pk, status=SuggestionStatus.PROPOSED).update(status=status, reviewed_by=actor)
    audit_record(tenant=suggestion.tenant, actor=actor, event_type="runtime.suggestion.reviewed",
                 target_type="runtime_suggestion", target_id=str(suggestion.pk),
                 old={"status": suggestion.status}, new={"status": status})
    suggestion.refresh_from_db()
    return suggestion
