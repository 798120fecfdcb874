"""Admin: kill switches (raise/lift through the services), reviews (approve/reject actions), and
read-only receipts, checks and audit. Every write goes through a service, so it is permission-checked
and audited exactly as from code.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from .exceptions import PolicyError
from .models import AuditEvent, KillSwitch, PolicyReceipt, ReceiptCheck, ReviewRequest
from .reviews import review_request_approve, review_request_reject
from .services import kill_switch_lift, kill_switch_set


class ReadOnlyAdmin(admin.ModelAdmin):
    """Append-only tables: the database refuses changes anyway; the admin does not offer them."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(PolicyReceipt)
class PolicyReceiptAdmin(ReadOnlyAdmin):
    list_display = ("id", "decision", "level", "stage", "plan_id", "actor", "tenant", "issued_at", "expires_at")
    list_filter = ("decision", "level", "stage")
    search_fields = ("=id", "=plan_id")

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return PolicyReceipt.objects.all_tenants().select_related("tenant", "actor")


@admin.register(ReceiptCheck)
class ReceiptCheckAdmin(ReadOnlyAdmin):
    list_display = ("checked_at", "ok", "code", "step_id", "capability", "receipt_ref", "actor", "tenant")
    list_filter = ("ok", "code")
    search_fields = ("=receipt_ref", "=plan_id")

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return ReceiptCheck.objects.all_tenants().select_related("tenant", "actor")


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "event_type", "target_type", "target_id", "actor", "tenant")
    list_filter = ("event_type", "target_type")
    search_fields = ("=target_id",)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return AuditEvent.objects.all_tenants().select_related("tenant", "actor")


@admin.register(KillSwitch)
class KillSwitchAdmin(admin.ModelAdmin):
    list_display = ("scope", "target", "tenant", "active", "reason", "set_by", "set_at", "lifted_by", "lifted_at")
    list_filter = ("scope",)
    fields = ("scope", "tenant", "target", "reason")
    actions = ["lift_selected"]

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("policy.runtime_admin")

    def has_view_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return request.user.has_perm("policy.runtime_admin")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("policy.runtime_admin")

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False  # a switch is lifted (an action), never edited

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: KillSwitch, form: object, change: bool) -> None:
        created = kill_switch_set(actor=request.user, scope=obj.scope, reason=obj.reason, tenant=obj.tenant,
                                  target=obj.target)
        obj.pk = created.pk

    @admin.action(description="Lift the selected kill switches")
    def lift_selected(self, request: HttpRequest, queryset: QuerySet) -> None:
        for switch in queryset.filter(lifted_at__isnull=True):
            try:
                kill_switch_lift(actor=request.user, switch_id=switch.pk, reason=f"lifted in admin by {request.user}")
            except PolicyError as exc:
                self.message_user(request, exc.detail, messages.ERROR)

    def get_actions(self, request: HttpRequest) -> dict:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def get_changeform_initial_data(self, request: HttpRequest) -> dict:
        return {"scope": "GLOBAL"}


@admin.register(ReviewRequest)
class ReviewRequestAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "summary", "status", "requester", "tenant", "plan_id")
    actions = ["approve_selected", "reject_selected"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return ReviewRequest.objects.all_tenants().select_related("tenant", "requester", "decision")

    def _decide(self, request: HttpRequest, queryset: QuerySet, decide: object, verb: str) -> None:
        for review in queryset:
            try:
                decide(tenant=review.tenant, reviewer=request.user, request_id=review.pk, reason=f"{verb} in admin")
            except PolicyError as exc:
                self.message_user(request, f"{review}: {exc.detail}", messages.ERROR)

    @admin.action(description="Approve the selected reviews")
    def approve_selected(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._decide(request, queryset, review_request_approve, "approved")

    @admin.action(description="Reject the selected reviews")
    def reject_selected(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._decide(request, queryset, review_request_reject, "rejected")

    def get_actions(self, request: HttpRequest) -> dict:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions
