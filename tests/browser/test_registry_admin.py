"""Admins approve a capability in the Django admin, in a real browser (issue 3 acceptance)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.urls import reverse

from conftest import make_tenant, make_user
from registry.models import CapabilityStatus, CapabilityVersion
from registry.selectors import snapshot_clear
from registry.services import manifest_load
from tenancy.models import Role
from tenancy.services import access_token_issue

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-browser-12345"  # noqa: S105 - a throw-away test user


def _staff(username: str, *codenames: str):
    user = get_user_model().objects.create_user(username=username, password=PASSWORD, is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="registry",
                                                         codename__in=[*codenames, "view_capabilityversion"]))
    return user


def _login(context, base_url: str, username: str):
    page = context.new_page()
    page.goto(f"{base_url}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_selector("#user-tools")
    return page


def _act(page, action: str, reason: str) -> None:
    page.fill(f"#reason-{action}", reason)
    page.click(f"#registry-action-{action} input[type=submit]")
    page.wait_for_selector(".messagelist")


def test_two_admins_activate_a_capability_and_one_admin_cannot_give_both_approvals(live_server, new_context):
    snapshot_clear()
    author = _staff("cap-author")
    admin_a = _staff("admin-a", "approve_technical", "approve_business")
    _staff("admin-b", "approve_business")
    manifest_load(directory=Path(settings.BASE_DIR) / "capabilities", author=author, submit=True)
    version = CapabilityVersion.objects.get(capability__key="workPermit.components.add")
    assert version.status == CapabilityStatus.PENDING_APPROVAL
    change_url = live_server.url + reverse("admin:registry_capabilityversion_change", args=[version.pk])
    tenant = make_tenant("Browser")
    token = access_token_issue(user=make_user(tenant, Role.OPERATOR, "browser-operator"), tenant=tenant)

    page_a = _login(new_context(), live_server.url, admin_a.username)
    page_a.goto(change_url)
    _act(page_a, "approve_technical", "Esquemas e endpoint conferidos")
    assert page_a.locator(".messagelist .success").count() == 1

    _act(page_a, "approve_business", "Eu mesmo aprovo o negócio")
    refusal = page_a.locator(".messagelist .error")
    assert "precisam ser de duas pessoas diferentes" in refusal.inner_text()
    version.refresh_from_db()
    assert version.status == CapabilityStatus.PENDING_APPROVAL

    context_b = new_context()
    page_b = _login(context_b, live_server.url, "admin-b")
    page_b.goto(change_url)
    _act(page_b, "approve_business", "Operação necessária para as equipes de campo")
    assert "ACTIVE" in page_b.locator(".messagelist .success").inner_text()
    version.refresh_from_db()
    assert version.status == CapabilityStatus.ACTIVE

    response = context_b.request.get(f"{live_server.url}/agent/capabilities",
                                     headers={"Authorization": f"Token {token}"})
    assert response.status == 200
    assert "workPermit.components.add" in {item["id"] for item in response.json()}
