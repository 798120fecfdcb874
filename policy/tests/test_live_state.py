"""The live checks are one statement, and that statement still reads the live state every time.

Query counts are pinned (revalidate: the receipt + live state, then the check INSERT; evaluate: the
live state). The transactional tests commit a change on *another connection* (a thread) right
before the check, after a passing check has warmed every per-process structure, and the check
must see it: revocation, role change, deactivation, suspension, tenant block, guardian grants,
kill switches of every reach — and a lift, so nothing negative is cached either.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from guardian.shortcuts import assign_perm, remove_perm

from conftest import make_tenant, make_user
from policy.live import Grant, live_read, live_read_orm, live_state_parse, live_state_sql, receipt_with_live
from policy.models import KillSwitch, Outcome, PolicyReceipt, ReceiptCheck, Scope
from policy.services import Approval, evaluate, receipt_issue, revalidate
from registry.models import TenantCapabilityBlock
from tenancy.models import Membership, Role

from .factories import capability, facts_for, plan_hash, step, suspend

INPUT = {"id": 1, "validity_days": 10}
postgres_only = pytest.mark.skipif(connection.vendor != "postgresql",
                                   reason="one statement is PostgreSQL's (SQLite reads through the ORM)")


def _issue(actor, tenant, cap, plan_id):
    approval = Approval(confirmation_id=uuid.uuid4(), plan_id=plan_id, plan_hash=plan_hash(), level="soft",
                        approved_by=actor.pk, approved_at=timezone.now())
    receipt = receipt_issue(actor=actor, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash(), steps=[step(cap)],
                            facts=facts_for(tenant, ("workPermit", 1)), approval=approval)
    assert receipt.decision == Outcome.ALLOW, receipt.reasons
    return receipt


def _check(receipt, actor, tenant, cap, plan_id, execution_id="exec-1"):
    return revalidate(receipt_id=receipt.pk, actor=actor, tenant=tenant, plan_id=plan_id, step_id="s1",
                      capability=(cap.capability.key, cap.version), input=INPUT,
                      facts=facts_for(tenant, ("workPermit", 1)), execution_started_at=timezone.now(),
                      execution_id=execution_id)


def _committed_elsewhere(change: Callable[[], object]) -> None:
    """Run `change` in its own transaction on another thread's connection; return once it committed."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with transaction.atomic():
                change()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread below
            errors.append(exc)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive() and not errors, errors


# --- query counts ----------------------------------------------------------------------------------------


@postgres_only
@pytest.mark.django_db
def test_evaluate_reads_the_whole_live_state_in_one_query(operator, tenant, caps, django_assert_num_queries):
    team = Group.objects.create(name="editors")
    operator.groups.add(team)
    assign_perm("registry.use_capability", team, caps["add"].capability)
    KillSwitch.objects.create(scope=Scope.CAPABILITY, target="workPermit.nothing", tenant=tenant, reason="x",
                              set_by=operator, set_at=timezone.now())
    steps = [step(caps["add"], step_id="a"), step(caps["validity"], step_id="b"),
             step(caps["get"], step_id="c", input={"id": 1})]
    facts = facts_for(tenant, ("workPermit", 1))
    evaluate(actor=operator, tenant=tenant, steps=steps, facts=facts)  # builds the registry snapshot
    with django_assert_num_queries(1):
        decision = evaluate(actor=operator, tenant=tenant, steps=steps, facts=facts)
    assert decision.outcome == Outcome.REQUIRE_CONFIRMATION, decision.codes


@postgres_only
@pytest.mark.django_db
def test_a_live_state_read_ahead_is_used_only_for_its_own_tenant_actor_and_capabilities(
        operator, other_user, tenant, caps, django_assert_num_queries):
    steps = [step(caps["validity"])]
    facts = facts_for(tenant, ("workPermit", 1))
    key = caps["validity"].capability.key
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {live_state_sql(tenant_sql='%s::uuid', user_sql='%s::bigint', keys_sql='%s::text[]')}",
                       [str(tenant.pk), operator.pk, [key]])
        text = cursor.fetchone()[0]
    evaluate(actor=operator, tenant=tenant, steps=steps, facts=facts)  # builds the registry snapshot
    ahead = live_state_parse(text, tenant_id=tenant.pk, user_id=operator.pk, keys=[key])
    with django_assert_num_queries(0):
        decision = evaluate(actor=operator, tenant=tenant, steps=steps, facts=facts, live=ahead)
    assert decision.outcome == Outcome.REQUIRE_CONFIRMATION, decision.codes
    # Another actor, or other capabilities than the steps': read again, never trusted.
    for actor, keys in ((other_user, [key]), (operator, [key, "workPermit.other"])):
        other = live_state_parse(text, tenant_id=tenant.pk, user_id=operator.pk, keys=keys)
        with django_assert_num_queries(1):
            evaluate(actor=actor, tenant=tenant, steps=steps, facts=facts, live=other)


@postgres_only
@pytest.mark.django_db
def test_revalidate_is_one_read_and_the_check_insert(operator, tenant, caps, plan_id, django_assert_num_queries):
    receipt = _issue(operator, tenant, caps["validity"], plan_id)
    assert _check(receipt, operator, tenant, caps["validity"], plan_id).ok
    with django_assert_num_queries(2) as captured:
        result = _check(receipt, operator, tenant, caps["validity"], plan_id)
    assert result.ok, result
    read, insert = (q["sql"] for q in captured.captured_queries)
    assert read.startswith("SELECT policy_live_state(") and str(receipt.pk) in read
    assert insert.startswith('INSERT INTO "policy_receiptcheck"')
    assert ReceiptCheck.objects.for_tenant(tenant).get(pk=result.check_id).ok


@postgres_only
@pytest.mark.django_db
def test_a_refused_revalidation_costs_no_more_queries(operator, tenant, caps, plan_id, django_assert_num_queries):
    receipt = _issue(operator, tenant, caps["validity"], plan_id)
    assert _check(receipt, operator, tenant, caps["validity"], plan_id).ok
    Membership.objects.filter(user=operator, tenant=tenant).update(role=Role.VIEWER)
    with django_assert_num_queries(2):
        result = _check(receipt, operator, tenant, caps["validity"], plan_id)
    assert result.code == "PERMISSION_MISSING"


@postgres_only
@pytest.mark.django_db
def test_a_registry_change_rebuilds_the_snapshot_once(operator, tenant, caps, plan_id):
    receipt = _issue(operator, tenant, caps["validity"], plan_id)
    assert _check(receipt, operator, tenant, caps["validity"], plan_id).ok
    suspend(caps["get"])  # another capability: the registry version moves
    with CaptureQueriesContext(connection) as rebuild:
        assert _check(receipt, operator, tenant, caps["validity"], plan_id).ok
    with CaptureQueriesContext(connection) as warm:
        assert _check(receipt, operator, tenant, caps["validity"], plan_id).ok
    assert len(rebuild) > 2 and len(warm) == 2


@pytest.mark.django_db
def test_revalidate_says_which_registry_version_it_checked_against(operator, tenant, caps, plan_id):
    from registry.selectors import registry_version

    receipt = _issue(operator, tenant, caps["validity"], plan_id)
    before = _check(receipt, operator, tenant, caps["validity"], plan_id)
    assert before.ok and before.registry_version == registry_version()
    suspend(caps["get"])
    after = _check(receipt, operator, tenant, caps["validity"], plan_id)
    assert after.registry_version == registry_version() != before.registry_version
    refused = revalidate(receipt_id="not-a-receipt", actor=operator, tenant=tenant, plan_id=plan_id, step_id="s1",
                         capability=("workPermit.updateValidity", 1), input=INPUT, facts={},
                         execution_started_at=timezone.now())
    assert refused.registry_version is None


@postgres_only
@pytest.mark.django_db
def test_an_unknown_receipt_reads_nothing_live(operator, tenant, caps, plan_id, django_assert_num_queries):
    with django_assert_num_queries(2):  # the (missing) receipt, the check INSERT
        result = revalidate(receipt_id=uuid.uuid4(), actor=operator, tenant=tenant, plan_id=plan_id, step_id="s1",
                            capability=("workPermit.updateValidity", 1), input=INPUT, facts={},
                            execution_started_at=timezone.now())
    assert result.code == "RECEIPT_NOT_FOUND"


# --- the one statement reads exactly what the ORM reads ------------------------------------------------


@pytest.mark.django_db
def test_the_live_statement_agrees_with_the_orm_state_by_state(tenant, other_tenant, operator, other_user, caps):
    keys = ["workPermit.updateValidity", "workPermit.components.add", "workPermit.delete", "workPermit.ghost"]
    team, strangers = Group.objects.create(name="team"), Group.objects.create(name="strangers")
    operator.groups.add(team)
    colleague = make_user(tenant, Role.OPERATOR)
    now = timezone.now()

    def same(actor, tenant_=tenant) -> None:
        assert live_read(actor=actor, tenant=tenant_, keys=keys) == live_read_orm(actor=actor, tenant=tenant_,
                                                                                  keys=keys)

    for actor in (operator, colleague, other_user, None):
        same(actor)
    assign_perm("registry.use_capability", operator, caps["validity"].capability)  # granted directly
    assign_perm("registry.use_capability", team, caps["add"].capability)  # granted through a group
    assign_perm("registry.use_capability", strangers, caps["delete"].capability)  # restricted, not granted
    for scope, switch_tenant, target in [(Scope.GLOBAL, None, ""), (Scope.TENANT, tenant, ""),
                                         (Scope.TENANT, other_tenant, ""), (Scope.CAPABILITY, None, "x.y"),
                                         (Scope.EXECUTION, tenant, "exec-1")]:
        KillSwitch.objects.create(scope=scope, tenant=switch_tenant, target=target, reason="r", set_by=operator,
                                  set_at=now)
    KillSwitch.objects.create(scope=Scope.RESOURCE, target="sst-api", reason="r", set_by=operator, set_at=now,
                              lifted_at=now, lifted_by=operator)
    for actor in (operator, colleague, other_user, None):
        same(actor)
    same(other_user, other_tenant)
    state = live_read(actor=operator, tenant=tenant, keys=keys)
    assert state.role == Role.OPERATOR and state.user_active
    assert state.capabilities["workPermit.updateValidity"] == Grant(caps["validity"].capability.pk, True, True)
    assert state.capabilities["workPermit.components.add"] == Grant(caps["add"].capability.pk, True, True)
    assert state.capabilities["workPermit.delete"] == Grant(caps["delete"].capability.pk, True, False)
    assert "workPermit.ghost" not in state.capabilities
    assert [(s.scope, s.target) for s in state.switches] == [
        (Scope.GLOBAL, ""), (Scope.TENANT, ""), (Scope.CAPABILITY, "x.y"), (Scope.EXECUTION, "exec-1")]
    assert live_read(actor=colleague, tenant=tenant, keys=keys).capabilities["workPermit.components.add"].granted \
        is False


@pytest.mark.django_db
def test_the_receipt_read_with_the_live_state_is_the_stored_row_of_that_tenant_only(operator, tenant, other_tenant,
                                                                                   caps, plan_id):
    issued = _issue(operator, tenant, caps["validity"], plan_id)
    stored = PolicyReceipt.objects.for_tenant(tenant).get(pk=issued.pk)
    read, live = receipt_with_live(tenant=tenant, receipt_pk=issued.pk, actor=operator, keys=["workPermit.x"])
    fields = [f.attname for f in PolicyReceipt._meta.concrete_fields]
    assert [getattr(read, f) for f in fields] == [getattr(stored, f) for f in fields]
    assert live == live_read(actor=operator, tenant=tenant, keys=["workPermit.x"])
    assert not read._state.adding
    assert receipt_with_live(tenant=other_tenant, receipt_pk=issued.pk, actor=operator, keys=[]) == (None, None)
    assert receipt_with_live(tenant=tenant, receipt_pk=uuid.uuid4(), actor=operator, keys=[]) == (None, None)


# --- committed by another connection just before the check ---------------------------------------------


def _runtime_user():
    return get_user_model().objects.create_user(username=f"ops-{uuid.uuid4().hex[:8]}")


def _raise(scope: str, tenant=None, target: str = ""):
    def change() -> None:
        KillSwitch.objects.create(scope=scope, tenant=tenant, target=target, reason="incident",
                                  set_by=_runtime_user(), set_at=timezone.now())
    return change


def _grant_to_team(w) -> None:
    assign_perm("registry.use_capability", w.team, w.cap.capability)  # restricted, granted through the group
    assign_perm("registry.use_capability", make_user(w.tenant, Role.OPERATOR), w.cap.capability)  # stays restricted


# name → (prepared before the first check, the change committed elsewhere, the code the next check must give)
CHANGES: dict[str, tuple[Callable | None, Callable[..., Callable[[], object]], str]] = {
    "membership revoked": (None, lambda w: lambda: Membership.objects.filter(user=w.actor, tenant=w.tenant)
                           .delete(), "NOT_A_MEMBER"),
    "role lowered": (None, lambda w: lambda: Membership.objects.filter(user=w.actor, tenant=w.tenant)
                     .update(role=Role.VIEWER), "PERMISSION_MISSING"),
    "user deactivated": (None, lambda w: lambda: type(w.actor).objects.filter(pk=w.actor.pk)
                         .update(is_active=False), "NOT_A_MEMBER"),
    "capability suspended": (None, lambda w: lambda: suspend(w.cap), "CAPABILITY_NOT_ACTIVE"),
    "capability blocked for the tenant": (
        None, lambda w: lambda: TenantCapabilityBlock.objects.create(tenant=w.tenant, capability=w.cap.capability,
                                                                     reason="customer asked"),
        "CAPABILITY_BLOCKED_FOR_TENANT"),
    "capability granted to someone else only": (
        None, lambda w: lambda: assign_perm("registry.use_capability", make_user(w.tenant, Role.OPERATOR),
                                            w.cap.capability),
        "CAPABILITY_NOT_GRANTED"),
    "group grant withdrawn": (_grant_to_team, lambda w: lambda: remove_perm("registry.use_capability", w.team,
                                                                            w.cap.capability),
                              "CAPABILITY_NOT_GRANTED"),
    "actor left the granted group": (_grant_to_team, lambda w: lambda: w.actor.groups.remove(w.team),
                                     "CAPABILITY_NOT_GRANTED"),
    "global kill switch": (None, lambda w: _raise(Scope.GLOBAL), "KILL_SWITCH"),
    "tenant kill switch": (None, lambda w: _raise(Scope.TENANT, w.tenant), "KILL_SWITCH"),
    "capability kill switch": (None, lambda w: _raise(Scope.CAPABILITY, target=w.cap.capability.key), "KILL_SWITCH"),
    "resource kill switch": (None, lambda w: _raise(Scope.RESOURCE, target="sst-api"), "KILL_SWITCH"),
    "execution kill switch": (None, lambda w: _raise(Scope.EXECUTION, w.tenant, "exec-1"), "KILL_SWITCH"),
}


class World:
    """A tenant, an operator in a group, and a capability of its own, so the cases do not meet."""

    def __init__(self, name: str) -> None:
        self.tenant = make_tenant(name)
        self.actor = make_user(self.tenant, Role.OPERATOR)
        self.team = Group.objects.create(name=f"editors-{name}")
        self.actor.groups.add(self.team)
        self.cap = capability(f"workPermit.{name}.update", risk="medium")


def _lift_every_switch() -> None:
    _committed_elsewhere(lambda: KillSwitch.objects.filter(lifted_at__isnull=True)
                         .update(lifted_at=timezone.now(), lifted_by=_runtime_user()))


# One transactional test walks every case (each in its own world): a flush per case would cost more
# than all the checks together. The message names the case that failed.
@postgres_only
@pytest.mark.django_db(transaction=True)
def test_revalidate_sees_every_change_committed_by_another_connection_just_before():
    for n, (name, (prepare, make_change, code)) in enumerate(CHANGES.items()):
        world, plan_id = World(f"case{n}"), uuid.uuid4()
        if prepare:
            prepare(world)
        receipt = _issue(world.actor, world.tenant, world.cap, plan_id)
        first = _check(receipt, world.actor, world.tenant, world.cap, plan_id)  # warms the snapshot
        assert first.ok, (name, first)
        _committed_elsewhere(make_change(world))
        result = _check(receipt, world.actor, world.tenant, world.cap, plan_id)
        assert (result.ok, result.code) == (False, code), name
        recorded = ReceiptCheck.objects.for_tenant(world.tenant).get(pk=result.check_id)
        assert (recorded.ok, recorded.code) == (False, code), name
        _lift_every_switch()


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_lift_and_a_suspension_committed_elsewhere_are_seen_by_the_next_check_and_evaluation():
    world, plan_id = World("lift"), uuid.uuid4()
    receipt = _issue(world.actor, world.tenant, world.cap, plan_id)
    _committed_elsewhere(_raise(Scope.TENANT, world.tenant))
    assert _check(receipt, world.actor, world.tenant, world.cap, plan_id).code == "KILL_SWITCH"
    _lift_every_switch()
    assert _check(receipt, world.actor, world.tenant, world.cap, plan_id).ok  # nothing negative is cached either
    steps, facts = [step(world.cap)], facts_for(world.tenant, ("workPermit", 1))
    assert evaluate(actor=world.actor, tenant=world.tenant, steps=steps, facts=facts).outcome != Outcome.DENY
    _committed_elsewhere(lambda: suspend(world.cap))
    assert evaluate(actor=world.actor, tenant=world.tenant, steps=steps, facts=facts).codes == [
        "CAPABILITY_NOT_ACTIVE"]
