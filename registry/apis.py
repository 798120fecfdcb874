from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from tenancy.permissions import tenant_context

from .selectors import registry_snapshot


class CapabilityListApi(APIView):
    """ACTIVE, discoverable capabilities the caller's role allows in the caller's tenant."""

    @extend_schema_serializer(component_name="Capability")
    class OutputSerializer(serializers.Serializer):
        id = serializers.CharField()
        version = serializers.IntegerField()
        description = serializers.CharField()
        kind = serializers.CharField()
        risk_level = serializers.CharField()
        required_permissions = serializers.SerializerMethodField()
        entity = serializers.SerializerMethodField()
        input_schema = serializers.DictField()

        def get_required_permissions(self, spec) -> list[str]:
            return sorted(spec.required_permissions)

        def get_entity(self, spec) -> str | None:
            return spec.language.get("entity")

    @extend_schema(responses=OutputSerializer(many=True), summary="Capabilities you may use",
                   description="The ACTIVE, discoverable capabilities the caller's role permits in the caller's "
                               "tenant (tenant blocks applied), with their input schemas.")
    def get(self, request):
        context = tenant_context(request)
        specs = registry_snapshot().discoverable_for(tenant=context.tenant, role=context.role)
        return Response(self.OutputSerializer(specs, many=True).data)
