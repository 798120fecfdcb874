"""The cancel rule: what a cancel does to a step already calling the API when the user cancels.

A cancel always stops what has not started (pending steps, and steps sent to a worker but not
claimed yet). A step already in flight cannot be cut off mid-call (its request is out; the
capability's `cancellable` says nothing about a call under way), so the rule decides its fate:

- `finish` (the default, PRD-010 §18 "Vou concluir esta etapa e informar o resultado"): it
  finishes, its effect stays, and the reply says it was done.
- `compensate`: once it finished, its registered compensation runs (the same saga as a failed
  plan's, execution/compensation.py); a step without one stays done and the reply says so
  (ARCHITECTURE.md invariant 7: only a registered compensating capability undoes).

The default comes from `AGENT_CANCEL_IN_FLIGHT`; `AGENT_CANCEL_IN_FLIGHT_BY_TENANT` (tenant slug →
rule, code only) overrides it per organisation. The capability manifests are not consulted: the
rule is the organisation's, not the capability's.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from tenancy.models import Tenant

FINISH, COMPENSATE = "finish", "compensate"
RULES = (FINISH, COMPENSATE)


def in_flight_rule(*, tenant: Tenant) -> str:
    """`finish` or `compensate` for this tenant's steps in flight when a cancel arrives."""
    rule = (settings.AGENT_CANCEL_IN_FLIGHT_BY_TENANT or {}).get(tenant.slug, settings.AGENT_CANCEL_IN_FLIGHT)
    if rule not in RULES:
        # Fail closed on a typo: a rule nobody wrote must not silently undo or keep effects.
        raise ImproperlyConfigured(f"cancel rule for {tenant.slug!r} must be one of {RULES}, got {rule!r}")
    return rule
