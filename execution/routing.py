"""Where a call may go, and which of those resources a kill switch stops (PRD-034 §21-§22, §61-§62).

A RESOURCE kill switch stops calls to the resource it names, not the capability (a CAPABILITY
switch does that). The runtime routes a capability's call to its primary, or — while the primary's
breaker is open — to a fallback registered by both the capability and its resource
(`control.Envelope`). So the switch is checked on that route, not on the primary alone:

- `revalidate_on_route(caller, ...)`: the step's `policy.services.revalidate` with the caller's
  route; the step is refused (KILL_SWITCH) only when every resource of the route is stopped, and
  the stopped ones are remembered on the caller (`caller.stopped`).
- `stopped_for(caller)`: what the lane choice (`envelope.open_lane`) skips. A caller no
  revalidation on its route told (a single step, the batch loop before its first item) reads the
  raised switches now, once: a call never reaches a stopped resource because nobody looked.

So a stopped primary with a registered, healthy fallback is served by the fallback (switching to a
registered fallback is an automatic adaptation, §89), and a stopped fallback is never called, even
while the primary's breaker is open: that resource is unavailable, and the runtime waits for it
(then replans, execution/replan.py) as for any other.

`caller` is any object with `tenant_id`, `spec`, `envelope` and a `stopped` attribute
(envelope.Caller and the batch's Ctx); this module sits below envelope.py and imports only control.
"""

from __future__ import annotations

from typing import Any

from policy.services import Revalidation, resources_stopped_now, revalidate

from .control import Envelope


def route_for(spec: Any, envelope: Envelope | None = None) -> tuple[str, ...]:
    """The resources a call of `spec` may go to: the primary first, then the registered fallbacks
    (none for a capability that calls nothing, a navigation)."""
    if spec.resource is None:
        return ()
    return (spec.resource.key, *(envelope or Envelope.of(spec)).fallbacks)


def revalidate_on_route(caller: Any, **check: Any) -> Revalidation:
    """`revalidate(**check)` on the caller's route; the resources it found stopped are the caller's."""
    result = revalidate(resources=route_for(caller.spec, caller.envelope), **check)
    caller.stopped = result.stopped_resources
    return result


def stopped_for(caller: Any) -> frozenset[str]:
    """The resources of the caller's route a kill switch stops. A route of the primary alone needs
    no read: the step's revalidation, just before its call, refuses the step when it is stopped.
    Every resource stopped: the caller halts (KILL_SWITCH), as its revalidation would refuse it —
    a batch must not wait for a resource a person stopped on purpose."""
    if caller.stopped is None:
        route = route_for(caller.spec, caller.envelope)
        caller.stopped = (resources_stopped_now(tenant=caller.tenant_id, resources=route)
                          if len(route) > 1 else frozenset())
        if caller.stopped and caller.stopped >= set(route):
            caller.halt("KILL_SWITCH")
    return caller.stopped


def switch_reason(caller: Any) -> str:
    """Why a call left the primary: a kill switch on it, or its open breaker."""
    return "KILL_SWITCH" if caller.spec.resource.key in (caller.stopped or ()) else "BREAKER_OPEN"
