"""Calling a resource under a capability's adaptive envelope (PRD-034 §14-§43): the one way a single
step (execution/perform.py) and a batch item (execution/batch_item.py) reach an API.

  lane     the primary while its breaker lets calls through (a half-open probe included), else a
           fallback registered by both the capability and its resource; never one a kill switch
           stops (execution/routing.py); none: no call is made
  slot     a leased token under the lane's shared AIMD limit (backpressure: wait, with jitter)
  timeout  the lane's, never above the registered maximum, cut to what the execution has left;
           nothing left: no call, a TIMEOUT (`DEADLINE_EXCEEDED`)
  hedge    a hedgeable read (reads only, Envelope.of) slower than 3 × the lane's P50 gets a second
           request and the first answer wins; never inline, where the call shares the caller's
           connection and transaction, nor in a web request running its own read plan (IN_REQUEST)
  observe  the outcome feeds the lane (a late success counts as a timeout: an in-process call
           cannot be cut), and each adaptation it causes is recorded

`Caller` is one execution's calls of one capability (or, with no execution, a (user, tenant)'s: a
conversation planning its operation); the batch's `Ctx` extends it with the step and its items. What
the two do when no lane or no slot is left differs (a batch waits and may replan, a single step is
retried by the retry policy), so those are the callers' decisions. `EnvelopeSession` is what a
caller passes where a ToolSession was taken (facts, verification, conflicts, compensations): every
call it makes goes through `call_resource`, so no external call bypasses the envelope.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, wait
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from registry.selectors import CapabilitySpec, RegistrySnapshot
from tenancy import clock
from tenancy.models import Tenant

from . import hedge_pool
from .control import BREAKER_OPEN_S, OPEN, Envelope, Lane, call_timeout_ms
from .dispatch import eager
from .errors import ErrorClass, Outcome
from .limits import default_budget, start_clock_now
from .models import Execution
from .retry import backoff_s
from .routing import stopped_for
from .runtime import session_for
from .runtime_state import adaptation_record
from .tool_runtime import ToolResult, ToolSession

# True while a web request runs a read plan itself (execution/inline.py). Its reads are not hedged:
# the second request would take another thread and another database connection from the web
# process's pool, which the request threads need (under load a wait for the pool is a 503), and the
# request's own budget (EXECUTION_INLINE_READ_MS) already hands a slow plan to a worker.
IN_REQUEST: ContextVar[bool] = ContextVar("execution_in_request", default=False)

DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED"
CIRCUIT_OPEN = "CIRCUIT_OPEN"
CONCURRENCY_LIMIT = "CONCURRENCY_LIMIT"
REFUSED = frozenset({DEADLINE_EXCEEDED, CIRCUIT_OPEN, CONCURRENCY_LIMIT})

_KIND = {ErrorClass.TIMEOUT: "timeout", ErrorClass.RATE_LIMIT: "rate_limit",
         ErrorClass.TEMPORARY_UNAVAILABLE: "server_error", ErrorClass.SERVER_ERROR: "server_error",
         ErrorClass.NETWORK: "server_error"}


@dataclass
class Caller:
    execution: Execution | None  # None: a call outside an execution (`tenant` and `actor_id` say whose)
    spec: CapabilitySpec
    snapshot: RegistrySnapshot
    envelope: Envelope
    stop: threading.Event = field(default_factory=threading.Event)
    inline: bool = False  # eager (embedded default): one thread, the caller's connection and transaction
    deadline_at: datetime | None = None
    now: Callable[[], datetime] = clock.now  # the clock `deadline_at` was written on
    stop_code: str | None = None
    calls: int = 0
    call_ms: float = 0.0
    stopped: frozenset[str] | None = None  # resources a kill switch stops; None: not read yet (execution/routing.py)
    tenant: Tenant | None = None  # only without an execution
    actor_id: int | None = None
    wait_open: bool = True  # an open breaker is waited out once (call_resource); False: refused at once

    @property
    def tenant_id(self) -> Any:
        return self.execution.tenant_id if self.execution is not None else self.tenant.pk

    def session(self) -> ToolSession:
        if self.execution is not None:
            return session_for(user_id=self.execution.actor_id, tenant=self.execution.tenant)
        return session_for(user_id=self.actor_id, tenant=self.tenant)

    def halt(self, code: str) -> None:
        self.stop_code = self.stop_code or code
        self.stop.set()

    def remaining_s(self) -> float | None:
        return None if self.deadline_at is None else (self.deadline_at - self.now()).total_seconds()


def step_caller(execution: Execution, spec: CapabilitySpec, snapshot: RegistrySnapshot) -> Caller:
    """A single step's caller. Its deadline is the execution's time budget from its start, read on
    the start's own clock (limits.start_clock_now), which needs no runtime row: a single step does
    not create one just to be timed."""
    return Caller(execution, spec, snapshot, Envelope.of(spec), inline=eager(), deadline_at=step_deadline(execution),
                  now=start_clock_now)


def step_deadline(execution: Execution) -> datetime:
    return execution.started_at + timedelta(seconds=default_budget()["max_duration_s"])


def lane_for(caller: Caller, resource: str) -> Lane:
    return Lane(caller.tenant_id, caller.spec.id,
                caller.envelope.check_fallback(resource, caller.spec.resource.key), caller.envelope)


def open_lane(caller: Caller) -> Lane | None:
    """The primary while its breaker lets calls through, else the first registered fallback whose does (§21-§22)."""
    for resource in (caller.spec.resource.key, *caller.envelope.fallbacks):
        if resource in stopped_for(caller):  # a RESOURCE kill switch: never called (execution/routing.py)
            continue
        lane = lane_for(caller, resource)
        if lane.state().breaker != OPEN or lane.admit() == "probe":
            return lane
    return None


def acquire_slot(caller: Caller, lane: Lane, *, wait_s: float | None = None) -> str | None:
    """Backpressure (§43): wait, with jitter, for a slot under the lane's shared limit — until the
    caller stops, or `wait_s` has passed. None: no slot."""
    waited = 0.0
    while not caller.stop.is_set():
        token = lane.acquire(lease_s=max(5.0, caller.envelope.timeout_max_ms / 1000 * 2))
        if token is not None:
            return token
        if wait_s is not None and waited >= wait_s:
            return None
        pause = backoff_s(1, initial_ms=20, multiplier=2, max_ms=40, jitter="equal")
        caller.stop.wait(pause)
        waited += pause
    return None


def call_in_lane(caller: Caller, lane: Lane, values: dict[str, Any], *, key: str | None,
                 slot_wait_s: float | None = None) -> ToolResult | None:
    """One call of the capability on `lane` under the envelope, the lane fed with its outcome.
    None: no slot came free (nothing was sent)."""
    token = acquire_slot(caller, lane, wait_s=slot_wait_s)
    if token is None:
        return None
    try:
        result = _call(caller, lane, values, key)
    finally:
        lane.release(token)
    if result.error_code != DEADLINE_EXCEEDED:  # not sent: nothing the lane should learn from
        _observe(caller, lane, result)
    return result


def refused(code: str) -> ToolResult:
    """The answer of a call the envelope did not let out (nothing was sent: never an UNKNOWN)."""
    error_class = ErrorClass.TIMEOUT if code == DEADLINE_EXCEEDED else ErrorClass.TEMPORARY_UNAVAILABLE
    return ToolResult(outcome=Outcome.FAILED, status_code=None, body=None, error_class=error_class,
                      error_code=code, latency_ms=0.0)


def was_refused(result: ToolResult) -> bool:
    """The envelope answered without a call (nothing reached the resource: not a call to count)."""
    return result.status_code is None and result.error_code in REFUSED


def call_resource(caller: Caller, values: dict[str, Any], *, key: str | None) -> ToolResult:
    """A single step's call. With every route's breaker open it waits out the open window once (at most
    BREAKER_OPEN_S), so that it may be the half-open probe: a step asked again right after an outage
    ended ("tente novamente") reaches the resource instead of being refused before it could try.
    Still open (the probe failed, or another call took it), or no slot within the call's longest
    timeout: refused (CIRCUIT_OPEN / CONCURRENCY_LIMIT, temporary: the retry policy decides)."""
    lane = open_lane(caller) or (_after_open_window(caller) if caller.wait_open else None)
    if lane is None:
        return refused(CIRCUIT_OPEN)
    result = call_in_lane(caller, lane, values, key=key, slot_wait_s=caller.envelope.timeout_max_ms / 1000)
    return refused(CONCURRENCY_LIMIT) if result is None else result


def breaker_wait_s(tenant_id: Any, spec: CapabilitySpec) -> float | None:
    """How long until a call of `spec` may reach a resource again, as its lanes' breakers say now: None
    when one of its routes lets calls through; else the seconds until the first open one lets its
    probe through (one open window when the probe is already out, or the window has just passed)."""
    envelope = Envelope.of(spec)
    waits = []
    for resource in (spec.resource.key, *envelope.fallbacks):
        lane = Lane(tenant_id, spec.id, envelope.check_fallback(resource, spec.resource.key), envelope)
        state = lane.state()
        if state.breaker != OPEN and not state.probing:
            return None
        left = state.opened_at + BREAKER_OPEN_S - lane.clock() if state.breaker == OPEN else 0.0
        waits.append(left if left > 0 else BREAKER_OPEN_S)
    return min(waits) if waits else None


def _after_open_window(caller: Caller, poll_s: float = 0.1) -> Lane | None:
    waited = 0.0
    while waited < BREAKER_OPEN_S + poll_s and not caller.stop.is_set():
        left = caller.remaining_s()
        if left is not None and left < BREAKER_OPEN_S:
            return None  # no time to wait: refused now, as before
        caller.stop.wait(poll_s)
        waited += poll_s
        lane = open_lane(caller)
        if lane is not None:
            return lane
    return None


def spec_on(caller: Caller, lane: Lane) -> CapabilitySpec:
    """The capability as called on the lane's resource (a fallback's base URL and timeouts)."""
    if lane.resource == caller.spec.resource.key:
        return caller.spec
    return replace(caller.spec, resource=caller.snapshot.resources[lane.resource])


def _call(caller: Caller, lane: Lane, values: dict[str, Any], key: str | None) -> ToolResult:
    timeout_ms = call_timeout_ms(lane.last or lane.state(), caller.envelope, caller.remaining_s())  # §34
    if timeout_ms is None:
        caller.halt(DEADLINE_EXCEEDED)
        return refused(DEADLINE_EXCEEDED)
    spec = spec_on(caller, lane)
    if caller.envelope.hedgeable and not caller.inline and not IN_REQUEST.get():
        result = _hedged(caller, lane, spec, values, timeout_ms)
    else:
        result = caller.session().invoke(capability=spec, input=values, idempotency_key=key, timeout_ms=timeout_ms)
    caller.calls += 1
    caller.call_ms += result.latency_ms
    return result


def _hedged(caller: Caller, lane: Lane, spec: CapabilitySpec, values: dict[str, Any], timeout_ms: int) -> ToolResult:
    """A read slower than the lane's P50 × 3 gets a second request; the first answer wins (§36-§38)."""
    threshold_s = max(0.05, min(timeout_ms, 3 * max(1.0, _p50(lane))) / 1000)

    def one() -> ToolResult:  # on a kept pool thread, with its own connection and session (hedge_pool.py)
        return caller.session().invoke(capability=spec, input=values, timeout_ms=timeout_ms)

    first = hedge_pool.submit(one)
    done, _ = wait([first], timeout=threshold_s)
    if done:
        return first.result()
    second = hedge_pool.submit(one)
    done, _ = wait([first, second], return_when=FIRST_COMPLETED)
    caller.calls += 1
    return next(iter(done)).result()  # the slower request finishes on its own; its answer is dropped


def _p50(lane: Lane) -> float:
    latencies = sorted(latency for kind, latency in (lane.last or lane.state()).window if kind == "ok")
    return latencies[len(latencies) // 2] if latencies else 100.0


def _observe(caller: Caller, lane: Lane, result: ToolResult) -> None:
    kind = "ok" if result.outcome == Outcome.SUCCEEDED else _KIND.get(result.error_class, "error")
    if kind == "ok" and result.latency_ms > (lane.last or lane.state()).timeout_ms:
        kind = "timeout"  # late: an in-process call cannot be cut, but the lane counts it as timed out
    _, changes = lane.observe(kind, result.latency_ms)
    for change in changes if caller.execution is not None else ():  # adaptations are an execution's record
        adaptation_record(execution=caller.execution, lane=f"{caller.spec.id}@{lane.resource}", change=change,
                          resource_label=lane.resource)


@dataclass
class EnvelopeSession:
    """Takes anything with a ToolSession's `invoke`: each call under its own capability's envelope
    (`call_resource`: lane, breaker, slot, deadline, hedging of hedgeable reads), sharing the
    execution, deadline, inline flag and clock it was made with. A Caller per call, so each has its
    own stop signal: a batch that is stopping still learns whether the write it just made holds."""

    snapshot: RegistrySnapshot
    execution: Execution | None = None
    tenant: Tenant | None = None
    actor_id: int | None = None
    inline: bool = False
    deadline_at: datetime | None = None
    now: Callable[[], datetime] = clock.now
    wait_open: bool = True

    @classmethod
    def for_execution(cls, execution: Execution, snapshot: RegistrySnapshot) -> EnvelopeSession:
        """An execution's calls, under its deadline (as its steps': step_caller)."""
        return cls(snapshot, execution, inline=eager(), deadline_at=step_deadline(execution), now=start_clock_now)

    @classmethod
    def outside(cls, *, actor_id: int, tenant: Tenant, snapshot: RegistrySnapshot) -> EnvelopeSession:
        """Calls outside an execution (a conversation planning): no deadline, never hedged (the
        caller is a web request), and an open breaker refuses at once rather than holding the turn."""
        return cls(snapshot, None, tenant, actor_id, inline=True, wait_open=False)

    @classmethod
    def of(cls, caller: Caller) -> EnvelopeSession:
        """The calls a caller makes around its own (a write's verification re-reads): its deadline."""
        return cls(caller.snapshot, caller.execution, caller.tenant, caller.actor_id, inline=caller.inline,
                   deadline_at=caller.deadline_at, now=caller.now)

    def invoke(self, *, capability: CapabilitySpec, input: dict[str, Any],  # noqa: A002 - ToolSession's name
               idempotency_key: str | None = None, timeout_ms: int | None = None) -> ToolResult:
        """`timeout_ms` is not taken: the lane's timeout, cut to the deadline, is the call's."""
        caller = Caller(self.execution, capability, self.snapshot, Envelope.of(capability), inline=self.inline,
                        deadline_at=self.deadline_at, now=self.now, tenant=self.tenant, actor_id=self.actor_id,
                        wait_open=self.wait_open)
        return call_resource(caller, dict(input), key=idempotency_key)
