"""The Adaptive Runtime Controller's decisions (PRD-034 §14-§43, §86, §91): how fast, how big, where.

Per *lane* — one capability calling one resource for one tenant — the controller keeps a small
state: the AIMD concurrency limit, the batch size, the timeout, the last outcomes (latency, error,
timeout), the circuit breaker and the health derived from them. Every observed call updates it:

- health (§23-§24, §86: plain thresholds): CRITICAL when ≥ 50 % of the window failed or timed
  out; DEGRADED when ≥ 20 % did, or the latency P50 exceeds `SLOW_FACTOR` × the timeout's start
  value; HEALTHY otherwise; UNKNOWN below `MIN_SAMPLES`. Decisions taken on UNKNOWN are the
  cautious ones (fail closed, §91): no increase.
- AIMD (§14-§17): a success on a healthy lane adds 1 to the limit at most once per cooldown; a
  timeout, 429 or 5xx halves it (multiplicative decrease) at most once per cooldown. Always
  clamped to the capability's registered [min, max]: the hard maximum is never exceeded.
- batch (§18-§20): halves on DEGRADED/CRITICAL, grows by a quarter when healthy, within
  [1, max_batch] of the registry.
- timeout (§33-§35): grows towards the registered maximum while calls time out, shrinks back to the
  registered start when they don't; never beyond max; and cut to the execution's remaining time.
- breaker (§32): opens when the window's failure rate ≥ `BREAKER_RATE` with ≥ `MIN_SAMPLES`
  calls, stays open `BREAKER_OPEN_S`, then lets one probe through (half-open): success closes
  it, failure re-opens it.

State is stored per lane in the shared store (execution/lane_store.py: Redis, keys
`rt:{tenant}:{lane}`) and changed with an optimistic compare-and-set on a version (§95-§97), so
every Celery worker sees and shapes the same limits; concurrency slots are leased tokens there.

The rules are written here rather than taken from a library: the resilience libraries for Python
(pybreaker, aiolimiter, tenacity) keep their state in process memory, while the state here must be
shared by workers and carry the registry's bounds and an audit of each change.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .lane_store import store
from .metrics import lane_state_set

WINDOW = 20
MIN_SAMPLES = 5
DEGRADED_RATE = 0.2
CRITICAL_RATE = 0.5
BREAKER_RATE = 0.5
BREAKER_OPEN_S = 2.0
COOLDOWN_S = 0.25
SLOW_FACTOR = 1.0  # P50 above the registered start timeout = slow

HEALTHY, DEGRADED, CRITICAL, UNKNOWN = "HEALTHY", "DEGRADED", "CRITICAL", "UNKNOWN"
CLOSED, OPEN, HALF_OPEN = "CLOSED", "OPEN", "HALF_OPEN"
FAILURE_KINDS = frozenset({"timeout", "rate_limit", "server_error"})


class EnvelopeViolation(ValueError):
    """The runtime was asked for something outside the capability's registered envelope (§13, §106)."""

    def __init__(self, code: str, **detail: Any) -> None:
        super().__init__(code)
        self.code, self.detail = code, detail


@dataclass(frozen=True)
class Envelope:
    """What the registry lets the runtime change for one capability (§9-§11, §20)."""

    min_concurrency: int
    initial_concurrency: int
    max_concurrency: int
    max_batch: int
    timeout_initial_ms: int
    timeout_max_ms: int
    hedgeable: bool
    fallbacks: tuple[str, ...]

    @classmethod
    def of(cls, spec: Any) -> Envelope:
        adaptation = spec.adaptation or {}
        concurrency = adaptation.get("concurrency") or {}
        timeout = adaptation.get("timeout_ms") or {}
        resource = spec.resource
        return cls(
            min_concurrency=int(concurrency.get("min", 1)), initial_concurrency=int(concurrency.get("initial", 1)),
            max_concurrency=int(concurrency.get("max", 1)), max_batch=int(adaptation.get("max_batch", 1)),
            timeout_initial_ms=int(timeout.get("initial") or getattr(resource, "timeout_initial_ms", 2000)),
            timeout_max_ms=int(timeout.get("max") or getattr(resource, "timeout_max_ms", 8000)),
            # Hedging only for reads that are idempotent and marked hedgeable (§36-§39).
            hedgeable=bool(adaptation.get("hedgeable")) and spec.kind == "read" and bool(spec.idempotent),
            fallbacks=spec.fallbacks)

    def check_batch(self, size: int) -> int:
        if not 1 <= size <= self.max_batch:
            raise EnvelopeViolation("BATCH_LIMIT_EXCEEDED", requested=size, max=self.max_batch)
        return size

    def check_concurrency(self, limit: int) -> int:
        if not self.min_concurrency <= limit <= self.max_concurrency:
            raise EnvelopeViolation("CONCURRENCY_LIMIT_EXCEEDED", requested=limit, max=self.max_concurrency)
        return limit

    def check_timeout(self, timeout_ms: int) -> int:
        if timeout_ms > self.timeout_max_ms:
            raise EnvelopeViolation("TIMEOUT_LIMIT_EXCEEDED", requested=timeout_ms, max=self.timeout_max_ms)
        return timeout_ms

    def check_fallback(self, resource: str, primary: str) -> str:
        if resource != primary and resource not in self.fallbacks:
            raise EnvelopeViolation("FALLBACK_NOT_REGISTERED", resource=resource)
        return resource


@dataclass(frozen=True)
class LaneState:
    limit: int
    batch: int
    timeout_ms: int
    window: tuple[tuple[str, float], ...] = ()  # (kind, latency ms): ok | timeout | rate_limit | server_error | error
    breaker: str = CLOSED
    opened_at: float = 0.0
    probing: bool = False
    health: str = UNKNOWN
    changed_at: float = 0.0  # last AIMD change (cooldown)

    @classmethod
    def initial(cls, envelope: Envelope) -> LaneState:
        return cls(limit=envelope.initial_concurrency, batch=envelope.max_batch,
                   timeout_ms=envelope.timeout_initial_ms)


@dataclass(frozen=True)
class Metrics:
    samples: int
    failure_rate: float
    timeout_rate: float
    p50_ms: float

    def as_dict(self) -> dict[str, Any]:
        return {"samples": self.samples, "failure_rate": round(self.failure_rate, 3),
                "timeout_rate": round(self.timeout_rate, 3), "p50_ms": round(self.p50_ms, 1)}


@dataclass(frozen=True)
class Change:
    """One adaptation: what changed, from what to what, why, on which numbers (§98-§101)."""

    kind: str
    old: Any
    new: Any
    reason: str
    metrics: dict[str, Any] = field(default_factory=dict)


def metrics_of(window: tuple[tuple[str, float], ...]) -> Metrics:
    if not window:
        return Metrics(0, 0.0, 0.0, 0.0)
    failures = sum(1 for kind, _ in window if kind in FAILURE_KINDS)
    timeouts = sum(1 for kind, _ in window if kind == "timeout")
    latencies = sorted(latency for _, latency in window)
    return Metrics(len(window), failures / len(window), timeouts / len(window), latencies[len(latencies) // 2])


def health_of(metrics: Metrics, envelope: Envelope) -> str:
    if metrics.samples < MIN_SAMPLES:
        return UNKNOWN
    if metrics.failure_rate >= CRITICAL_RATE:
        return CRITICAL
    if metrics.failure_rate >= DEGRADED_RATE or metrics.p50_ms > SLOW_FACTOR * envelope.timeout_initial_ms:
        return DEGRADED
    return HEALTHY


def observe(state: LaneState, envelope: Envelope, kind: str, latency_ms: float, now: float
            ) -> tuple[LaneState, list[Change]]:
    """The pure heart of the controller: one observed call → the lane's next state and its changes."""
    window = (state.window + ((kind, float(latency_ms)),))[-WINDOW:]
    metrics = metrics_of(window)
    health = health_of(metrics, envelope)
    changes: list[Change] = []
    m = metrics.as_dict()
    if health != state.health:
        changes.append(Change("HEALTH", state.health, health, "HEALTH_" + health, m))
    limit, changed_at = state.limit, state.changed_at
    cooled = now - state.changed_at >= COOLDOWN_S
    if kind in FAILURE_KINDS and cooled:
        limit = max(envelope.min_concurrency, state.limit // 2)
        reason = {"timeout": "TIMEOUTS", "rate_limit": "RATE_LIMITED"}.get(kind, "SERVER_ERRORS")
        if limit != state.limit:
            changes.append(Change("CONCURRENCY", state.limit, limit, reason, m))
        changed_at = now
    elif kind == "ok" and health == HEALTHY and cooled and state.limit < envelope.max_concurrency:
        limit = state.limit + 1
        changes.append(Change("CONCURRENCY", state.limit, limit, "HEALTHY_INCREASE", m))
        changed_at = now
    batch = state.batch
    if health in (DEGRADED, CRITICAL) and state.health not in (DEGRADED, CRITICAL) or kind == "rate_limit":
        batch = max(1, state.batch // 2)
    elif health == HEALTHY and kind == "ok" and cooled and state.batch < envelope.max_batch:
        batch = min(envelope.max_batch, max(state.batch + 1, state.batch * 5 // 4))
    if batch != state.batch:
        changes.append(Change("BATCH", state.batch, batch, "HEALTH_" + health if kind != "rate_limit"
                              else "RATE_LIMITED", m))
    timeout_ms = state.timeout_ms
    if kind == "timeout":
        timeout_ms = min(envelope.timeout_max_ms, int(state.timeout_ms * 1.5))
    elif health == HEALTHY:
        timeout_ms = envelope.timeout_initial_ms
    if timeout_ms != state.timeout_ms:
        changes.append(Change("TIMEOUT", state.timeout_ms, timeout_ms, "TIMEOUTS" if kind == "timeout"
                              else "HEALTHY_RESET", m))
    breaker, opened_at, probing = _breaker(state, kind, metrics, now)
    if breaker != state.breaker:
        changes.append(Change("BREAKER", state.breaker, breaker, "FAILURE_RATE" if breaker == OPEN
                              else "PROBE_SUCCEEDED", m))
        if breaker == CLOSED:
            window = window[-1:]  # a closed breaker starts counting afresh (the old failures led to the open)
    new = replace(state, limit=limit, batch=batch, timeout_ms=timeout_ms, window=window, breaker=breaker,
                  opened_at=opened_at, probing=probing, health=health, changed_at=changed_at)
    return new, changes


def _breaker(state: LaneState, kind: str, metrics: Metrics, now: float) -> tuple[str, float, bool]:
    failed = kind in FAILURE_KINDS
    if state.breaker == HALF_OPEN or state.probing:
        return (OPEN, now, False) if failed else (CLOSED, 0.0, False)
    if state.breaker == CLOSED and metrics.samples >= MIN_SAMPLES and metrics.failure_rate >= BREAKER_RATE:
        return OPEN, now, False
    return state.breaker, state.opened_at, False


def admit(state: LaneState, now: float) -> tuple[str, LaneState]:
    """May a call start on this lane? "go", "probe" (the one half-open call) or "open"."""
    if state.breaker == CLOSED:
        return "go", state
    if state.breaker == OPEN and now - state.opened_at >= BREAKER_OPEN_S and not state.probing:
        return "probe", replace(state, breaker=HALF_OPEN, probing=True)
    return "open", state


def call_timeout_ms(state: LaneState, envelope: Envelope, remaining_s: float | None) -> int | None:
    """The lane's timeout, never above the registered max, cut to the time the execution has left (§34)."""
    timeout = min(state.timeout_ms, envelope.timeout_max_ms)
    if remaining_s is None:
        return timeout
    left_ms = int(remaining_s * 1000)
    return None if left_ms < 50 else min(timeout, left_ms)


# --- the controller ---------------------------------------------------------------------------


def lane_key(tenant_id: Any, capability: str, resource: str) -> str:
    return f"rt:{tenant_id}:{capability}@{resource}"


def _dump(state: LaneState) -> str:
    return json.dumps(asdict(state), separators=(",", ":"))


def _load(value: str | None, envelope: Envelope) -> LaneState:
    if not value:
        return LaneState.initial(envelope)
    data = json.loads(value)
    data["window"] = tuple(tuple(w) for w in data.get("window", ()))
    state = LaneState(**data)
    # A registry change may have narrowed the envelope since the state was stored: re-clamp.
    return replace(state, limit=min(max(state.limit, envelope.min_concurrency), envelope.max_concurrency),
                   batch=min(max(1, state.batch), envelope.max_batch),
                   timeout_ms=min(state.timeout_ms, envelope.timeout_max_ms))


@dataclass
class Lane:
    """One capability on one resource for one tenant, as seen by this worker."""

    tenant_id: Any
    capability: str
    resource: str
    envelope: Envelope
    # The host's time, not tenancy.clock: a lane's breaker window, cooldown and slot leases are
    # compared only with each other, never with a row or a TTL another part writes.
    clock: Callable[[], float] = time.time
    last: LaneState | None = None  # this worker's latest read: enough for a limit or a timeout

    @property
    def key(self) -> str:
        return lane_key(self.tenant_id, self.capability, self.resource)

    def state(self) -> LaneState:
        self.last = _load(store().get(self.key)[1], self.envelope)
        return self.last

    def update(self, fn: Callable[[LaneState], tuple[LaneState, Any]], attempts: int = 20) -> Any:
        """Optimistic compare-and-set: read version, compute, write only if nobody wrote in between."""
        for _ in range(attempts):
            version, raw = store().get(self.key)
            current = _load(raw, self.envelope)
            new, result = fn(current)
            if new is None or store().cas(self.key, version, _dump(new)):
                self.last = new or current
                return result
        raise RuntimeError(f"lane {self.key} contended")

    def observe(self, kind: str, latency_ms: float) -> tuple[LaneState, list[Change]]:
        now = self.clock()

        def step(state: LaneState):
            new, changes = observe(state, self.envelope, kind, latency_ms, now)
            return new, (new, changes)
        new, changes = self.update(step)
        if changes:  # an adaptation: export the lane's breaker and limit
            lane_state_set(capability=self.capability, resource=self.resource, breaker=new.breaker, limit=new.limit)
        return new, changes

    def admit(self) -> str:
        now = self.clock()

        def step(state: LaneState):
            verdict, new = admit(state, now)
            return (new if new is not state else None), verdict
        return self.update(step)

    def acquire(self, lease_s: float) -> str | None:
        """A concurrency slot under the lane's current limit (None: at the limit — back off, §43)."""
        token = uuid.uuid4().hex
        limit = (self.last or self.state()).limit
        got = store().acquire(self.key + ":slots", token, limit, lease_s, self.clock())
        return token if got > 0 else None

    def release(self, token: str) -> None:
        store().release(self.key + ":slots", token)

    def peak(self) -> int:
        return store().peak(self.key + ":slots")


def lanes_clear(tenant_id: Any) -> None:
    """Forget a tenant's lanes (tests and benchmarks)."""
    store().clear(f"rt:{tenant_id}:")
