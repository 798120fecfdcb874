"""Idempotency-Key: replay of the first completed answer, refusal of reuse, and no record of failures."""

from __future__ import annotations

import pytest

from conftest import client_for, make_user
from sst import idempotency
from sst.faults import fault_add
from sst.models import IdempotencyRecord, IdempotencyState, WorkPermit
from tenancy.models import Role

from .helpers import call


def test_the_same_key_twice_creates_one_permit_and_replays_the_same_answer(world, operator_client):
    body = {"company": world.alfa.pk, "validity_days": 10, "components": ["hotWork"]}
    first = call(operator_client, "post", "/permits", body, **{"Idempotency-Key": "create-1"})
    second = call(operator_client, "post", "/permits", body, **{"Idempotency-Key": "create-1"})
    assert (first.status_code, second.status_code) == (201, 201)
    assert first.content == second.content
    assert second["Idempotent-Replayed"] == "true" and not first.has_header("Idempotent-Replayed")
    assert second["ETag"] == first["ETag"]
    assert WorkPermit.objects.for_tenant(world.tenant).count() == 2


def test_key_order_and_spacing_of_the_body_do_not_matter(world, operator_client):
    path = f"/permits/{world.permit.pk}/validity"
    key = {"Idempotency-Key": "v-1"}
    call(operator_client, "post", path, {"validity_days": 5}, **key)
    raw = operator_client.post(f"/api/sst{path}", b'{ "validity_days" :5 }', content_type="application/json",
                               HTTP_IDEMPOTENCY_KEY="v-1")
    assert (raw.status_code, raw["Idempotent-Replayed"]) == (200, "true")


def test_the_same_key_with_another_body_is_refused(world, operator_client):
    path = f"/permits/{world.permit.pk}/validity"
    call(operator_client, "post", path, {"validity_days": 5}, **{"Idempotency-Key": "v-2"})
    reused = call(operator_client, "post", path, {"validity_days": 6}, **{"Idempotency-Key": "v-2"})
    assert (reused.status_code, reused.json()["code"]) == (422, "IDEMPOTENCY_KEY_REUSED")
    other_path = call(operator_client, "post", f"/permits/{world.permit.pk}/approve", {},
                      **{"Idempotency-Key": "v-2"})
    assert other_path.status_code in (403, 422)
    assert WorkPermit.objects.for_tenant(world.tenant).get(pk=world.permit.pk).validity_days == 5


def test_a_business_rule_answer_is_replayed_even_after_the_rule_stops_applying(world, operator_client):
    path = f"/permits/{world.permit.pk}/components"
    call(operator_client, "post", path, {"component": "hotWork"})
    first = call(operator_client, "post", path, {"component": "hotWork"}, **{"Idempotency-Key": "c-1"})
    assert first.json()["code"] == "COMPONENT_ALREADY_PRESENT"
    component_id = WorkPermit.objects.for_tenant(world.tenant).get(pk=world.permit.pk).components.get(
        component_type__key="hotWork").pk
    call(operator_client, "delete", f"{path}/{component_id}")
    replay = call(operator_client, "post", path, {"component": "hotWork"}, **{"Idempotency-Key": "c-1"})
    assert (replay.status_code, replay.content) == (422, first.content)


def test_a_delete_is_replayed_as_204(world, supervisor_client):
    path = f"/permits/{world.permit.pk}"
    assert call(supervisor_client, "delete", path, **{"Idempotency-Key": "d-1"}).status_code == 204
    replay = call(supervisor_client, "delete", path, **{"Idempotency-Key": "d-1"})
    assert (replay.status_code, replay.content, replay["Idempotent-Replayed"]) == (204, b"", "true")


def test_an_injected_5xx_records_nothing_and_the_retry_runs(world, operator_client, settings):
    settings.SST_FAULT_INJECTION = True
    fault_add(tenant=world.tenant, route="sst:permit-validity", status=503, times=1)
    path, key = f"/permits/{world.permit.pk}/validity", {"Idempotency-Key": "retry-1"}
    assert call(operator_client, "post", path, {"validity_days": 45}, **key).status_code == 503
    assert not IdempotencyRecord.objects.for_tenant(world.tenant).filter(key="retry-1").exists()
    retry = call(operator_client, "post", path, {"validity_days": 45}, **key)
    assert (retry.status_code, retry.json()["validity_days"], retry.has_header("Idempotent-Replayed")) == (
        200, 45, False)


def test_an_unexpected_server_error_releases_the_key(world, operator_client, monkeypatch):
    from sst import services

    def boom(**kwargs):
        raise RuntimeError("database went away")

    monkeypatch.setattr(services, "permit_validity_update", boom)
    operator_client.raise_request_exception = False
    path, key = f"/permits/{world.permit.pk}/validity", {"Idempotency-Key": "boom-1"}
    assert call(operator_client, "post", path, {"validity_days": 45}, **key).status_code == 500
    monkeypatch.undo()
    assert call(operator_client, "post", path, {"validity_days": 45}, **key).json()["validity_days"] == 45


def test_a_key_in_progress_is_not_run_twice(world, operator_client):
    # Another request holds the key (claimed, not finished): this one must not execute.
    digest = idempotency.request_hash(method="POST", path=f"/api/sst/permits/{world.permit.pk}/validity",
                                      body={"validity_days": 45})
    IdempotencyRecord.objects.create(tenant=world.tenant, key="busy-1", request_hash=digest)
    response = call(operator_client, "post", f"/permits/{world.permit.pk}/validity", {"validity_days": 45},
                    **{"Idempotency-Key": "busy-1"})
    assert (response.status_code, response.json()["code"]) == (409, "IDEMPOTENCY_IN_PROGRESS")
    assert WorkPermit.objects.for_tenant(world.tenant).get(pk=world.permit.pk).validity_days == 30


def test_a_stale_claim_is_taken_over(world, operator_client):
    from django.utils import timezone

    digest = idempotency.request_hash(method="POST", path=f"/api/sst/permits/{world.permit.pk}/validity",
                                      body={"validity_days": 45})
    record = IdempotencyRecord.objects.create(tenant=world.tenant, key="stale-1", request_hash=digest)
    IdempotencyRecord.objects.for_tenant(world.tenant).filter(pk=record.pk).update(
        updated_at=timezone.now() - idempotency.STALE_AFTER * 2)
    response = call(operator_client, "post", f"/permits/{world.permit.pk}/validity", {"validity_days": 45},
                    **{"Idempotency-Key": "stale-1"})
    assert response.status_code == 200
    assert IdempotencyRecord.objects.for_tenant(world.tenant).get(key="stale-1").state == IdempotencyState.COMPLETED


def test_keys_are_per_tenant(world, other_world, operator_client, other_tenant):
    other_client = client_for(make_user(other_tenant, Role.OPERATOR), other_tenant)
    key = {"Idempotency-Key": "shared-key"}
    mine = call(operator_client, "post", "/permits", {"company": world.alfa.pk, "validity_days": 3}, **key)
    theirs = call(other_client, "post", "/permits", {"company": other_world.alfa.pk, "validity_days": 3}, **key)
    assert (mine.status_code, theirs.status_code) == (201, 201)
    assert not theirs.has_header("Idempotent-Replayed")


@pytest.mark.parametrize("key", ["", "x" * 256, "naïve"])
def test_a_malformed_key_is_a_bad_request(key, world, operator_client):
    response = call(operator_client, "post", f"/permits/{world.permit.pk}/validity", {"validity_days": 5},
                    **{"Idempotency-Key": key})
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_IDEMPOTENCY_KEY")


def test_a_keyed_call_to_a_method_the_route_lacks_is_a_405(world, operator_client):
    response = operator_client.put(f"/api/sst/permits/{world.permit.pk}/validity", {"validity_days": 5},
                                   format="json", HTTP_IDEMPOTENCY_KEY="put-1")
    assert response.status_code == 405
