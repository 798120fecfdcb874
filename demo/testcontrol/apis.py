"""The test-control API (API.md "Test control"): worlds, facts, faults and the clock.

Every view answers 404 while `settings.AGENT_TEST_CONTROL` is off — read on each request, so the
routes behave as absent without a restart — and otherwise needs the header
`X-Test-Control-Token` equal to `settings.AGENT_TEST_CONTROL_TOKEN` (compared in constant time; an
unset token refuses everything). Tenants and users here come from the body or the URL on purpose:
this API *builds* tenants for tests; it reaches only scenario worlds (see services).
"""

from __future__ import annotations

import hmac
from typing import Any

from django.conf import settings
from django.http import Http404
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from demo.scenarios.schema import schema_errors
from demo.seeding.world import WorldError

from . import services

TOKEN_HEADER = "X-Test-Control-Token"


class ControlApi(APIView):
    schema = None  # not part of the public OpenAPI document
    authentication_classes: list = []
    permission_classes: list = []

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        if not settings.AGENT_TEST_CONTROL:
            raise Http404
        expected = settings.AGENT_TEST_CONTROL_TOKEN or ""
        given = request.headers.get(TOKEN_HEADER, "")
        if not expected or not hmac.compare_digest(given.encode(), expected.encode()):
            raise exceptions.PermissionDenied(f"{TOKEN_HEADER} is missing or wrong.")
        super().initial(request, *args, **kwargs)

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, services.WorldNotFound):
            exc = exceptions.NotFound("No scenario world with that tenant.")
        elif isinstance(exc, WorldError):
            exc = exceptions.ValidationError({"world": exc.problems})
        elif isinstance(exc, services.UnknownCapability):
            exc = exceptions.ValidationError({"capability": [str(exc)]})
        return super().handle_exception(exc)


class FaultInjectionOff(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "FAULT_INJECTION_OFF"
    default_detail = "SST_FAULT_INJECTION is off on this server: a fault would never be injected."


class WorldCreateApi(ControlApi):
    def post(self, request: Request) -> Response:
        errors = schema_errors(request.data, definition="world")
        if errors:
            raise exceptions.ValidationError({"world": errors})
        created = services.world_create(world=request.data)
        other = None if created.other_tenant is None else {"tenant": created.other_tenant.tenant,
                                                           "users": created.other_tenant.users}
        body = {"tenant": created.tenant, "users": created.users, "other_tenant": other}
        return Response(body, status=status.HTTP_201_CREATED)


class WorldDetailApi(ControlApi):
    def delete(self, request: Request, tenant: str) -> Response:
        services.world_delete(tenant_id=tenant)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WorldFactsApi(ControlApi):
    def get(self, request: Request, tenant: str) -> Response:
        return Response(services.world_facts(tenant_id=tenant))


class FaultsApi(ControlApi):
    class Input(serializers.Serializer):
        tenant = serializers.UUIDField()
        capability = serializers.CharField(max_length=200)
        status = serializers.IntegerField(min_value=100, max_value=599, required=False)
        latency_ms = serializers.IntegerField(min_value=0, max_value=120_000, required=False)
        times = serializers.IntegerField(min_value=1, max_value=2**31 - 1, required=False)  # the column
        match = serializers.DictField(child=serializers.CharField(max_length=200), required=False)

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if attrs.get("status") is None and attrs.get("latency_ms") is None:
                raise serializers.ValidationError({"status": ["A fault needs a status, a latency_ms or both."]})
            return attrs

    def post(self, request: Request) -> Response:
        if not settings.SST_FAULT_INJECTION:
            # A rule the SST API would ignore makes a scenario fail far from the cause: refuse it here.
            raise FaultInjectionOff()
        data = self.Input(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        rule = services.fault_add(tenant_id=values.pop("tenant"), **values)
        return Response({"id": rule.pk, "route": rule.route, "method": rule.method}, status=status.HTTP_201_CREATED)

    def delete(self, request: Request) -> Response:
        tenant = request.query_params.get("tenant")
        if not tenant:
            raise exceptions.ValidationError({"tenant": ["This query parameter is required."]})
        services.faults_clear(tenant_id=tenant)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ClockApi(ControlApi):
    class Input(serializers.Serializer):
        advance_seconds = serializers.FloatField(min_value=0, max_value=10 * 365 * 24 * 3600)

    def post(self, request: Request) -> Response:
        data = self.Input(data=request.data)
        data.is_valid(raise_exception=True)
        now = services.clock_advance(seconds=data.validated_data["advance_seconds"])
        return Response({"now": now.isoformat()})
