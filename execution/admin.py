"""Admin: runtime optimisation suggestions to review (never applied automatically, PRD-034 §104), the
runtime of batch executions with pause / resume (§44, §50: supervisors, admins and runtime admins of
the execution's tenant; the services check it and audit), and the replans (read-only, §55-§60)."""

from __future__ import annotations

from django.contrib import admin, messages

from .learning import suggestion_review
from .models import RuntimeExecution, RuntimeOptimizationSuggestion, RuntimeReplan, SuggestionStatus
from .runtime_control import RuntimeControlError, runtime_pause, runtime_resume


@admin.register(RuntimeOptimizationSuggestion)
class RuntimeOptimizationSuggestionAdmin(admin.ModelAdmin):
    list_display = ("capability", "resource", "current", "proposed", "confidence", "status", "created_at")
    list_filter = ("status", "capability")
    readonly_fields = ("tenant", "capability", "resource", "current", "proposed", "evidence", "confidence",
                       "expected_improvement", "status", "reviewed_by", "created_at")
    actions = ("accept", "reject")

    def get_queryset(self, request):
        return RuntimeOptimizationSuggestion.objects.all_tenants()

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.action(description="Accept (record only: change the manifest through the registry to apply)")
    def accept(self, request, queryset) -> None:
        self._review(request, queryset, accept=True)

    @admin.action(description="Reject")
    def reject(self, request, queryset) -> None:
        self._review(request, queryset, accept=False)

    def _review(self, request, queryset, *, accept: bool) -> None:
        for suggestion in queryset.filter(status=SuggestionStatus.PROPOSED):
            suggestion_review(suggestion=suggestion, actor=request.user, accept=accept)
        messages.info(request, "Reviewed. Nothing changes until the manifest is changed and approved.")


@admin.register(RuntimeExecution)
class RuntimeExecutionAdmin(admin.ModelAdmin):
    list_display = ("execution", "tenant", "status", "reason", "version", "api_calls", "llm_calls", "replans",
                    "last_heartbeat_at")
    list_filter = ("status",)
    readonly_fields = ("tenant", "execution", "status", "version", "reason", "budget", "api_calls", "steps",
                       "llm_calls", "replans", "deadline_at", "heartbeat_timeout_s", "last_heartbeat_at", "updated_at")
    actions = ("pause", "resume")

    def get_queryset(self, request):
        return RuntimeExecution.objects.all_tenants().select_related("tenant", "execution")

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # only through the actions, which go through the services

    @admin.action(description="Pause (no new item starts; resume continues from the checkpoint)")
    def pause(self, request, queryset) -> None:
        self._control(request, queryset, lambda r: runtime_pause(
            execution_id=r.execution_id, tenant=r.tenant, actor=request.user, reason="admin"))

    @admin.action(description="Resume (re-validates the checkpoint first)")
    def resume(self, request, queryset) -> None:
        self._control(request, queryset, lambda r: runtime_resume(
            execution_id=r.execution_id, tenant=r.tenant, actor=request.user))

    def _control(self, request, queryset, action) -> None:
        for runtime in queryset:
            try:
                done = action(runtime)
            except RuntimeControlError as exc:
                messages.error(request, f"{runtime.execution_id}: {exc.code}")
            else:
                messages.info(request, f"{runtime.execution_id}: {done.status}")


@admin.register(RuntimeReplan)
class RuntimeReplanAdmin(admin.ModelAdmin):
    list_display = ("execution", "step_id", "resource", "strategy", "outcome", "code", "depth", "created_at")
    list_filter = ("outcome", "strategy")
    readonly_fields = ("tenant", "execution", "step_id", "trigger", "resource", "strategy", "outcome", "code",
                       "plan", "depth", "impact", "decision", "deferred", "created_at")

    def get_queryset(self, request):
        return RuntimeReplan.objects.all_tenants()

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
