"""Execution's HTTP views: the trace of one execution (`GET /agent/executions/{id}`), kill, and a
person's pause/resume of a batch's runtime. Views only parse, call one service or selector, and
serialize; the trace's nested serializers are the OpenAPI schema `ExecutionTrace`.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from policy.exceptions import PolicyError
from tenancy.models import Role
from tenancy.permissions import tenant_context

from .runtime_control import RuntimeControlError, runtime_pause, runtime_resume
from .selectors import execution_get, execution_trace
from .services import ExecutionError, execution_kill


class TraceLabelsSerializer(serializers.Serializer):
    def get_fields(self):
        return {"pt-BR": serializers.CharField(), "en": serializers.CharField()}  # keys as the payload spells them


class TraceMessageSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    text = serializers.CharField(allow_blank=True)
    at = serializers.DateTimeField()


class TraceCapabilitySerializer(serializers.Serializer):
    id = serializers.CharField()
    version = serializers.IntegerField()
    kind = serializers.CharField()
    risk = serializers.CharField()


class TraceReceiptSerializer(serializers.Serializer):
    id = serializers.CharField()
    stage = serializers.CharField()
    decision = serializers.CharField()
    level = serializers.CharField()
    risk = serializers.CharField(allow_blank=True)
    reasons = serializers.JSONField()
    confirmation_id = serializers.CharField(allow_null=True)
    issued_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)


class TracePolicySerializer(serializers.Serializer):
    decision = TraceReceiptSerializer(allow_null=True)
    receipt = TraceReceiptSerializer(allow_null=True)
    receipts = TraceReceiptSerializer(many=True)


class TraceConfirmationSerializer(serializers.Serializer):
    id = serializers.CharField()
    level = serializers.CharField()
    received_at = serializers.DateTimeField()
    receipt_id = serializers.CharField()


class TracePlanSerializer(serializers.Serializer):
    id = serializers.CharField()
    template = serializers.CharField()
    planner = serializers.CharField()
    status = serializers.CharField()
    risk = serializers.CharField()
    hash = serializers.CharField()
    allow_partial = serializers.BooleanField()
    requires_confirmation = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    validated_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


class TraceCheckSerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    ok = serializers.BooleanField()
    code = serializers.CharField(allow_blank=True)
    reasons = serializers.JSONField()


class TraceStepNoteSerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    type = serializers.CharField()
    data = serializers.JSONField()


class TraceStepSerializer(serializers.Serializer):
    id = serializers.CharField()
    capability = serializers.CharField()
    version = serializers.IntegerField()
    kind = serializers.CharField()
    risk = serializers.CharField()
    depends_on = serializers.ListField(child=serializers.CharField())
    label = serializers.JSONField()
    status = serializers.CharField()
    attempts = serializers.IntegerField()
    calls = serializers.IntegerField()
    retries = serializers.IntegerField()
    call_ms = serializers.FloatField()
    duration_ms = serializers.FloatField(allow_null=True)
    input = serializers.JSONField(allow_null=True)
    targets = serializers.JSONField()
    result = serializers.JSONField(allow_null=True)
    error = serializers.JSONField(allow_null=True)
    errors = serializers.ListField(child=serializers.JSONField())
    checks = TraceCheckSerializer(many=True)
    verification = TraceStepNoteSerializer(many=True)
    compensation = serializers.JSONField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class TraceEntrySerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    type = serializers.CharField()
    step_id = serializers.CharField(allow_null=True)
    data = serializers.JSONField()
    label = TraceLabelsSerializer()


class TraceCompensationSerializer(serializers.Serializer):
    steps = serializers.ListField(child=serializers.JSONField())
    timeline = TraceEntrySerializer(many=True)


class TraceEventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    at = serializers.DateTimeField()
    actor = serializers.CharField()
    operation_id = serializers.CharField(allow_null=True)


class TraceResponseSerializer(serializers.Serializer):
    message = TraceLabelsSerializer()
    result = serializers.JSONField()


class ExecutionDetailApi(APIView):
    """GET /agent/executions/{id}: the full trace of PRD-010 §52 (tenant-scoped; another tenant's or,
    below supervisor, another user's → 404)."""

    required_role = Role.VIEWER

    @extend_schema_serializer(component_name="ExecutionTrace")
    class OutputSerializer(serializers.Serializer):
        id = serializers.CharField()
        plan_id = serializers.CharField()
        conversation_id = serializers.CharField(allow_null=True)
        operation_id = serializers.CharField(allow_null=True)
        intent_id = serializers.CharField()
        receipt_id = serializers.CharField()
        tenant_id = serializers.CharField()
        actor_id = serializers.CharField()
        language = serializers.CharField()
        status = serializers.CharField()
        needs_review = serializers.BooleanField()
        error = serializers.JSONField(allow_null=True)
        started_at = serializers.DateTimeField()
        finished_at = serializers.DateTimeField(allow_null=True)
        retry_budget = serializers.IntegerField()
        message = TraceMessageSerializer(allow_null=True)
        intent = serializers.JSONField()
        capabilities = TraceCapabilitySerializer(many=True)
        policy = TracePolicySerializer()
        confirmation = TraceConfirmationSerializer(allow_null=True)
        plan = TracePlanSerializer()
        steps = TraceStepSerializer(many=True)
        verification = TraceEntrySerializer(many=True)
        compensation = TraceCompensationSerializer(allow_null=True)
        timeline = TraceEntrySerializer(many=True)
        conversation_events = TraceEventSerializer(many=True)
        runtime = serializers.JSONField(allow_null=True)
        response = TraceResponseSerializer(allow_null=True)

    @extend_schema(responses=OutputSerializer)
    def get(self, request, execution_id):
        context = tenant_context(request)
        execution = execution_get(tenant=context.tenant, execution_id=execution_id)
        if execution is None or (execution.actor_id != context.user.pk
                                 and context.membership.role not in (Role.SUPERVISOR, Role.ADMIN)):
            raise NotFound()
        return Response(self.OutputSerializer(execution_trace(execution=execution)).data)


class ExecutionKillApi(APIView):
    """POST /agent/executions/{id}/kill: EXECUTION kill switch + cancel (runtime-admin permission)."""

    required_role = Role.VIEWER

    @extend_schema_serializer(component_name="ExecutionKillInput")
    class InputSerializer(serializers.Serializer):
        reason = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")

    @extend_schema(request=InputSerializer, summary="Kill an execution",
                   description="Engages the execution's kill switch and cancels it: no further step starts. "
                               "Needs the runtime-admin permission (403 otherwise).",
                   responses=inline_serializer("ExecutionKilled", {"id": serializers.CharField(),
                                                                   "status": serializers.CharField()}))
    def post(self, request, execution_id):
        context = tenant_context(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        execution = execution_get(tenant=context.tenant, execution_id=execution_id)
        if execution is None:
            raise NotFound()
        try:
            execution = execution_kill(execution_id=execution.pk, tenant=context.tenant, actor=context.user,
                                       reason=data.validated_data["reason"] or "killed from the API")
        except PolicyError as exc:
            raise PermissionDenied(detail=str(exc), code=getattr(exc, "code", "NOT_RUNTIME_ADMIN")) from exc
        except ExecutionError as exc:
            raise NotFound() from exc
        return Response({"id": str(execution.pk), "status": execution.status}, status=status.HTTP_200_OK)


class _RuntimeControlApi(APIView):
    """Shared by pause and resume: supervisors/admins of the tenant or runtime admins (services decide)."""

    required_role = Role.VIEWER
    STATUS = {"NOT_FOUND": status.HTTP_404_NOT_FOUND, "NOT_ALLOWED": status.HTTP_403_FORBIDDEN}

    @extend_schema_serializer(component_name="ExecutionRuntimeControlInput")
    class InputSerializer(serializers.Serializer):
        reason = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")

    def control(self, context, execution, reason: str):
        raise NotImplementedError

    @extend_schema(request=InputSerializer,
                   responses=inline_serializer("ExecutionRuntimeControlled", {
                       "id": serializers.CharField(), "runtime_status": serializers.CharField()}))
    def post(self, request, execution_id):
        context = tenant_context(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        execution = execution_get(tenant=context.tenant, execution_id=execution_id)
        if execution is None:
            raise NotFound()
        try:
            runtime = self.control(context, execution, data.validated_data["reason"])
        except RuntimeControlError as exc:
            code = self.STATUS.get(exc.code, status.HTTP_409_CONFLICT)
            if code == status.HTTP_404_NOT_FOUND:
                raise NotFound() from exc
            return Response({"code": exc.code, "detail": exc.code}, status=code)
        return Response({"id": str(execution.pk), "runtime_status": runtime.status}, status=status.HTTP_200_OK)


class ExecutionPauseApi(_RuntimeControlApi):
    """POST /agent/executions/{id}/pause {reason?}: no new batch item starts (PRD-034 §44)."""

    def control(self, context, execution, reason: str):
        return runtime_pause(execution_id=execution.pk, tenant=context.tenant, actor=context.user, reason=reason)


class ExecutionResumeApi(_RuntimeControlApi):
    """POST /agent/executions/{id}/resume: from the checkpoint, after re-validating it (§50-§51)."""

    def control(self, context, execution, reason: str):
        return runtime_resume(execution_id=execution.pk, tenant=context.tenant, actor=context.user)
