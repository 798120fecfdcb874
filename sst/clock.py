"""Today, by the server's clock: the one TTLs read (tenancy.clock), which test control may move forward.

Inspection dates are compared with it (a reschedule into the past is refused) and counted from it
(a scenario's `scheduled_in_days`), so the agent, the SST API and the scenario runner agree on "today".
"""

from __future__ import annotations

from datetime import date

from django.utils import timezone

from tenancy import clock


def today() -> date:
    return timezone.localdate(clock.now())
