"""The manifest's verification language (registry/manifest_schema.py, registry/verification.py): what
must hold after a write is declared as data, and a mistake in it is reported before anything loads."""

from __future__ import annotations

import pytest

from .conftest import MANIFEST_DIR
from .test_manifest import _capability, _errors_after, _files, _set, _write, manifest_read


def test_every_write_declares_what_must_hold_after_it():
    capabilities = manifest_read(MANIFEST_DIR).capabilities
    writes = {c: d for c, d in capabilities.items() if d["kind"] == "write"}
    assert writes and all(d["verification"] for d in writes.values()), \
        sorted(c for c, d in writes.items() if not d["verification"])
    decision = writes["workPermit.recordDecision"]["verification"]  # the batch's write is verified too
    assert decision["capability"] == "workPermit.evaluations.list"
    assert {"subject": "response", "path": "permit_id", "op": "equals", "value": "${input.permit_id}"} \
        in decision["assertions"]


def _assertion(capability_id: str, **assertion):
    def mutate(files):
        _capability(files, capability_id)["verification"]["assertions"] = [assertion]
    return mutate


@pytest.mark.parametrize(("mutate", "capability_id", "field"), [
    pytest.param(_assertion("workPermit.approve", path="status", op="equals", value="${input.state}"),
                 "workPermit.approve", "verification.assertions[0]", id="value-names-no-input-field"),
    pytest.param(_assertion("workPermit.update", path="number", op="exists", when_input="numero"),
                 "workPermit.update", "verification.assertions[0]", id="when-input-names-no-input-field"),
    pytest.param(_assertion("workPermit.approve", path="status", op="greater", value=1),
                 "workPermit.approve", "verification.assertions.0.op", id="unknown-op"),
    pytest.param(_assertion("workPermit.approve", path="status", op="equals", value="X", subject="elsewhere"),
                 "workPermit.approve", "verification.assertions.0.subject", id="unknown-subject"),
    pytest.param(_set("workPermit.read", verification={"assertions": [{"path": "id", "op": "exists"}]}),
                 "workPermit.read", "verification", id="a-read-is-not-verified"),
    pytest.param(_set("workPermit.approve", verification={"capability": "workPermit.read"}),
                 "workPermit.approve", "verification", id="reread-without-its-input"),
])
def test_a_mistake_in_a_verification_is_reported_with_its_capability_and_field(tmp_path, mutate, capability_id,
                                                                               field):
    errors = _errors_after(tmp_path, mutate)
    assert any(e.capability == capability_id and e.field == field for e in errors), [str(e) for e in errors]


def test_a_verification_may_reread_through_the_entitys_reader_or_check_only_the_answer(tmp_path):
    files = _files()
    _capability(files, "workPermit.approve")["verification"] = {
        "assertions": [{"path": "status", "op": "equals", "value": "APPROVED"},
                       {"subject": "response", "path": "revision", "op": "gte", "value": 2}]}
    _capability(files, "workPermit.recordDecision")["verification"] = {
        "assertions": [{"subject": "response", "path": "outcome", "op": "exists"}]}
    manifest = manifest_read(_write(tmp_path / "manifest", files))
    assert "capability" not in manifest.capabilities["workPermit.approve"]["verification"]
