"""The batch checks (training, risk, compliance with a secondary source) and the recorded decision."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from sst.faults import fault_add
from sst.models import PermitEvaluation

from .helpers import call


def _train(employee, days=30):
    employee.training_valid_until = timezone.localdate() + timedelta(days=days)
    employee.save(update_fields=["training_valid_until"])


def test_training_names_the_untrained_workers_until_every_worker_is_trained(world, viewer_client):
    path = f"/permits/{world.permit.pk}/checks/training"
    body = call(viewer_client, "get", path).json()
    assert (body["trained"], body["untrained"]) == (False, [{"id": world.maria.pk, "name": "Maria Souza"}])
    _train(world.maria, days=-1)  # expired yesterday
    assert call(viewer_client, "get", path).json()["trained"] is False
    _train(world.maria)
    assert call(viewer_client, "get", path).json() == {"permit_id": world.permit.pk, "trained": True, "workers": 1,
                                                       "untrained": []}


def test_risk_grows_with_dangerous_components(world, viewer_client, operator_client):
    path = f"/permits/{world.permit.pk}/checks/risk"
    assert call(viewer_client, "get", path).json()["level"] == "medium"  # working at height
    call(operator_client, "post", f"/permits/{world.permit.pk}/components", {"component": "hotWork"})
    body = call(viewer_client, "get", path).json()
    assert (body["level"], body["score"], sorted(body["factors"])) == ("high", 5, ["hotWork", "workingAtHeight"])


def test_compliance_is_served_by_primary_and_secondary_and_faults_hit_only_the_one_named(
        world, viewer_client, tenant, settings):
    settings.SST_FAULT_INJECTION = True
    fault_add(tenant=tenant, route="permit-compliance", status=503)
    primary = call(viewer_client, "get", f"/permits/{world.permit.pk}/checks/compliance")
    secondary = call(viewer_client, "get", f"/secondary/permits/{world.permit.pk}/checks/compliance")
    assert primary.status_code == 503
    assert secondary.json() == {"permit_id": world.permit.pk, "compliant": True, "issues": [], "source": "secondary"}


def test_a_decision_flags_with_reasons_or_approves_and_leaves_the_permit_revision(world, operator_client):
    path = f"/permits/{world.permit.pk}/evaluations"
    flagged = call(operator_client, "post", path, {"trained": False, "risk_level": "high", "compliant": True})
    approved = call(operator_client, "post", path, {"trained": True, "risk_level": "medium", "compliant": True})
    assert (flagged.status_code, flagged.json()["outcome"], flagged.json()["reasons"]) == (
        201, "FLAG", ["TRAINING_MISSING", "RISK_HIGH"])
    assert (approved.json()["outcome"], approved.json()["reasons"]) == ("APPROVE", [])
    world.permit.refresh_from_db()
    assert world.permit.revision == 1
    assert [e["outcome"] for e in call(operator_client, "get", path).json()] == ["FLAG", "APPROVE"]


def test_a_decision_repeated_with_its_idempotency_key_is_recorded_once(world, operator_client):
    path = f"/permits/{world.permit.pk}/evaluations"
    body = {"trained": True, "risk_level": "low", "compliant": True}
    first = call(operator_client, "post", path, body, **{"Idempotency-Key": "agent:p:decision:1"})
    again = call(operator_client, "post", path, body, **{"Idempotency-Key": "agent:p:decision:1"})
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert PermitEvaluation.objects.for_tenant(world.tenant).count() == 1


def test_permits_can_be_read_by_ids_for_batch_facts(world, viewer_client, tenant):
    from sst import services

    other = services.permit_create(tenant=tenant, company=world.alfa, number="124", validity_days=5)
    services.permit_create(tenant=tenant, company=world.alfa, number="125", validity_days=5)
    body = call(viewer_client, "get", "/permits", {"ids": f"{world.permit.pk},{other.pk}"}).json()
    assert [p["number"] for p in body] == ["123", "124"]
    assert call(viewer_client, "get", "/permits", {"ids": "1,x"}).status_code == 400


def test_checks_of_another_tenants_permit_are_not_found(world, other_world, viewer_client):
    for path in ("checks/training", "checks/risk", "checks/compliance", "evaluations"):
        assert call(viewer_client, "get", f"/permits/{other_world.permit.pk}/{path}").status_code == 404


# --- withdrawing a recorded decision (the undo of recording it) ---------------------------------


def _record(client, permit_id, **body):
    findings = {"trained": True, "risk_level": "low", "compliant": True, **body}
    return call(client, "post", f"/permits/{permit_id}/evaluations", findings).json()


def test_withdrawing_an_evaluation_answers_it_as_it_was_and_leaves_the_others_and_the_revision(
        world, operator_client):
    from tenancy.data_epoch import data_epoch

    kept = _record(operator_client, world.permit.pk)
    gone = _record(operator_client, world.permit.pk, compliant=False)
    topic = (f"permits/{world.permit.pk}",)  # tenancy.data_epoch: what readers of this permit depend on
    before = data_epoch(world.tenant.pk, topic)
    response = call(operator_client, "delete", f"/permits/{world.permit.pk}/evaluations/{gone['id']}")
    assert response.status_code == 200
    assert {k: response.json()[k] for k in ("id", "permit_id", "outcome", "reasons")} == {
        "id": gone["id"], "permit_id": world.permit.pk, "outcome": "FLAG", "reasons": ["NOT_COMPLIANT"]}
    listed = call(operator_client, "get", f"/permits/{world.permit.pk}/evaluations").json()
    assert [e["id"] for e in listed] == [kept["id"]]
    world.permit.refresh_from_db()
    assert world.permit.revision == 1
    assert data_epoch(world.tenant.pk, topic) != before  # readers of the permit's data see the change


def test_a_withdrawal_repeated_with_its_idempotency_key_is_replayed_not_refused(world, operator_client):
    recorded = _record(operator_client, world.permit.pk)
    path = f"/permits/{world.permit.pk}/evaluations/{recorded['id']}"
    key = {"Idempotency-Key": "agent:p:undo:1"}
    first = call(operator_client, "delete", path, **key)
    again = call(operator_client, "delete", path, **key)
    assert (first.status_code, again.status_code, again["Idempotent-Replayed"]) == (200, 200, "true")
    assert again.json() == first.json()
    assert call(operator_client, "delete", path).status_code == 404  # without the key: it is gone


def test_an_evaluation_is_withdrawn_only_under_its_own_permit_of_the_callers_tenant(
        world, other_world, operator_client, tenant):
    from sst import services

    other_permit = services.permit_create(tenant=tenant, company=world.alfa, number="124", validity_days=5)
    recorded = _record(operator_client, other_permit.pk)
    foreign = other_world.evaluation
    assert call(operator_client, "delete", f"/permits/{world.permit.pk}/evaluations/{recorded['id']}"
                ).status_code == 404
    assert call(operator_client, "delete", f"/permits/{world.permit.pk}/evaluations/{foreign.pk}").status_code == 404
    assert PermitEvaluation.objects.for_tenant(tenant).filter(pk=recorded["id"]).exists()
    assert PermitEvaluation.objects.for_tenant(other_world.tenant).filter(pk=foreign.pk).exists()


def test_a_fault_on_the_withdrawal_removes_nothing(world, operator_client, settings):
    settings.SST_FAULT_INJECTION = True
    recorded = _record(operator_client, world.permit.pk)
    fault_add(tenant=world.tenant, route="sst:permit-evaluation-detail", status=503, times=1,
              match={"permit": world.permit.number})
    path = f"/permits/{world.permit.pk}/evaluations/{recorded['id']}"
    assert call(operator_client, "delete", path).status_code == 503
    assert PermitEvaluation.objects.for_tenant(world.tenant).filter(pk=recorded["id"]).exists()
    assert call(operator_client, "delete", path).status_code == 200
    assert not PermitEvaluation.objects.for_tenant(world.tenant).filter(pk=recorded["id"]).exists()
