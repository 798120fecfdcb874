"""Django admin of the registry: where staff approve, suspend and retire capability versions.

Definitions are read-only here (they come from the manifest: a change is a new version). Each
action is a small POST form with a reason that calls one service; when a rule forbids it (same
person twice, author approving, wrong status) the service's refusal is shown as an admin error.
Approval and status-change records are read-only everywhere.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from guardian.admin import GuardedModelAdmin

from .approval_selectors import approvals_still_needed, versions_waiting_for
from .messages import kind_label, message
from .models import (
    ApprovalKind,
    Capability,
    CapabilityApproval,
    CapabilityStatus,
    CapabilityStatusChange,
    CapabilityVersion,
    Resource,
    ResourceFallback,
    TenantCapabilityBlock,
)
from .selectors import definition_of, previous_version
from .services import (
    RegistryRefusal,
    capability_approve,
    capability_resume,
    capability_retire,
    capability_submit,
    capability_suspend,
    tenant_capability_block,
    tenant_capability_unblock,
)

# name -> (label, statuses it is offered in, service call)
_ACTIONS: dict[str, tuple[str, frozenset[str], Callable]] = {
    "submit": ("Enviar para aprovação / Submit for approval", frozenset({CapabilityStatus.DRAFT}),
               lambda v, u, r: capability_submit(version=v, actor=u, reason=r)),
    "approve_technical": ("Aprovar (técnica) / Approve (technical)", frozenset({CapabilityStatus.PENDING_APPROVAL}),
                          lambda v, u, r: capability_approve(version=v, approver=u, kind=ApprovalKind.TECHNICAL,
                                                             reason=r)),
    "approve_business": ("Aprovar (negócio) / Approve (business)", frozenset({CapabilityStatus.PENDING_APPROVAL}),
                         lambda v, u, r: capability_approve(version=v, approver=u, kind=ApprovalKind.BUSINESS,
                                                            reason=r)),
    "suspend": ("Suspender / Suspend", frozenset({CapabilityStatus.ACTIVE}),
                lambda v, u, r: capability_suspend(version=v, actor=u, reason=r)),
    "resume": ("Reativar / Resume", frozenset({CapabilityStatus.SUSPENDED}),
               lambda v, u, r: capability_resume(version=v, actor=u, reason=r)),
    "retire": ("Aposentar / Retire", frozenset({CapabilityStatus.DRAFT, CapabilityStatus.PENDING_APPROVAL,
                                                CapabilityStatus.ACTIVE, CapabilityStatus.SUSPENDED}),
               lambda v, u, r: capability_retire(version=v, actor=u, reason=r)),
}


class _ReadOnlyInline(admin.TabularInline):
    extra = 0
    max_num = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ApprovalInline(_ReadOnlyInline):
    model = CapabilityApproval
    fields = readonly_fields = ("kind", "approver", "reason", "created_at")


class StatusChangeInline(_ReadOnlyInline):
    model = CapabilityStatusChange
    fields = readonly_fields = ("from_status", "to_status", "actor", "reason", "created_at")


class WaitingForMyApprovalFilter(admin.SimpleListFilter):
    """Pending versions the signed-in staff user could approve now (linked from the admin index)."""

    title = "aprovação / approval"
    parameter_name = "waiting"

    def lookups(self, request, model_admin):
        return [("mine", "Aguardando minha aprovação / Waiting for my approval")]

    def queryset(self, request, queryset):
        if self.value() == "mine":
            return queryset.filter(pk__in=versions_waiting_for(user=request.user).values("pk"))
        return queryset


@admin.register(CapabilityVersion)
class CapabilityVersionAdmin(admin.ModelAdmin):
    list_display = ("capability", "version", "status", "risk_level", "kind", "discoverable", "approvals_given",
                    "author", "created_at")
    list_filter = (WaitingForMyApprovalFilter, "status", "risk_level", "kind", "discoverable")
    search_fields = ("capability__key", "description")
    list_select_related = ("capability", "author")
    inlines = [ApprovalInline, StatusChangeInline]
    change_form_template = "admin/registry/capabilityversion/change_form.html"
    exclude = ("input_schema", "output_schema", "call", "navigation", "undo", "compensation", "verification",
               "retry_policy", "adaptation", "language")

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields if f.name not in self.exclude]

    @admin.display(description="approvals")
    def approvals_given(self, obj: CapabilityVersion) -> str:
        return ", ".join(a.kind for a in obj.approvals.all()) or "-"

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("approvals")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # definitions come from the manifest; actions below are separate views

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def get_urls(self):
        urls = super().get_urls()
        custom = [path("<int:object_id>/action/<str:action>/", self.admin_site.admin_view(self.action_view),
                       name="registry_capabilityversion_action")]
        return custom + urls

    def change_view(self, request, object_id, form_url="", extra_context=None):
        version = get_object_or_404(CapabilityVersion.objects.select_related("capability", "resource"), pk=object_id)
        extra_context = {**(extra_context or {}), **self._review_context(version)}
        return super().change_view(request, object_id, form_url, extra_context)

    def _review_context(self, version: CapabilityVersion) -> dict:
        current = json.dumps(definition_of(version), indent=2, sort_keys=True, ensure_ascii=False)
        previous = previous_version(version)
        diff = ""
        if previous is not None:
            before = json.dumps(definition_of(previous), indent=2, sort_keys=True, ensure_ascii=False)
            diff = "\n".join(difflib.unified_diff(before.splitlines(), current.splitlines(),
                                                  fromfile=f"v{previous.version}", tofile=f"v{version.version}",
                                                  lineterm="")) or "(no change)"
        actions = [{"name": name, "label": label,
                    "url": reverse("admin:registry_capabilityversion_action", args=[version.pk, name])}
                   for name, (label, statuses, _call) in _ACTIONS.items() if version.status in statuses]
        missing = approvals_still_needed(version=version)
        return {"definition_json": current, "diff_text": diff, "previous": previous, "registry_actions": actions,
                "approvals_given": [kind_label(a.kind) for a in version.approvals.all()],
                "approvals_missing": [kind_label(kind) for kind in missing]}

    def action_view(self, request: HttpRequest, object_id: int, action: str) -> HttpResponse:
        version = get_object_or_404(CapabilityVersion, pk=object_id)
        target = reverse("admin:registry_capabilityversion_change", args=[version.pk])
        if request.method != "POST" or action not in _ACTIONS or not self.has_view_permission(request, version):
            return HttpResponseRedirect(target)
        label, _statuses, call = _ACTIONS[action]
        try:
            call(version, request.user, request.POST.get("reason", ""))
        except RegistryRefusal as refusal:
            messages.error(request, refusal.message())
        else:
            version.refresh_from_db()
            messages.success(request, _outcome(action, label, version))
        return HttpResponseRedirect(target)


def _outcome(action: str, label: str, version: CapabilityVersion) -> str:
    """After an approval, what it did and what the version still needs; after any other action, its new status."""
    if not action.startswith("approve_"):
        return f"{label}: {version.capability.key} v{version.version} → {version.status}"
    params = {"kind": kind_label(action.removeprefix("approve_")), "capability": version.capability.key,
              "version": version.version}
    missing = approvals_still_needed(version=version)
    if missing:
        return message("APPROVAL_RECORDED_WAITING", missing=" / ".join(kind_label(k) for k in missing), **params)
    return message("APPROVAL_RECORDED_ACTIVE", **params)


@admin.register(Capability)
class CapabilityAdmin(GuardedModelAdmin):
    """The identity; its object permissions page grants `use_capability` per user or group."""

    list_display = ("key", "current_status", "created_at")
    search_fields = ("key",)
    readonly_fields = ("key", "created_at")

    @admin.display(description="latest version")
    def current_status(self, obj: Capability) -> str:
        latest = obj.versions.order_by("-version").first()
        return f"v{latest.version} {latest.status}" if latest else "-"

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class _AppendOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(CapabilityApproval)
class CapabilityApprovalAdmin(_AppendOnlyAdmin):
    list_display = ("capability_version", "kind", "approver", "reason", "created_at")
    list_filter = ("kind",)


@admin.register(CapabilityStatusChange)
class CapabilityStatusChangeAdmin(_AppendOnlyAdmin):
    list_display = ("capability_version", "from_status", "to_status", "actor", "reason", "created_at")
    list_filter = ("to_status",)


class ResourceFallbackInline(admin.TabularInline):
    model = ResourceFallback
    fk_name = "resource"
    extra = 0


@admin.register(Resource)
class ResourceAdmin(admin.ModelAdmin):
    list_display = ("key", "base_path", "transport", "base_url_setting", "timeout_initial_ms", "timeout_max_ms")
    inlines = [ResourceFallbackInline]


@admin.register(TenantCapabilityBlock)
class TenantCapabilityBlockAdmin(admin.ModelAdmin):
    list_display = ("tenant", "capability", "reason", "created_by", "created_at")
    fields = ("tenant", "capability", "reason")

    def get_queryset(self, request):
        return TenantCapabilityBlock.objects.all_tenants().select_related("tenant", "capability")

    def has_change_permission(self, request, obj=None) -> bool:
        return obj is None and super().has_change_permission(request, obj)

    def save_model(self, request, obj, form, change) -> None:
        try:
            block = tenant_capability_block(tenant=obj.tenant, capability_key=obj.capability.key,
                                            actor=request.user, reason=obj.reason)
        except RegistryRefusal as refusal:
            raise PermissionDenied(refusal.message()) from None
        obj.pk = block.pk

    def delete_model(self, request, obj) -> None:
        tenant_capability_unblock(tenant=obj.tenant, capability_key=obj.capability.key, actor=request.user)

    def delete_queryset(self, request, queryset) -> None:
        for obj in queryset:
            self.delete_model(request, obj)
