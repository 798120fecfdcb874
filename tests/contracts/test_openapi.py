"""The OpenAPI schema generates without a single warning, describes every operation in its own words with
examples its schema accepts, and its Swagger UI works offline (served from drf-spectacular-sidecar's static
files, nothing from a CDN)."""

from __future__ import annotations

import io
import re
from collections import Counter

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from jsonschema import Draft7Validator


def test_the_schema_generates_with_no_warning_and_no_error(db, tmp_path):
    # --fail-on-warn turns any "unable to guess serializer", name collision or enum clash into a failure.
    out = tmp_path / "schema.yaml"
    stderr = io.StringIO()
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(out), stderr=stderr)
    assert out.stat().st_size > 0
    assert "Warning" not in stderr.getvalue() and "Error" not in stderr.getvalue(), stderr.getvalue()


@pytest.fixture
def openapi(db) -> dict:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def test_every_operation_has_a_description(openapi):
    missing = [name for name, op in _operations(openapi) if not (op.get("description") or "").strip()]
    assert missing == []


@pytest.mark.parametrize("url", ["/api/docs/"])
def test_the_api_docs_page_loads_swagger_ui_from_this_server_only(client, url):
    page = client.get(url).content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert any("swagger-ui-bundle.js" in a for a in assets), assets
    assert not [a for a in assets if a.startswith(("http://", "https://", "//"))], assets
    for asset in assets:
        path = asset.split("?", 1)[0]
        if path.startswith("/static/"):
            assert finders.find(path.removeprefix("/static/")), f"{asset} is not a static file of this project"


def _operations(schema: dict) -> list[tuple[str, dict]]:
    return [(f"{method.upper()} {path}", operation) for path, operations in schema["paths"].items()
            for method, operation in operations.items()]


def test_every_operation_has_a_summary_and_a_description_of_its_own(openapi):
    from config.openapi_docs import DOCS

    operations = _operations(openapi)
    assert [name for name, op in operations if not (op.get("summary") or "").strip()] == []
    descriptions = Counter(op["description"] for _name, op in operations)
    # A base class's docstring repeated over many operations describes none of them.
    assert [text for text, count in descriptions.items() if count > 1] == []
    ids = {op["operationId"] for _name, op in operations}
    assert sorted(set(DOCS) - ids) == [], "config/openapi_docs.py names operations that no longer exist"
    assert sorted(ids - set(DOCS)) == [], "operations without an entry in config/openapi_docs.py"


def _nullable(schema):
    """OpenAPI 3.0's `nullable` as JSON Schema, so jsonschema can check the examples."""
    if isinstance(schema, list):
        return [_nullable(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: _nullable(value) for key, value in schema.items() if key != "nullable"}
    return {"anyOf": [converted, {"type": "null"}]} if schema.get("nullable") else converted


def test_every_json_body_and_success_response_has_an_example_its_schema_accepts(openapi):
    components = _nullable(openapi["components"])
    checked, problems = 0, []
    for name, op in _operations(openapi):
        media = [("request", op.get("requestBody", {}).get("content", {}).get("application/json"))]
        media += [(code, response.get("content", {}).get("application/json"))
                  for code, response in op["responses"].items() if code.startswith("2")]
        for where, content in media:
            if content is None:
                continue
            checked += 1
            if "example" not in content:
                problems.append(f"{name} {where}: no example")
                continue
            validator = Draft7Validator({**_nullable(content["schema"]), "components": components})
            problems += [f"{name} {where}: {error.message}" for error in validator.iter_errors(content["example"])]
    assert checked > 50 and problems == []
