"""The conversation REST API (API.md "Conversations" and the human-review endpoints).

Views only parse, call one service and serialize. Tenant and user come from authentication;
another user's or tenant's conversation is the same 404 as a missing one, on every endpoint.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import OpenApiTypes, extend_schema, extend_schema_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from policy.exceptions import PolicyError
from tenancy.permissions import tenant_context

from .ratelimit import turn_allowed
from .review import review_decide, reviews_pending
from .services import (
    ConversationNotFound,
    conversation_create,
    conversation_events,
    conversation_state,
    conversation_turn,
)
from .state import confirmation_view, state_view
from .turns import VersionConflict


class Throttled(exceptions.Throttled):
    default_code = "rate_limited"


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The conversation changed; read its state and try again."
    default_code = "version_conflict"


def _not_found() -> exceptions.NotFound:
    return exceptions.NotFound("Conversation not found.", code="not_found")


class TurnApi(APIView):
    """Base of every endpoint that answers with a turn."""

    kind = "message"

    @extend_schema_serializer(component_name="Turn")
    class OutputSerializer(serializers.Serializer):
        turn_id = serializers.CharField(allow_null=True)
        conversation_id = serializers.CharField()
        status = serializers.CharField()
        version = serializers.IntegerField()
        response = serializers.DictField(allow_null=True)
        events = serializers.ListField(child=serializers.DictField())
        metrics = serializers.DictField()

    def run(self, request, conversation_id: str, **arguments: Any) -> Response:
        context = tenant_context(request)
        wait = turn_allowed(user=context.user, tenant=context.tenant)
        if wait is not None:
            raise Throttled(wait=wait)
        try:
            turn = conversation_turn(tenant=context.tenant, user=context.user, conversation_id=conversation_id,
                                     kind=self.kind, role=context.role, **arguments)
        except ConversationNotFound:
            raise _not_found() from None
        except VersionConflict:
            raise Conflict() from None
        return Response(self.OutputSerializer(turn).data)


class ConversationCreateApi(APIView):
    @extend_schema_serializer(component_name="ConversationCreateInput")
    class InputSerializer(serializers.Serializer):
        session_id = serializers.CharField(required=False, allow_blank=True, max_length=64)
        language = serializers.ChoiceField(choices=["pt-BR", "en"], required=False)

    @extend_schema_serializer(component_name="ConversationCreated")
    class OutputSerializer(serializers.Serializer):
        id = serializers.CharField()
        status = serializers.CharField()
        version = serializers.IntegerField()

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer})
    def post(self, request):
        context = tenant_context(request)
        data = self.InputSerializer(data=request.data or {})
        data.is_valid(raise_exception=True)
        conversation = conversation_create(tenant=context.tenant, user=context.user,
                                           session_id=data.validated_data.get("session_id", ""),
                                           language=data.validated_data.get("language", "pt-BR"))
        return Response(self.OutputSerializer({"id": str(conversation.pk), "status": conversation.status,
                                               "version": conversation.version}).data,
                        status=status.HTTP_201_CREATED)


class ConversationDetailApi(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, conversation_id: str):
        context = tenant_context(request)
        try:
            return Response(conversation_state(tenant=context.tenant, user=context.user,
                                               conversation_id=conversation_id))
        except ConversationNotFound:
            raise _not_found() from None


class MessageApi(TurnApi):
    @extend_schema_serializer(component_name="MessageInput")
    class InputSerializer(serializers.Serializer):
        text = serializers.CharField(max_length=4000, trim_whitespace=True)
        ui_context = serializers.DictField(required=False, allow_null=True)
        client_message_id = serializers.CharField(required=False, max_length=100, allow_null=True)
        expected_version = serializers.IntegerField(required=False, min_value=1)

    @extend_schema(request=InputSerializer, responses=TurnApi.OutputSerializer)
    def post(self, request, conversation_id: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        return self.run(request, conversation_id, text=values["text"], ui_context=values.get("ui_context"),
                        client_message_id=values.get("client_message_id"),
                        expected_version=values.get("expected_version"))


class ActionApi(TurnApi):
    @extend_schema_serializer(component_name="ActionInput")
    class InputSerializer(serializers.Serializer):
        client_message_id = serializers.CharField(required=False, max_length=100, allow_null=True)
        ui_context = serializers.DictField(required=False, allow_null=True)

    @extend_schema(request=InputSerializer, responses=TurnApi.OutputSerializer)
    def post(self, request, conversation_id: str):
        data = self.InputSerializer(data=request.data or {})
        data.is_valid(raise_exception=True)
        return self.run(request, conversation_id, client_message_id=data.validated_data.get("client_message_id"),
                        ui_context=data.validated_data.get("ui_context"))


class ConfirmApi(TurnApi):
    kind = "confirm"

    @extend_schema_serializer(component_name="ConfirmInput")
    class InputSerializer(serializers.Serializer):
        confirmation_id = serializers.UUIDField()
        client_message_id = serializers.CharField(required=False, max_length=100, allow_null=True)
        ui_context = serializers.DictField(required=False, allow_null=True)

    @extend_schema(request=InputSerializer, responses=TurnApi.OutputSerializer)
    def post(self, request, conversation_id: str):
        data = self.InputSerializer(data=request.data or {})
        data.is_valid(raise_exception=True)
        values = data.validated_data
        return self.run(request, conversation_id, confirmation_id=values["confirmation_id"],
                        client_message_id=values.get("client_message_id"), ui_context=values.get("ui_context"))


class CancelApi(ActionApi):
    kind = "cancel"


class UndoApi(ActionApi):
    kind = "undo"


class ResumeApi(ActionApi):
    kind = "resume"


class EventsApi(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, conversation_id: str):
        context = tenant_context(request)
        try:
            after = int(request.query_params.get("after", 0))
        except ValueError:
            raise exceptions.ValidationError({"after": ["An integer is required."]}) from None
        try:
            events = conversation_events(tenant=context.tenant, user=context.user, conversation_id=conversation_id,
                                         after=max(0, after))
        except ConversationNotFound:
            raise _not_found() from None
        return Response({"events": events})


class ReviewListApi(APIView):
    def get(self, request):
        context = tenant_context(request)
        if not context.user.has_perm("policy.review_conversation"):
            raise exceptions.PermissionDenied("You may not review conversations.", code="not_reviewer")
        pending = reviews_pending(tenant=context.tenant, reviewer=context.user)
        return Response({"reviews": [{**confirmation_view(c), "conversation_id": str(c.conversation_id),
                                      "requester": c.user_id} for c in pending]})


class ReviewDecisionApi(APIView):
    approve = True

    class InputSerializer(serializers.Serializer):
        reason = serializers.CharField(required=False, allow_blank=True, max_length=500)

    def post(self, request, confirmation_id: str):
        context = tenant_context(request)
        data = self.InputSerializer(data=request.data or {})
        data.is_valid(raise_exception=True)
        try:
            review_decide(tenant=context.tenant, reviewer=context.user, confirmation_id=confirmation_id,
                          approve=self.approve, reason=data.validated_data.get("reason", ""))
        except (LookupError, ValueError, DjangoValidationError):  # a malformed id is a missing review
            raise exceptions.NotFound("Review not found.", code="not_found") from None
        except PolicyError as exc:
            code = getattr(exc, "code", "REVIEW_NOT_ALLOWED")
            if code == "REVIEW_ALREADY_DECIDED":
                raise Conflict(detail=str(exc), code=code) from None
            raise exceptions.PermissionDenied(str(exc), code=code) from None
        return Response({"status": "approved" if self.approve else "rejected"})


class ReviewRejectApi(ReviewDecisionApi):
    approve = False


__all__ = ["state_view"]
