"""Admin: runtime optimisation suggestions to review (never applied automatically, PRD-034 §104)."""

from __future__ import annotations

from django.contrib import admin, messages

from .learning import suggestion_review
from .models import RuntimeOptimizationSuggestion, SuggestionStatus


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
