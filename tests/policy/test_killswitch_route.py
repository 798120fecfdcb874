"""RESOURCE kill switches are checked on the resources a call may actually go to (issue 19 point 3.1):
`revalidate(resources=...)` names the route (primary, then the registered fallbacks the runtime may
use); a switch on one of them stops calls to it, and the step is refused only when none is left."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth.models import Permission

from conftest import make_user
from policy.models import ReceiptCheck, Scope
from policy.services import kill_switch_set, resources_stopped_now, revalidate
from policy.tests.conftest import caps, plan_id  # noqa: F401 - fixtures of the policy suite
from policy.tests.factories import facts_for
from policy.tests.test_receipts import INPUT, _issue
from tenancy.models import Role

pytestmark = pytest.mark.django_db
PRIMARY, FALLBACK = "sst-api", "sst-api-secondary"  # the test capabilities' resource (factories)


def _stop(tenant, *resources, scoped_to=None):
    if not resources:
        return
    admin = make_user(tenant, Role.ADMIN)
    admin.user_permissions.add(Permission.objects.get(codename="runtime_admin"))
    for resource in resources:
        kill_switch_set(actor=admin, scope=Scope.RESOURCE, target=resource, reason="incident", tenant=scoped_to)


def _check(operator, tenant, plan_id, cap, *, stop=(), **route):  # noqa: F811 - plan_id is the fixture's value
    """Confirmed first, the switches raised during the execution, then the step's check."""
    receipt = _issue(operator, tenant, plan_id, cap)
    _stop(tenant, *stop)
    return revalidate(receipt_id=receipt.pk, actor=operator, tenant=tenant, plan_id=plan_id, step_id="s1",
                      capability=(cap.capability.key, cap.version), input=INPUT,
                      facts=facts_for(tenant, ("workPermit", 1)), execution_started_at=receipt.issued_at,
                      execution_id=uuid.uuid4(), **route)


def test_a_stopped_fallback_is_reported_and_the_step_still_passes_on_its_primary(
        operator, tenant, caps, plan_id):  # noqa: F811
    result = _check(operator, tenant, plan_id, caps["validity"], stop=[FALLBACK], resources=(PRIMARY, FALLBACK))
    assert (result.ok, result.stopped_resources) == (True, frozenset({FALLBACK}))
    check = ReceiptCheck.objects.for_tenant(tenant).get(pk=result.check_id)
    assert check.ok and [r["code"] for r in check.reasons] == ["RESOURCE_STOPPED"]
    assert check.reasons[0]["data"] == {"resource": FALLBACK}  # the check says what the call went around


def test_a_stopped_primary_with_a_fallback_left_passes_and_names_the_primary_stopped(
        operator, tenant, caps, plan_id):  # noqa: F811
    result = _check(operator, tenant, plan_id, caps["validity"], stop=[PRIMARY], resources=(PRIMARY, FALLBACK))
    assert (result.ok, result.stopped_resources) == (True, frozenset({PRIMARY}))


def test_every_resource_of_the_route_stopped_refuses_the_step(operator, tenant, caps, plan_id):  # noqa: F811
    result = _check(operator, tenant, plan_id, caps["validity"], stop=[PRIMARY, FALLBACK],
                    resources=(PRIMARY, FALLBACK))
    assert (result.ok, result.code) == (False, "KILL_SWITCH")
    assert {r.data["resource"] for r in result.reasons} == {PRIMARY, FALLBACK}


def test_without_a_route_the_registrys_is_used_and_a_primary_with_no_fallback_is_refused(
        operator, tenant, caps, plan_id):  # noqa: F811
    result = _check(operator, tenant, plan_id, caps["validity"], stop=[PRIMARY])
    assert (result.ok, result.code) == (False, "KILL_SWITCH")


def test_another_tenants_resource_switch_stops_nothing_here(operator, tenant, other_tenant, caps, plan_id):  # noqa: F811
    _stop(tenant, FALLBACK, scoped_to=other_tenant)
    result = _check(operator, tenant, plan_id, caps["validity"], resources=(PRIMARY, FALLBACK))
    assert (result.ok, result.stopped_resources) == (True, frozenset())
    assert resources_stopped_now(tenant=tenant, resources=(PRIMARY, FALLBACK)) == frozenset()
    assert resources_stopped_now(tenant=other_tenant, resources=(PRIMARY, FALLBACK)) == {FALLBACK}
