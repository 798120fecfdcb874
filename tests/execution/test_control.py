"""The controller's rules, on a fake clock (no sleeping): AIMD, batch, timeout, breaker, health,
envelope guards (§106), deadline-aware timeouts and material-change detection (the priority rule is
in test_adaptive_priority.py)."""

from __future__ import annotations

import pytest

from execution.control import (
    BREAKER_OPEN_S,
    CLOSED,
    OPEN,
    Envelope,
    EnvelopeViolation,
    Lane,
    LaneState,
    admit,
    call_timeout_ms,
    lanes_clear,
    observe,
)
from execution.replan import plan_change_impact

ENV = Envelope(min_concurrency=1, initial_concurrency=5, max_concurrency=5, max_batch=25, timeout_initial_ms=500,
               timeout_max_ms=2000, hedgeable=True, fallbacks=("compliance-api-secondary",))


def _run(state, kind, latency, n, t0, dt=0.3):
    changes = []
    for i in range(n):
        state, c = observe(state, ENV, kind, latency, t0 + i * dt)
        changes += c
    return state, changes, t0 + n * dt


def test_a_latency_spike_shrinks_concurrency_and_batch_and_both_recover_after():
    state, _, t = _run(LaneState.initial(ENV), "ok", 50, 10, 0.0)
    assert (state.health, state.limit, state.batch) == ("HEALTHY", 5, 25)
    spiked, changes, t = _run(state, "timeout", 2000, 12, t)
    assert spiked.limit < 5 and spiked.batch < 25 and spiked.timeout_ms <= ENV.timeout_max_ms
    assert {c.kind for c in changes} >= {"CONCURRENCY", "BATCH", "TIMEOUT", "HEALTH"}
    assert all(c.reason and "failure_rate" in c.metrics for c in changes)
    # The breaker opened on the failure rate; after the open period one probe succeeds and closes it.
    assert spiked.breaker == OPEN
    verdict, probing = admit(spiked, t + BREAKER_OPEN_S)
    assert verdict == "probe"
    recovered, _, _ = _run(probing, "ok", 50, 60, t + BREAKER_OPEN_S)
    assert (recovered.breaker, recovered.health, recovered.limit, recovered.batch) == (CLOSED, "HEALTHY", 5, 25)
    assert recovered.timeout_ms == ENV.timeout_initial_ms


def test_a_429_storm_opens_the_breaker_and_nothing_passes_until_half_open():
    state, _, t = _run(LaneState.initial(ENV), "rate_limit", 20, 6, 0.0)
    assert state.breaker == OPEN and state.limit == ENV.min_concurrency
    assert admit(state, t)[0] == "open"
    assert admit(state, state.opened_at + BREAKER_OPEN_S - 0.01)[0] == "open"
    verdict, half = admit(state, state.opened_at + BREAKER_OPEN_S)
    assert verdict == "probe" and admit(half, state.opened_at + BREAKER_OPEN_S)[0] == "open"  # one probe only
    failed, _ = observe(half, ENV, "rate_limit", 20, state.opened_at + BREAKER_OPEN_S + 0.1)
    assert failed.breaker == OPEN


def test_the_hard_maximum_holds_however_healthy_the_lane_is():
    state, _, _ = _run(LaneState.initial(ENV), "ok", 1, 500, 0.0)
    assert state.limit == ENV.max_concurrency and state.batch == ENV.max_batch


def test_unknown_health_never_increases_anything():
    state = LaneState(limit=2, batch=5, timeout_ms=500)
    state, changes = observe(state, ENV, "ok", 10, 10.0)
    assert state.health == "UNKNOWN" and (state.limit, state.batch) == (2, 5)


@pytest.mark.parametrize("attempt, code", [
    (lambda: ENV.check_batch(26), "BATCH_LIMIT_EXCEEDED"),
    (lambda: ENV.check_concurrency(6), "CONCURRENCY_LIMIT_EXCEEDED"),
    (lambda: ENV.check_timeout(600_000), "TIMEOUT_LIMIT_EXCEEDED"),
    (lambda: ENV.check_fallback("some-other-api", "compliance-api"), "FALLBACK_NOT_REGISTERED"),
])
def test_the_runtime_cannot_leave_the_registered_envelope(attempt, code):
    with pytest.raises(EnvelopeViolation) as caught:
        attempt()
    assert caught.value.code == code


def test_a_fallback_must_be_registered_on_both_the_capability_and_its_resource(registry):
    spec = registry.get("workPermit.checkCompliance")
    assert Envelope.of(spec).fallbacks == ("compliance-api-secondary",)
    assert Envelope.of(registry.get("workPermit.checkTraining")).fallbacks == ()
    assert Envelope.of(registry.get("workPermit.recordDecision")).hedgeable is False  # writes are never hedged


def test_timeouts_respect_the_deadline_and_the_registered_maximum():
    state = LaneState(limit=1, batch=1, timeout_ms=1800)
    assert call_timeout_ms(state, ENV, None) == 1800
    assert call_timeout_ms(state, ENV, 0.5) == 500
    assert call_timeout_ms(state, ENV, 0.01) is None  # no time left: do not start a call


def test_a_replan_that_changes_resources_scope_or_risk_needs_reapproval():
    old = [{"id": "c", "capability": "workPermit.checkCompliance", "version": 1, "input": {},
            "targets": [{"type": "workPermit", "id": 1}]}]
    same = plan_change_impact(old, old, old_risk=1, new_risk=1, resources_of=lambda s: "compliance-api")
    assert not same.requires_reapproval
    wider = [{**old[0], "targets": [{"type": "workPermit", "id": 1}, {"type": "workPermit", "id": 2}]}]
    assert plan_change_impact(old, wider, old_risk=1, new_risk=1, resources_of=lambda s: "x").scope_delta == 1
    other = [{**old[0], "capability": "workPermit.read"}]
    impact = plan_change_impact(old, other, old_risk=1, new_risk=2, resources_of=lambda s: s["capability"])
    assert impact.requires_reapproval and impact.changed_steps == ("c",) and impact.authorization_impact


def test_lanes_are_shared_through_the_store_with_compare_and_set(tenant):
    lanes_clear(tenant.pk)
    clock = iter(x * 0.3 for x in range(1000))
    a = Lane(tenant.pk, "cap", "res", ENV, clock=lambda: next(clock))
    b = Lane(tenant.pk, "cap", "res", ENV, clock=lambda: next(clock))
    for _ in range(6):
        a.observe("timeout", 2000)
    assert b.state().limit == a.state().limit < ENV.initial_concurrency  # another worker sees the cut
    tokens = [b.acquire(lease_s=5) for _ in range(ENV.max_concurrency)]
    assert sum(t is not None for t in tokens) == b.state().limit and b.peak() == b.state().limit
    lanes_clear(tenant.pk)


def test_thirty_minutes_of_phases_on_an_accelerated_clock_keep_every_bound(tenant):
    """§107 on the controller with a fake clock: 30 simulated minutes (healthy, spike, outage with the
    breaker cycling, recovery) through the shared store, in well under a second of wall time."""
    lanes_clear(tenant.pk)
    now = [0.0]
    lane = Lane(tenant.pk, "workPermit.checkCompliance", "compliance-api", ENV, clock=lambda: now[0])
    phases = [(600, "ok", 50), (300, "timeout", 2000), (300, "server_error", 5), (600, "ok", 60)]
    seen_open = seen_probe = 0
    for seconds, kind, latency in phases:
        for _ in range(seconds):
            now[0] += 1.0
            verdict = lane.admit()
            seen_probe += verdict == "probe"
            if verdict == "open":
                seen_open += 1
                continue
            state, _ = lane.observe(kind, latency)
            assert ENV.min_concurrency <= state.limit <= ENV.max_concurrency
            assert 1 <= state.batch <= ENV.max_batch and state.timeout_ms <= ENV.timeout_max_ms
    final = lane.state()
    assert seen_open > 0 and seen_probe > 1  # the breaker blocked calls and probed again and again
    assert (final.breaker, final.health, final.limit, final.batch) == (CLOSED, "HEALTHY", 5, 25)
    lanes_clear(tenant.pk)
