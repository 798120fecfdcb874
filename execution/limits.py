"""The numbers every layer of execution shares, read from settings: how long a step's lease lasts,
the adaptive runtime's default budget (PRD-034 §66, §69) and its heartbeat timeout; and the clock an
execution's start is read on (`tenancy.clock`, like every other timestamp of execution and policy).

Kept at the bottom of the app (it imports nothing of execution) so that the engine, the batch
controller, the priority router and the runtime state all read the same values without importing
one another.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings

from tenancy import clock


def start_clock_now() -> datetime:
    """Now on the clock of the receipts: what an execution's `started_at` and the receipt check that
    lets it start are read on.

    Policy stamps a receipt's issue and expiry, and checks an execution's start against them
    (`policy.services.revalidate`: not before issue, not after expiry, not after its own now), on
    `tenancy.clock`, so this is that clock too: execution has a single clock throughout. Kept as a
    function of its own so the start and the receipt stay on one clock if either ever moves."""
    return clock.now()


def step_lease() -> timedelta:
    """How long a claimed step (or batch item) is held: the broker's visibility timeout."""
    return timedelta(seconds=settings.EXECUTION_STEP_LEASE_SECONDS)


def default_budget() -> dict[str, int]:
    """§66 / §69 defaults; `RUNTIME_BUDGET` in settings overrides any of them.

    max_llm_calls counts the planner's call that produced the plan (planner = llm) and every
    planner call made while replanning; max_replans the replans of one execution; max_depth how
    far a replacement plan may be from the user's own plan (a replan of a replan of …); max_items
    the batch items of one execution (all its batch steps together)."""
    return {"max_duration_s": 3600, "max_steps": 5000, "max_api_calls": 20000, "max_retries":
            settings.EXECUTION_RETRY_BUDGET, "max_llm_calls": 2, "max_replans": 2,
            "max_depth": 2, "max_items": 1000, **settings.RUNTIME_BUDGET}


def heartbeat_timeout_s() -> int:
    return settings.RUNTIME_HEARTBEAT_TIMEOUT_SECONDS or max(3, settings.EXECUTION_STEP_LEASE_SECONDS * 2)
