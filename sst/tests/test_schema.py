"""The OpenAPI schema describes every SST route without generator errors or warnings of our own."""

from __future__ import annotations

from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator

from sst import urls

# Known and owned elsewhere: tenancy's authenticators have no OpenApiAuthenticationExtension yet.
_NOT_OURS = "could not resolve authenticator"


def test_schema_covers_every_sst_route_without_warnings(capsys):
    GENERATOR_STATS.reset()
    schema = SchemaGenerator(patterns=[*urls.urlpatterns]).get_schema(request=None, public=True)
    problems = [line for line in capsys.readouterr().err.splitlines()
                if "sst/" in line and _NOT_OURS not in line]
    assert problems == []
    assert len(schema["paths"]) == len({p.pattern._route for p in urls.urlpatterns})
    assert "Idempotency-Key" in str(schema["paths"]["/permits/{id}/validity"]["post"]["parameters"])


def test_schema_endpoint_renders(db, viewer_client):
    response = viewer_client.get("/api/schema/")
    assert response.status_code == 200
    assert b"/api/sst/permits/{id}/components/{component_id}" in response.content
