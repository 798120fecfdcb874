"""The runtime watchdog (PRD-034 §45-§48), run by beat through `execution.watchdog`: a runtime whose
heartbeat is older than its timeout is marked STALLED and its execution resumed from the checkpoint
(`execution_resume`: steps whose lease expired go back to the queue; the next worker re-validates
and continues from the items, completed ones never run again).

It sits above services (it resumes through them), and the tasks module is the only caller.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction

from tenancy import clock
from tenancy.models import Tenant

from .lane_store import store
from .models import RuntimeAdaptation, RuntimeExecution, RuntimeStatus, TimelineType
from .runtime_state import adaptation_message, runtime_cas
from .services import execution_resume
from .timeline import timeline_add

# What the watchdog watches: a PAUSED runtime has no worker on purpose (its steps are parked), so no
# heartbeat is expected from it.
WATCHED = (RuntimeStatus.RUNNING, RuntimeStatus.DEGRADED, RuntimeStatus.WAITING, RuntimeStatus.REPLANNING)


def runtime_watchdog(*, now=None) -> list[str]:
    """Beat sweep: runtimes whose heartbeat is older than their timeout → STALLED → resumed.

    Two beats running at once do not double the work: a short Redis lock lets one sweep at a time,
    and each STALLED transition is a CAS, so one execution is recovered once per stall.
    """
    if not store().lock("rt:watchdog", ttl_s=5):
        return []
    now = now or clock.now()
    recovered = []
    candidates = (RuntimeExecution.objects.all_tenants().select_related("execution")
                  .filter(status__in=WATCHED, execution__status="running"))
    for runtime in candidates:
        if runtime.last_heartbeat_at + timedelta(seconds=runtime.heartbeat_timeout_s) > now:
            continue
        execution = runtime.execution
        stalled_for = (now - runtime.last_heartbeat_at).total_seconds()
        with transaction.atomic():
            if not runtime_cas(runtime=runtime, status=RuntimeStatus.STALLED, reason="HEARTBEAT_TIMEOUT"):
                continue
            RuntimeAdaptation.objects.create(
                tenant_id=runtime.tenant_id, execution=execution, kind="STATUS", old="RUNNING", new="STALLED",
                reason="HEARTBEAT_TIMEOUT", metrics={"stalled_s": round(stalled_for, 1)},
                runtime_version=runtime.version, at=now,
                message=adaptation_message("STATUS", "RUNNING", "STALLED", "HEARTBEAT_TIMEOUT", "-",
                                           {"stalled_s": round(stalled_for, 1)}))
            timeline_add(execution=execution, type=TimelineType.EXECUTION_STALLED,
                         data={"stalled_s": round(stalled_for, 1)}, at=now)
        # Recovery = resume from the checkpoint (the items): the next worker re-validates and continues.
        # A fresh heartbeat as grace: the worker that takes the step over beats from here on.
        runtime_cas(runtime=runtime, status=RuntimeStatus.RUNNING, reason="RECOVERED", last_heartbeat_at=now)
        execution_resume(execution_id=execution.pk, tenant=Tenant.objects.get(pk=runtime.tenant_id))
        recovered.append(str(execution.pk))
    return recovered
