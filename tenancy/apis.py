from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer, inline_serializer
from rest_framework import serializers, status
from rest_framework.authentication import get_authorization_header
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from .authentication import TenantSessionAuthentication, TenantTokenAuthentication
from .models import Membership, token_digest
from .permissions import tenant_context
from .services import NotAMember, session_tenant_switch
from .tickets import TICKET_TTL_SECONDS, ws_ticket_issue


class MeApi(APIView):
    @extend_schema_serializer(component_name="Me")
    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        tenant = serializers.CharField()
        tenant_name = serializers.CharField()
        role = serializers.CharField()

    @extend_schema(responses=OutputSerializer, summary="Who am I",
                   description="The authenticated user, the tenant the request acts in and the user's role there.")
    def get(self, request):
        context = tenant_context(request)
        data = {"username": context.user.get_username(), "tenant": str(context.tenant.pk),
                "tenant_name": context.tenant.name, "role": context.role}
        return Response(self.OutputSerializer(data).data)


class SwitchTenantApi(APIView):
    """A session user with several memberships picks the one tenant they act in."""

    authentication_classes = [TenantSessionAuthentication]
    permission_classes = [IsAuthenticated]

    @extend_schema_serializer(component_name="TenantSwitchInput")
    class InputSerializer(serializers.Serializer):
        tenant = serializers.UUIDField()

    @extend_schema(request=InputSerializer, summary="Switch tenant",
                   description="A session user with several memberships picks the tenant the session acts in. "
                               "Answers 404 for a tenant the user is not a member of.",
                   responses=inline_serializer("TenantSwitched", {"tenant": serializers.UUIDField(),
                                                                  "role": serializers.CharField()}))
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


class WsTicketApi(APIView):
    """A single-use ticket that opens one websocket (`?ticket=`) within 60 s: no token in a URL."""

    @extend_schema_serializer(component_name="WsTicket")
    class OutputSerializer(serializers.Serializer):
        ticket = serializers.CharField()
        expires_in = serializers.IntegerField(help_text="seconds")

    @extend_schema(request=None, responses={201: OutputSerializer}, summary="Websocket ticket",
                   description="A single-use ticket for `ws/agent/conversations/{id}/?ticket=…`, valid for "
                               "60 seconds, bound to the caller's user and tenant (and token, if a token asked). "
                               "A websocket URL with `?token=` is refused with close code 4401.")
    def post(self, request):
        context = tenant_context(request)
        digest = None
        if isinstance(request.successful_authenticator, TenantTokenAuthentication):
            digest = token_digest(get_authorization_header(request).split()[1].decode())
        ticket = ws_ticket_issue(context=context, token_digest=digest)
        data = self.OutputSerializer({"ticket": ticket, "expires_in": TICKET_TTL_SECONDS}).data
        return Response(data, status=status.HTTP_201_CREATED, headers={"Cache-Control": "no-store"})
