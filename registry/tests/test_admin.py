from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from registry.models import ApprovalKind, CapabilityApproval, CapabilityStatus, CapabilityVersion
from registry.services import capability_submit

from .conftest import activate, make_staff, version_of


def _client(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="pt-br")
    client.force_login(user)
    return client


def _act(client: Client, version: CapabilityVersion, action: str, reason: str = "revisado"):
    url = reverse("admin:registry_capabilityversion_action", args=[version.pk, action])
    return client.post(url, {"reason": reason}, follow=True)


@pytest.fixture
def pending(draft):
    capability_submit(version=draft, actor=draft.author)
    return draft


def test_admin_approves_technically_then_business_activates(pending, tech, biz):
    _act(_client(tech), pending, "approve_technical")
    page = _act(_client(biz), pending, "approve_business")
    pending.refresh_from_db()
    assert pending.status == CapabilityStatus.ACTIVE
    assert "ACTIVE" in page.content.decode()


def test_admin_shows_the_refusal_when_one_person_tries_both_approvals(pending, db):
    both = make_staff("both-hats", "approve_technical", "approve_business", "view_capabilityversion")
    client = _client(both)
    _act(client, pending, "approve_technical")
    page = _act(client, pending, "approve_business")
    assert "precisam ser de duas pessoas diferentes" in page.content.decode()
    assert CapabilityApproval.objects.filter(capability_version=pending).count() == 1


def test_admin_shows_the_refusal_when_the_author_approves(pending, author):
    from django.contrib.auth.models import Permission

    author.user_permissions.add(Permission.objects.get(codename="approve_technical"))
    page = _act(_client(author), pending, "approve_technical")
    assert "O autor de uma versão não pode aprová-la." in page.content.decode()


def test_admin_action_without_reason_is_refused(pending, tech):
    page = _act(_client(tech), pending, "approve_technical", reason="")
    assert "Informe o motivo." in page.content.decode()
    assert not CapabilityApproval.objects.exists()


def test_admin_suspends_and_retires_with_a_reason(draft, tech, biz):
    version = activate(draft, tech, biz)
    _act(_client(tech), version, "suspend", "incidente em produção")
    version.refresh_from_db()
    assert version.status == CapabilityStatus.SUSPENDED
    assert version.status_changes.last().reason == "incidente em produção"
    _act(_client(biz), version, "retire", "substituída")
    version.refresh_from_db()
    assert version.status == CapabilityStatus.RETIRED


def test_admin_shows_the_definition_and_its_diff_against_the_previous_version(loaded, tech, biz, tmp_path):
    from registry.services import manifest_load

    from .conftest import MANIFEST_DIR

    activate(version_of("workPermit.read"), tech, biz)
    for path in MANIFEST_DIR.glob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        if path.name == "work_permits.yaml":
            text = text.replace("Read one work permit with its components", "Read a single work permit with its "
                                "components")
        (tmp_path / path.name).write_text(text, encoding="utf-8")
    manifest_load(directory=tmp_path, author=None)
    second = version_of("workPermit.read", 2)
    page = _client(tech).get(reverse("admin:registry_capabilityversion_change", args=[second.pk]))
    body = page.content.decode()
    assert page.status_code == 200
    assert "--- v1" in body and "+++ v2" in body
    assert "-  &quot;description&quot;: &quot;Read one work permit" in body
    assert "+  &quot;description&quot;: &quot;Read a single work permit" in body


def test_admin_list_filters_by_status_and_risk(loaded, tech, biz):
    activate(version_of("workPermit.delete"), tech, biz)
    client = _client(tech)
    url = reverse("admin:registry_capabilityversion_changelist")
    body = client.get(url, {"status__exact": "ACTIVE", "risk_level__exact": "high"}).content.decode()
    assert "workPermit.delete" in body and "workPermit.approve" not in body


def test_approval_records_are_read_only_in_the_admin(pending, tech, biz):
    _act(_client(tech), pending, "approve_technical")
    approval = CapabilityApproval.objects.get()
    superuser = make_staff("root-admin")
    superuser.is_superuser = True
    superuser.save()
    client = _client(superuser)
    change = reverse("admin:registry_capabilityapproval_change", args=[approval.pk])
    client.post(change, {"kind": "business", "reason": "rewritten"})
    assert client.get(reverse("admin:registry_capabilityapproval_add")).status_code == 403
    assert client.post(reverse("admin:registry_capabilityapproval_delete", args=[approval.pk]),
                       {"post": "yes"}).status_code == 403
    approval.refresh_from_db()
    assert (approval.kind, approval.reason) == (ApprovalKind.TECHNICAL, "revisado")


def test_after_the_first_approval_the_message_says_the_other_one_is_still_needed(pending, tech, biz):
    page = _act(_client(tech), pending, "approve_technical").content.decode()
    assert "Ainda falta: aprovação de negócio, de outra pessoa" in page
    page = _act(_client(biz), pending, "approve_business").content.decode()
    assert "tem as duas aprovações e está ATIVA" in page


def test_the_actions_come_before_the_read_only_form_and_say_what_is_missing(pending, tech):
    _act(_client(tech), pending, "approve_technical")
    page = _client(tech).get(reverse("admin:registry_capabilityversion_change", args=[pending.pk])).content.decode()
    assert page.index('id="registry-action-approve_business"') < page.index('class="submit-row"')
    assert "Ainda falta / Still needed: de negócio" in page


def test_waiting_for_my_approval_lists_what_each_approver_can_still_give(pending, tech, biz, author):
    url = reverse("admin:registry_capabilityversion_changelist") + "?waiting=mine"
    assert pending.capability.key in _client(tech).get(url).content.decode()
    _act(_client(tech), pending, "approve_technical")
    assert pending.capability.key not in _client(tech).get(url).content.decode()  # already gave theirs
    assert pending.capability.key in _client(biz).get(url).content.decode()
    assert pending.capability.key not in _client(author).get(url).content.decode()  # no approval permission


def test_the_admin_index_links_to_what_waits_for_my_approval(pending, tech):
    page = _client(tech).get(reverse("admin:index")).content.decode()
    assert "?waiting=mine" in page and 'id="registry-waiting-count">1<' in page
