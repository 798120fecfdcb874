from __future__ import annotations

from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from .authentication import TenantSessionAuthentication
from .models import Membership
from .permissions import tenant_context
from .services import NotAMember, session_tenant_switch


class MeApi(APIView):
    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        tenant = serializers.CharField()
        tenant_name = serializers.CharField()
        role = serializers.CharField()

    def get(self, request):
        context = tenant_context(request)
        data = {"username": context.user.get_username(), "tenant": str(context.tenant.pk),
                "tenant_name": context.tenant.name, "role": context.role}
        return Response(self.OutputSerializer(data).data)


class SwitchTenantApi(APIView):
    """A session user with several memberships picks the one tenant they act in."""

    authentication_classes = [TenantSessionAuthentication]
    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        tenant = serializers.UUIDField()

    def post(self, request):
        payload = self.InputSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        try:
            membership: Membership = session_tenant_switch(
                user=request.user, session=request.session, tenant_id=payload.validated_data["tenant"]
            )
        except NotAMember:
            return Response({"code": "not_found", "detail": "Tenant not found."}, status=status.HTTP_404_NOT_FOUND)
        return Response({"tenant": str(membership.tenant_id), "role": membership.role})
