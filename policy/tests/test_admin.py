from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from policy.models import AuditEvent, KillSwitch

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_() -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.com", "pw"))
    return client


@pytest.mark.parametrize("model", ["policyreceipt", "receiptcheck", "auditevent", "killswitch", "reviewrequest"])
def test_the_admin_lists_every_policy_table(admin_client_, model):
    assert admin_client_.get(f"/admin/policy/{model}/").status_code == 200


def test_raising_a_switch_in_the_admin_goes_through_the_audited_service(admin_client_):
    response = admin_client_.post("/admin/policy/killswitch/add/", {"scope": "GLOBAL", "reason": "incident"})
    assert response.status_code == 302
    switch = KillSwitch.objects.get()
    assert switch.active and switch.set_by.username == "root"
    assert AuditEvent.objects.all_tenants().filter(event_type="policy.kill_switch.raised").count() == 1


def test_a_staff_user_without_runtime_admin_cannot_reach_kill_switches(admin_client_):
    staff = get_user_model().objects.create_user("staff", password="pw", is_staff=True)
    client = Client()
    client.force_login(staff)
    assert client.get("/admin/policy/killswitch/").status_code == 403
    assert client.post("/admin/policy/killswitch/add/", {"scope": "GLOBAL", "reason": "x"}).status_code == 403
    assert not KillSwitch.objects.exists()
