"""The decision itself: `gather` reads the live state, `decide` judges it, with no I/O.

Split so the CPU part can be measured apart from the database round trips (bench/policy_eval.py)
and so every rule is a plain function of data. Inputs are only: the authenticated actor and
tenant, their membership role, the registry (capability status/version/risk/permissions,
tenant blocks), guardian `use_capability` grants, raised kill switches, the plan's steps and the
server-side facts the caller read about the targets. Nothing from the LLM or retrieved knowledge
is an input; `context` keys other than the execution/plan ids are ignored on purpose.

Fail closed: any missing or malformed attribute is a DENY reason, never a default. All reasons
found are reported (not only the first), so a caller can show the user the real cause.

`use_capability` (django-guardian, on registry.Capability): a capability that has *no* grant at
all is governed by roles alone; once an admin grants it to any user or group it becomes
restricted, and only grantees (directly or through a group) may use it. Grants narrow, never
widen: the role's required permissions are still needed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import registry_adapter as registry
from .canonical import CanonicalizationError, canonical_input_hash
from .live import LiveRead, Switch, live_read, live_read_for
from .models import Level, Outcome, Scope
from .rules import LEVEL_FOR_RISK, RISK_RANK, step_risk


@dataclass(frozen=True)
class Reason:
    code: str
    step_id: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "step_id": self.step_id, **({"data": dict(self.data)} if self.data else {})}


@dataclass(frozen=True)
class Target:
    type: str
    id: str
    revision: int | None = None

    @property
    def key(self) -> str:
        return target_key(self.type, self.id)

    def to_dict(self) -> dict[str, Any]:
        pinned = {"revision": self.revision} if self.revision is not None else {}
        return {"type": self.type, "id": self.id, **pinned}


def target_key(type_: str, id_: object) -> str:
    """The key of a target in `facts`: `"<entity type>:<id>"`."""
    return f"{type_}:{id_}"


@dataclass(frozen=True)
class Step:
    """A plan step as policy sees it: capability id + version, input, the entities it touches."""

    id: str
    capability: str
    version: int
    input: Mapping[str, Any]
    targets: tuple[Target, ...] = ()

    @classmethod
    def parse(cls, value: Step | Mapping[str, Any]) -> Step:
        """A Step from a mapping `{id, capability, version, input, targets:[{type, id, revision?}]}`."""
        if isinstance(value, Step):
            value = {"id": value.id, "capability": value.capability, "version": value.version,
                     "input": value.input, "targets": [t.to_dict() for t in value.targets]}
        if not isinstance(value, Mapping):
            raise ValueError("a step is an object")
        step_id, key, version, input_ = (value.get(k) for k in ("id", "capability", "version", "input"))
        if not isinstance(step_id, str) or not step_id or len(step_id) > 100:
            raise ValueError("step id")
        if not isinstance(key, str) or not key:
            raise ValueError("capability")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise ValueError("version")
        if not isinstance(input_, Mapping):
            raise ValueError("input")
        targets = value.get("targets", [])
        if not isinstance(targets, list | tuple):
            raise ValueError("targets")
        return cls(id=step_id, capability=key, version=version, input=input_,
                   targets=tuple(_parse_target(t) for t in targets))


def _parse_target(value: Any) -> Target:
    if isinstance(value, Target):
        return value
    if not isinstance(value, Mapping):
        raise ValueError("target")
    type_, id_, revision = value.get("type"), value.get("id"), value.get("revision")
    if not isinstance(type_, str) or not type_:
        raise ValueError("target type")
    if isinstance(id_, bool) or not isinstance(id_, str | int) or id_ == "":
        raise ValueError("target id")
    if revision is not None and (isinstance(revision, bool) or not isinstance(revision, int)):
        raise ValueError("target revision")
    return Target(type=type_, id=str(id_), revision=revision)


@dataclass(frozen=True)
class StepAssessment:
    step_id: str
    capability: str
    version: int
    input_hash: str
    risk: str
    targets: tuple[Target, ...]

    def binding(self) -> dict[str, Any]:
        """What a receipt pins for this step."""
        return {"capability": self.capability, "version": self.version, "input_hash": self.input_hash,
                "targets": [t.to_dict() for t in self.targets]}


@dataclass(frozen=True)
class Decision:
    outcome: str
    level: str
    risk: str
    reasons: tuple[Reason, ...]
    steps: tuple[StepAssessment, ...] = ()

    @property
    def allowed(self) -> bool:
        return self.outcome == Outcome.ALLOW

    @property
    def codes(self) -> list[str]:
        return [r.code for r in self.reasons]

    def says(self, language: str, value_label: Callable[[str, Any], str] | None = None) -> dict[str, str]:
        """Code → the user-facing text a failed precondition declared (`says`) in `language`; "{value}" in it is
        the fact's value as the user reads it (`value_label(fact, value)`, else the value itself)."""
        said: dict[str, str] = {}
        for r in self.reasons:
            texts = r.data.get("says") if isinstance(r.data, Mapping) else None
            if isinstance(texts, Mapping):
                text = texts.get(language) or texts.get("pt-BR") or next(iter(texts.values()), None)
                if isinstance(text, str):
                    value = r.data.get("value")
                    shown = value_label(str(r.data.get("fact")), value) if value_label else str(value)
                    said.setdefault(r.code, text.replace("{value}", shown))
        return said

    def to_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "level": self.level, "risk": self.risk,
                "reasons": [r.to_dict() for r in self.reasons]}


@dataclass(frozen=True)
class LiveState:
    tenant_id: str
    role: str | None
    actor_active: bool
    permissions: frozenset[str]
    capabilities: Mapping[str, registry.CapabilityFacts]
    blocked: frozenset[str]
    restricted: frozenset[str]
    granted: frozenset[str]
    switches: tuple[Switch, ...]
    agent_version: str
    registry_version: int | None = None  # of the registry snapshot `capabilities` and `blocked` come from


# --- gather: the database reads -------------------------------------------------------------


def gather(*, actor: Any, tenant: Any, steps: Sequence[Step], agent_version: str,
           live: LiveRead | None = None) -> LiveState:
    """Everything `decide` needs that lives in the database: one statement (`policy.live`).

    `live` is that statement's result when the caller already read it alongside something else
    (revalidate reads it with the receipt). The registry snapshot is reused only for the registry
    version the statement read (a rebuild costs a few queries, once per registry change).
    """
    authenticated = actor is not None and getattr(actor, "is_authenticated", False) and tenant is not None
    live = live_read_for(live, actor=actor, tenant=tenant, keys=(s.capability for s in steps))
    if live is None:  # none, or read ahead for another actor or other capabilities: read it now
        live = live_read(actor=actor, tenant=tenant, keys=(s.capability for s in steps))
    role = live.role if authenticated else None
    snapshot = registry.snapshot_at(live.registry_version)
    capabilities, blocked = registry.capability_facts(
        ((s.capability, s.version) for s in steps), tenant=tenant, snapshot=snapshot,
        pks={key: grant.pk for key, grant in live.capabilities.items()})
    grants = live.capabilities if role is not None else {}
    return LiveState(
        tenant_id=str(tenant.pk) if tenant is not None else "",
        role=role,
        # Both the instance the caller holds and the row now: a deactivation commits to the row.
        actor_active=bool(authenticated and getattr(actor, "is_active", False) and live.user_active),
        permissions=registry.permissions_for_role(role),
        capabilities=capabilities,
        blocked=blocked,
        restricted=frozenset(key for key, grant in grants.items() if grant.restricted),
        granted=frozenset(key for key, grant in grants.items() if grant.granted),
        switches=live.switches if tenant is not None else (),
        agent_version=agent_version,
        registry_version=snapshot.version,
    )


# --- decide: pure -----------------------------------------------------------------------------


def _plan_switches(state: LiveState, execution_ids: Iterable[str]) -> list[Reason]:
    ids = {i for i in execution_ids if i}
    reasons = []
    for switch in state.switches:
        hit = (switch.scope == Scope.GLOBAL or switch.scope == Scope.TENANT
               or (switch.scope == Scope.AGENT and switch.target == state.agent_version)
               or (switch.scope == Scope.EXECUTION and switch.target in ids))
        if hit:
            reasons.append(Reason("KILL_SWITCH", data={"scope": switch.scope, "switch": switch.id}))
    return reasons


def resources_stopped(state: LiveState, resources: Iterable[str]) -> frozenset[str]:
    """The ones of `resources` a raised RESOURCE kill switch stops."""
    wanted = {r for r in resources if r}
    return frozenset(s.target for s in state.switches if s.scope == Scope.RESOURCE and s.target in wanted)


def _step_switches(state: LiveState, step: Step, route: Sequence[str]) -> list[Reason]:
    """A RESOURCE switch stops calls to its resource, not the capability: the step is stopped only
    when every resource it may be routed to (`route`: its primary, then the registered fallbacks
    the caller may use) is. Which of them the call avoids is the caller's (revalidate reports them)."""
    reasons = [Reason("KILL_SWITCH", step.id, {"scope": s.scope, "switch": s.id}) for s in state.switches
               if s.scope == Scope.CAPABILITY and s.target == step.capability]
    route = [r for r in route if r]
    if route and resources_stopped(state, route) == set(route):
        reasons += [Reason("KILL_SWITCH", step.id, {"scope": s.scope, "switch": s.id, "resource": s.target})
                    for s in state.switches if s.scope == Scope.RESOURCE and s.target in route]
    return reasons


def _capability_reasons(state: LiveState, step: Step, route: Sequence[str] = ()
                        ) -> tuple[list[Reason], registry.VersionFacts | None]:
    facts = state.capabilities.get(step.capability)
    if facts is None:
        return [Reason("CAPABILITY_UNKNOWN", step.id, {"capability": step.capability})], None
    version = facts.versions.get(step.version)
    if version is None:
        return [Reason("CAPABILITY_VERSION_UNKNOWN", step.id, {"version": step.version})], None
    reasons: list[Reason] = []
    if version.status != registry.ACTIVE:
        active = facts.active_version
        code = "CAPABILITY_VERSION_STALE" if active is not None else "CAPABILITY_NOT_ACTIVE"
        reasons.append(Reason(code, step.id, {"status": version.status, "active_version": active}))
    if version.risk not in RISK_RANK or not version.required_permissions:
        reasons.append(Reason("CAPABILITY_MALFORMED", step.id))
    if step.capability in state.blocked:
        reasons.append(Reason("CAPABILITY_BLOCKED_FOR_TENANT", step.id))
    missing = version.required_permissions - state.permissions
    if missing:
        reasons.append(Reason("PERMISSION_MISSING", step.id, {"missing": sorted(missing)}))
    if step.capability in state.restricted and step.capability not in state.granted:
        reasons.append(Reason("CAPABILITY_NOT_GRANTED", step.id))
    return reasons + _step_switches(state, step, route or (version.resource, *version.fallbacks)), version


def _precondition_reasons(step: Step, target: Target, facts: Mapping[str, Any],
                          rules: Sequence[Mapping[str, Any]]) -> list[Reason]:
    reasons = []
    for rule in rules:
        if rule.get("target", target.type) != target.type:
            continue
        name = rule.get("fact")
        if name not in facts or facts[name] is None:
            reasons.append(Reason("FACT_MISSING", step.id, {"target": target.key, "fact": name}))
            continue
        value = facts[name]
        failed = ("in" in rule and value not in rule["in"]) or ("not_in" in rule and value in rule["not_in"])
        if failed:
            data = {"target": target.key, "fact": name, "value": value}
            if isinstance(rule.get("says"), Mapping):
                data["says"] = dict(rule["says"])
            reasons.append(Reason(str(rule.get("code") or "PRECONDITION_FAILED"), step.id, data))
    return reasons


def _target_reasons(state: LiveState, step: Step, all_facts: Mapping[str, Any],
                    version: registry.VersionFacts | None) -> list[Reason]:
    reasons: list[Reason] = []
    for target in step.targets:
        facts = all_facts.get(target.key)
        if facts is None:
            reasons.append(Reason("TARGET_FACTS_MISSING", step.id, {"target": target.key}))
            continue
        if not isinstance(facts, Mapping) or not isinstance(facts.get("tenant"), str):
            reasons.append(Reason("FACTS_MALFORMED", step.id, {"target": target.key}))
            continue
        if facts.get("exists", True) is not True:
            reasons.append(Reason("TARGET_NOT_FOUND", step.id, {"target": target.key}))
            continue
        if facts["tenant"] != state.tenant_id:
            reasons.append(Reason("TARGET_TENANT_MISMATCH", step.id, {"target": target.key}))
            continue
        if target.revision is not None and facts.get("revision") != target.revision:
            reasons.append(Reason("TARGET_CHANGED", step.id, {"target": target.key, "pinned": target.revision,
                                                              "now": facts.get("revision")}))
        if version is not None:
            reasons += _precondition_reasons(step, target, facts, version.preconditions)
    return reasons


def decide(*, state: LiveState, steps: Sequence[Step | Mapping[str, Any]], facts: Any,
           execution_ids: Iterable[str] = (), routes: Mapping[str, Sequence[str]] | None = None) -> Decision:
    """`routes`: per step id, the resources its call may go to (default: the capability's primary and
    its registered fallbacks)."""
    reasons: list[Reason] = []
    if not state.actor_active or state.role is None:
        reasons.append(Reason("NOT_A_MEMBER"))
    reasons += _plan_switches(state, execution_ids)
    if not isinstance(facts, Mapping):
        reasons.append(Reason("FACTS_MALFORMED"))
        facts = {}
    parsed: list[Step] = []
    if not isinstance(steps, Sequence) or isinstance(steps, str | bytes) or not steps:
        reasons.append(Reason("PLAN_EMPTY"))
        steps = []
    for index, raw in enumerate(steps):
        try:
            parsed.append(Step.parse(raw))
        except ValueError as exc:
            reasons.append(Reason("STEP_MALFORMED", data={"index": index, "field": str(exc)}))
    if len({s.id for s in parsed}) != len(parsed):
        reasons.append(Reason("STEP_ID_DUPLICATE"))
    assessments: list[StepAssessment] = []
    for step in parsed:
        step_reasons, version = _capability_reasons(state, step, (routes or {}).get(step.id, ()))
        reasons += step_reasons
        reasons += _target_reasons(state, step, facts, version)
        try:
            input_hash = canonical_input_hash(step.input)
        except CanonicalizationError as exc:
            reasons.append(Reason("INPUT_NOT_CANONICAL", step.id, {"detail": str(exc)}))
            continue
        if version is None or version.risk not in RISK_RANK:
            continue
        risk, applied = step_risk(declared=version.risk, capability_key=step.capability,
                                  target_count=len(step.targets))
        reasons += [Reason(code, step.id) for code in applied]
        assessments.append(StepAssessment(step.id, step.capability, step.version, input_hash, risk, step.targets))
    return _outcome(reasons, assessments)


def _outcome(reasons: list[Reason], assessments: list[StepAssessment]) -> Decision:
    risk = max((a.risk for a in assessments), key=RISK_RANK.__getitem__, default="")
    denied = [r for r in reasons if not r.code.startswith("RISK_")]
    if denied:
        return Decision(Outcome.DENY, Level.NONE, risk, tuple(reasons), tuple(assessments))
    level = LEVEL_FOR_RISK[risk]
    if level == Level.NONE:
        return Decision(Outcome.ALLOW, level, risk, tuple(reasons), tuple(assessments))
    reasons.append(Reason("CONFIRMATION_REQUIRED", data={"risk": risk, "level": level}))
    return Decision(Outcome.REQUIRE_CONFIRMATION, level, risk, tuple(reasons), tuple(assessments))
