"""The admin lists every tenant's SST rows (through all_tenants) and is read-only."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from sst.models import Company, ComponentType, Employee, FaultRule, IdempotencyRecord, WorkPermit


@pytest.fixture
def staff_client(client, db):
    user = get_user_model().objects.create_superuser(username="root", password="pw-12345678")
    client.force_login(user)
    return client


@pytest.mark.parametrize("model", [Company, Employee, ComponentType, WorkPermit, FaultRule, IdempotencyRecord])
def test_admin_changelists_render_every_tenant(model, world, other_world, staff_client):
    response = staff_client.get(reverse(f"admin:sst_{model._meta.model_name}_changelist"))
    assert response.status_code == 200
    assert response.context["cl"].result_count == model.objects.all_tenants().count()
    if model in (Company, WorkPermit):
        assert {row.tenant_id for row in response.context["cl"].result_list} == {world.tenant.pk,
                                                                                 other_world.tenant.pk}


def test_admin_permit_page_is_read_only(world, staff_client):
    url = reverse("admin:sst_workpermit_change", args=[world.permit.pk])
    response = staff_client.get(url)
    assert response.status_code == 200 and b"Trabalho em Altura" in response.content
    staff_client.post(url, {"number": "999", "validity_days": 1})
    assert WorkPermit.objects.for_tenant(world.tenant).get(pk=world.permit.pk).number == "123"
    assert staff_client.get(reverse("admin:sst_workpermit_add")).status_code == 403
