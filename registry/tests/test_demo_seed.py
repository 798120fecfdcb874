from __future__ import annotations

import io

from demo.seeding.registry import APPROVERS, AUTHOR, BOOTSTRAP, PENDING_DIR, seed, seed_pending
from demo.seeding.sst import DEMO_PASSWORD
from registry.manifest import manifest_read
from registry.models import ApprovalKind, CapabilityApproval, CapabilityStatus, CapabilityVersion
from registry.services import capability_approve, manifest_load

from .conftest import MANIFEST_DIR, make_staff


def test_demo_seed_activates_the_manifest_under_the_seeding_identities_and_is_idempotent(db):
    seed(stdout=io.StringIO())
    expected = len(manifest_read(MANIFEST_DIR).capabilities)
    assert CapabilityVersion.objects.filter(status=CapabilityStatus.ACTIVE).count() == expected
    approvers = set(CapabilityApproval.objects.values_list("kind", "approver__username"))
    assert approvers == {(kind.value, username) for kind, username in BOOTSTRAP.items()}
    rows = (CapabilityVersion.objects.count(), CapabilityApproval.objects.count())
    out = io.StringIO()
    seed(stdout=out)
    assert (CapabilityVersion.objects.count(), CapabilityApproval.objects.count()) == rows
    assert out.getvalue().startswith("registry: 0 new versions, 0 activated")


def test_the_seeding_identities_cannot_log_in_and_the_people_log_in_with_the_demo_password(db, django_user_model):
    seed(stdout=io.StringIO())
    for username in BOOTSTRAP.values():
        assert not django_user_model.objects.get(username=username).has_usable_password()
    for username in APPROVERS.values():
        assert django_user_model.objects.get(username=username).check_password(DEMO_PASSWORD)
    assert not CapabilityApproval.objects.filter(approver__username__in=APPROVERS.values()).exists()


def test_a_second_run_never_completes_a_version_someone_started_approving(db, django_user_model, tmp_path):
    seed(stdout=io.StringIO())
    author = django_user_model.objects.get(username=AUTHOR)
    changed = tmp_path / "capabilities"
    changed.mkdir()
    text = (MANIFEST_DIR / "knowledge.yaml").read_text(encoding="utf-8")
    (changed / "knowledge.yaml").write_text(text.replace("description: ", "description: (v2) ", 1), encoding="utf-8")
    (changed / "resources.yaml").write_text((MANIFEST_DIR / "resources.yaml").read_text(encoding="utf-8"))
    created = manifest_load(directory=changed, author=author, submit=True).created
    assert len(created) == 1
    version = CapabilityVersion.objects.get(capability__key=created[0][0], version=created[0][1])
    person = make_staff("a-person", "approve_technical")
    capability_approve(version=version, approver=person, kind=ApprovalKind.TECHNICAL, reason="looked at it")
    out = io.StringIO()
    seed(stdout=out)
    version.refresh_from_db()
    assert version.status == CapabilityStatus.PENDING_APPROVAL
    assert list(version.approvals.values_list("kind", flat=True)) == ["technical"]
    assert f"{version.capability.key} v{version.version} is waiting for approval (business approval still needed)" \
        in out.getvalue()


def test_the_demo_leaves_one_version_waiting_for_the_two_approvers(db):
    seed(stdout=io.StringIO())
    active = CapabilityVersion.objects.filter(status=CapabilityStatus.ACTIVE).count()
    out = io.StringIO()
    seed_pending(stdout=out)
    seed_pending(stdout=io.StringIO())
    keys = set(manifest_read(PENDING_DIR).capabilities)
    pending = CapabilityVersion.objects.filter(capability__key__in=keys)
    assert [(v.status, v.approvals.count()) for v in pending] == [(CapabilityStatus.PENDING_APPROVAL, 0)]
    assert CapabilityVersion.objects.filter(status=CapabilityStatus.ACTIVE).count() == active
    seed(stdout=io.StringIO())  # the bootstrap never touches it
    assert pending.get().status == CapabilityStatus.PENDING_APPROVAL
    assert "waits for approval (technical and business approval still needed)" in out.getvalue()
