"""The fault injector: status, times (shared, in the DB), latency, method, match; off by default."""

from __future__ import annotations

import pytest

from sst.faults import fault_add, fault_clear
from sst.models import FaultRule, WorkPermit

from .helpers import call


@pytest.fixture
def faults_on(settings):
    settings.SST_FAULT_INJECTION = True


def _validity(client, world, days=45):
    return call(client, "post", f"/permits/{world.permit.pk}/validity", {"validity_days": days})


def test_faults_are_ignored_unless_enabled(world, operator_client):
    fault_add(tenant=world.tenant, route="sst:permit-validity", status=503)
    assert _validity(operator_client, world).status_code == 200


def test_a_fault_answers_its_status_for_the_next_times_calls(faults_on, world, operator_client):
    fault_add(tenant=world.tenant, route="sst:permit-validity", status=503, times=2)
    first, second, third = (_validity(operator_client, world) for _ in range(3))
    assert (first.status_code, first.json()) == (503, {"code": "INJECTED_FAULT", "detail": first.json()["detail"]})
    assert (second.status_code, third.status_code) == (503, 200)
    assert WorkPermit.objects.for_tenant(world.tenant).get(pk=world.permit.pk).revision == 2
    assert FaultRule.objects.for_tenant(world.tenant).get().times == 0


def test_a_fault_without_times_lasts_until_cleared(faults_on, world, operator_client):
    fault_add(tenant=world.tenant, route="permit-validity", status=500)
    assert [_validity(operator_client, world).status_code for _ in range(3)] == [500, 500, 500]
    assert fault_clear(tenant=world.tenant) == 1
    assert _validity(operator_client, world).status_code == 200


def test_a_fault_targets_only_its_route_method_and_tenant(faults_on, world, other_world, operator_client,
                                                          other_client):
    fault_add(tenant=world.tenant, route="sst:permit-detail", method="patch", status=503)
    assert call(operator_client, "get", f"/permits/{world.permit.pk}").status_code == 200
    assert call(operator_client, "patch", f"/permits/{world.permit.pk}", {"number": "9"}).status_code == 503
    assert _validity(operator_client, world).status_code == 200
    assert call(other_client, "patch", f"/permits/{other_world.permit.pk}", {"number": "9"}).status_code == 200


def test_latency_delays_the_call_and_then_it_runs(faults_on, world, operator_client, monkeypatch):
    slept = []
    monkeypatch.setattr("sst.faults.time.sleep", slept.append)
    fault_add(tenant=world.tenant, route="sst:permit-validity", latency_ms=250, times=1)
    assert _validity(operator_client, world).status_code == 200
    assert _validity(operator_client, world, 46).status_code == 200
    assert slept == [0.25]


def test_match_compares_referenced_names_ignoring_case_and_accents(faults_on, world, operator_client):
    fault_add(tenant=world.tenant, route="sst:permit-components", method="POST", status=422,
              match={"component": "espaco confinado"})
    path = f"/permits/{world.permit.pk}/components"
    assert call(operator_client, "post", path, {"component": "hotWork"}).status_code == 201
    blocked = call(operator_client, "post", path, {"component": "confinedSpace"})
    assert (blocked.status_code, blocked.json()["code"]) == (422, "INJECTED_FAULT")
    assert call(operator_client, "get", path).status_code == 200  # a GET has no such body


def test_match_on_an_employee_id_uses_part_of_the_name(faults_on, world, operator_client):
    fault_add(tenant=world.tenant, route="sst:permit-workers", status=503, match={"employee": "joão"})
    path = f"/permits/{world.permit.pk}/workers"
    assert call(operator_client, "post", path, {"employee": world.joao.pk}).status_code == 503
    assert call(operator_client, "delete", f"{path}/{world.maria.pk}").status_code == 204


def test_match_on_url_arguments_and_raw_values(faults_on, world, operator_client):
    component_id = world.permit.components.get().pk
    fault_add(tenant=world.tenant, route="sst:permit-component-detail", status=503,
              match={"component": "Trabalho em Altura", "permit": "123"})
    fault_add(tenant=world.tenant, route="sst:permit-validity", status=409, match={"validity_days": 60})
    assert call(operator_client, "delete", f"/permits/{world.permit.pk}/components/{component_id}").status_code == (
        503)
    assert _validity(operator_client, world, 59).status_code == 200
    assert _validity(operator_client, world, 60).status_code == 409


def test_a_matching_rule_with_times_is_consumed_only_by_matching_calls(faults_on, world, operator_client):
    fault_add(tenant=world.tenant, route="sst:permit-validity", status=503, times=1, match={"validity_days": 7})
    assert _validity(operator_client, world, 8).status_code == 200
    assert _validity(operator_client, world, 7).status_code == 503
    assert _validity(operator_client, world, 7).status_code == 200


def test_fault_add_refuses_unknown_routes_and_empty_faults(world):
    with pytest.raises(ValueError):
        fault_add(tenant=world.tenant, route="sst:nope", status=500)
    with pytest.raises(ValueError):
        fault_add(tenant=world.tenant, route="sst:permit-validity")


def test_a_noop_fault_answers_success_and_keeps_nothing_it_wrote(faults_on, world, operator_client):
    fault_add(tenant=world.tenant, route="sst:permit-validity", noop=True, times=1)
    said = call(operator_client, "post", f"/permits/{world.permit.pk}/validity", {"validity_days": 45},
                **{"Idempotency-Key": "k-1"})
    assert (said.status_code, said.json()["validity_days"]) == (200, 45)  # it says it did
    permit = WorkPermit.objects.for_tenant(world.tenant).get(pk=world.permit.pk)
    assert (permit.validity_days, permit.revision) == (world.permit.validity_days, world.permit.revision)  # it did not
    replayed = call(operator_client, "post", f"/permits/{world.permit.pk}/validity", {"validity_days": 45},
                    **{"Idempotency-Key": "k-1"})
    assert replayed.json() == said.json()  # a retry with the key replays the same answer, as a buggy API would
    assert _validity(operator_client, world).status_code == 200  # the rule is spent: the next call works
    assert WorkPermit.objects.for_tenant(world.tenant).get(pk=world.permit.pk).validity_days == 45


def test_a_noop_fault_names_no_status():
    with pytest.raises(ValueError):
        fault_add(tenant=None, route="sst:permit-validity", noop=True, status=200)
