from __future__ import annotations

from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from policy.exceptions import PolicyError
from tenancy.models import Role
from tenancy.permissions import tenant_context

from .selectors import execution_detail, execution_get
from .services import ExecutionError, execution_kill


class ExecutionDetailApi(APIView):
    """GET /agent/executions/{id}: steps, timeline and outcome (tenant-scoped; another tenant's → 404)."""

    required_role = Role.VIEWER

    def get(self, request, execution_id):
        context = tenant_context(request)
        execution = execution_get(tenant=context.tenant, execution_id=execution_id)
        if execution is None or (execution.actor_id != context.user.pk
                                 and context.membership.role not in (Role.SUPERVISOR, Role.ADMIN)):
            raise NotFound()
        return Response(execution_detail(execution=execution))


class ExecutionKillApi(APIView):
    """POST /agent/executions/{id}/kill: EXECUTION kill switch + cancel (runtime-admin permission)."""

    required_role = Role.VIEWER

    class InputSerializer(serializers.Serializer):
        reason = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")

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
