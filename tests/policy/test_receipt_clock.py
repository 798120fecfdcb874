"""One clock for receipts (issue 19 point 4): policy stamps a receipt's issue and expiry on
`tenancy.clock`, the clock the executor reads an execution's start on (`execution.limits`). With the
test clock moved, a receipt issued and revalidated "now" stays valid, and one whose start comes
after its TTL on that clock is expired — never both at once because two clocks disagree."""

from __future__ import annotations

from datetime import timedelta

import pytest

from execution.limits import start_clock_now
from policy.services import receipt_issue, revalidate
from policy.tests.conftest import caps, plan_id  # noqa: F401 - fixtures of the policy suite
from policy.tests.factories import facts_for, plan_hash, step
from policy.tests.test_receipts import INPUT, _approval
from tenancy import clock

pytestmark = pytest.mark.django_db
MOVED_S = 2 * 3600  # far past a receipt's 5 min TTL on the real clock


@pytest.fixture
def moved_clock(settings):
    settings.AGENT_TEST_CONTROL = True
    clock.reset()
    clock.advance(MOVED_S)
    yield clock
    clock.reset()


def _issue(actor, tenant, plan_id, cap):  # noqa: F811 - plan_id is the fixture's value
    return receipt_issue(actor=actor, tenant=tenant, plan_id=plan_id, plan_hash=plan_hash(), steps=[step(cap)],
                         facts=facts_for(tenant, ("workPermit", 1)), approval=_approval(actor, plan_id))


def _check(receipt, actor, tenant, plan_id, cap, started):  # noqa: F811
    return revalidate(receipt_id=receipt.pk, actor=actor, tenant=tenant, plan_id=plan_id, step_id="s1",
                      capability=(cap.capability.key, cap.version), input=INPUT,
                      facts=facts_for(tenant, ("workPermit", 1)), execution_started_at=started)


def test_a_receipt_is_stamped_on_the_moved_clock(operator, tenant, caps, plan_id, moved_clock):  # noqa: F811
    before = moved_clock.now()
    receipt = _issue(operator, tenant, plan_id, caps["validity"])
    assert before <= receipt.issued_at <= moved_clock.now()
    assert receipt.expires_at == receipt.issued_at + timedelta(minutes=5)


def test_an_execution_started_now_on_the_moved_clock_passes_revalidation(
        operator, tenant, caps, plan_id, moved_clock):  # noqa: F811
    receipt = _issue(operator, tenant, plan_id, caps["validity"])
    started = start_clock_now()
    result = _check(receipt, operator, tenant, plan_id, caps["validity"], started)
    assert (result.ok, result.code) == (True, "OK")
    # A long execution that started in time keeps passing after the TTL, on the same clock.
    moved_clock.advance(10 * 60)
    assert _check(receipt, operator, tenant, plan_id, caps["validity"], started).ok


def test_a_start_after_the_ttl_on_the_moved_clock_is_expired(operator, tenant, caps, plan_id, moved_clock):  # noqa: F811
    receipt = _issue(operator, tenant, plan_id, caps["validity"])
    moved_clock.advance(5 * 60 + 1)
    result = _check(receipt, operator, tenant, plan_id, caps["validity"], start_clock_now())
    assert (result.ok, result.code) == (False, "RECEIPT_EXPIRED")


def test_a_kill_switch_is_stamped_on_the_clock_of_the_work_it_stops(tenant, moved_clock):
    from django.contrib.auth.models import Permission

    from conftest import make_user
    from policy.models import Scope
    from policy.services import kill_switch_lift, kill_switch_set
    from tenancy.models import Role

    admin = make_user(tenant, Role.ADMIN)
    admin.user_permissions.add(Permission.objects.get(codename="runtime_admin"))
    before = moved_clock.now()
    switch = kill_switch_set(actor=admin, scope=Scope.TENANT, tenant=tenant, reason="drill")
    lifted = kill_switch_lift(actor=admin, switch_id=switch.pk, reason="over")
    assert before <= switch.set_at <= lifted.lifted_at <= moved_clock.now()
