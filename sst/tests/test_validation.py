"""Malformed bodies are 400s with per-field errors (or parse_error), never 500s, and change nothing."""

from __future__ import annotations

import pytest

from sst.models import WorkPermit

from .helpers import call

LONG = "x" * 10_000


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({}, {"company", "validity_days"}),
        ({"company": "{alfa}"}, {"validity_days"}),
        ({"company": "abc", "validity_days": "thirty"}, {"company", "validity_days"}),
        ({"company": True, "validity_days": 1.5}, {"company", "validity_days"}),
        ({"company": 1.0, "validity_days": 5}, {"company"}),
        ({"company": 2**70, "validity_days": 5}, {"company"}),
        ({"company": "{alfa}", "validity_days": -5}, {"validity_days"}),
        ({"company": "{alfa}", "validity_days": 0}, {"validity_days"}),
        ({"company": "{alfa}", "validity_days": 10**30}, {"validity_days"}),
        ({"company": "{alfa}", "validity_days": 5, "number": LONG}, {"number"}),
        ({"company": "{alfa}", "validity_days": 5, "number": "12 3; DROP"}, {"number"}),
        ({"company": "{alfa}", "validity_days": 5, "components": ["nope"]}, {"components"}),
        ({"company": "{alfa}", "validity_days": 5, "components": "hotWork"}, {"components"}),
        ({"company": "{alfa}", "validity_days": 5, "components": [{"key": "hotWork"}]}, {"components"}),
        ({"company": "{alfa}", "validity_days": 5, "components": [LONG]}, {"components"}),
        ({"company": "{alfa}", "validity_days": 5, "components": ["hotWork", "hotWork"]}, {"components"}),
        ({"company": "{alfa}", "validity_days": 5, "workers": [None]}, {"workers"}),
        ({"company": "{alfa}", "validity_days": 5, "responsible": "João"}, {"responsible"}),
        ({"company": "{alfa}", "validity_days": 5, "tenant": "other"}, {"tenant"}),
    ],
)
def test_malformed_permit_bodies_are_field_errors(body, fields, world, operator_client):
    body = {k: world.alfa.pk if v == "{alfa}" else v for k, v in body.items()}
    response = call(operator_client, "post", "/permits", body)
    assert response.status_code == 400, response.content[:300]
    assert response.json()["code"] == "invalid"
    assert set(response.json()["errors"]) == fields
    assert WorkPermit.objects.for_tenant(world.tenant).count() == 1


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/validity", {"validity_days": -1}, "validity_days"),
        ("/validity", {"validity_days": None}, "validity_days"),
        ("/validity", {}, "validity_days"),
        ("/components", {"component": "unknownKey"}, "component"),
        ("/components", {"component": "hotWork", "notes": LONG}, "notes"),
        ("/components", {"component": "hotWork", "notes": "nul \x00"}, "notes"),
        ("/workers", {"employee": "1 OR 1=1"}, "employee"),
        ("/cancel", {"reason": LONG}, "reason"),
        ("", {"number": LONG}, "number"),
        ("", {}, "non_field_errors"),
    ],
)
def test_malformed_child_bodies_are_field_errors(path, body, field, world, supervisor_client):
    method = "patch" if path == "" else "post"
    response = call(supervisor_client, method, f"/permits/{world.permit.pk}{path}", body)
    assert response.status_code == 400, response.content[:300]
    assert list(response.json()["errors"]) == [field]
    assert WorkPermit.objects.for_tenant(world.tenant).get(pk=world.permit.pk).revision == 1


@pytest.mark.parametrize(
    "raw",
    [b'{"validity_days": ', b'{"validity_days": "\xff\xfe"}', b"\xc3\x28", b"not json", b"NaN", b'{"a": Infinity}'],
    ids=["truncated", "invalid-utf8-in-string", "invalid-utf8", "text", "nan", "infinity"],
)
def test_invalid_json_or_utf8_is_a_parse_error(raw, world, operator_client):
    response = operator_client.post(f"/api/sst/permits/{world.permit.pk}/validity", raw,
                                    content_type="application/json")
    assert (response.status_code, response.json()["code"]) == (400, "parse_error")


def test_a_lone_surrogate_in_a_string_is_a_field_error(world, operator_client):
    # Valid JSON (an escaped lone surrogate) that the database could not store.
    raw = b'{"component": "hotWork", "notes": "bad \\ud800"}'
    response = operator_client.post(f"/api/sst/permits/{world.permit.pk}/components", raw,
                                    content_type="application/json")
    assert (response.status_code, list(response.json()["errors"])) == (400, ["notes"])


def test_a_json_array_body_is_a_bad_request(world, operator_client):
    response = call(operator_client, "post", f"/permits/{world.permit.pk}/validity", [{"validity_days": 5}])
    assert (response.status_code, list(response.json()["errors"])) == (400, ["non_field_errors"])


def test_a_non_json_content_type_is_refused(world, operator_client):
    response = operator_client.post(f"/api/sst/permits/{world.permit.pk}/validity", "validity_days=5",
                                    content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415


def test_a_long_search_is_a_field_error_not_a_slow_query(world, viewer_client):
    response = call(viewer_client, "get", "/employees", {"q": LONG})
    assert (response.status_code, list(response.json()["errors"])) == (400, ["q"])
