from __future__ import annotations

import io

from demo.seeding.registry import APPROVERS, seed
from registry.manifest import manifest_read
from registry.models import CapabilityApproval, CapabilityStatus, CapabilityVersion

from .conftest import MANIFEST_DIR


def test_demo_seed_activates_the_manifest_through_two_approvers_and_is_idempotent(db):
    seed(stdout=io.StringIO())
    expected = len(manifest_read(MANIFEST_DIR).capabilities)
    assert CapabilityVersion.objects.filter(status=CapabilityStatus.ACTIVE).count() == expected
    approvers = set(CapabilityApproval.objects.values_list("kind", "approver__username"))
    assert approvers == {(kind.value, username) for kind, username in APPROVERS.items()}
    rows = (CapabilityVersion.objects.count(), CapabilityApproval.objects.count())
    out = io.StringIO()
    seed(stdout=out)
    assert (CapabilityVersion.objects.count(), CapabilityApproval.objects.count()) == rows
    assert out.getvalue().startswith("registry: 0 new versions, 0 approved")
