"""Read-mostly admin for the SST data: every tenant's rows, through the explicit escape hatch.

Changing SST data goes through the API (its rules, revisions and idempotency); the admin shows it.
Fault rules may be deleted here, to stop an injected failure by hand.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from .models import (
    Company,
    ComponentType,
    Employee,
    FaultRule,
    Finding,
    IdempotencyRecord,
    Inspection,
    PermitComponent,
    PermitWorker,
    WorkPermit,
)


class ReadOnlyMixin:
    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return self.model.objects.all_tenants().select_related("tenant")

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class TenantAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_filter = ("tenant",)


@admin.register(Company)
class CompanyAdmin(TenantAdmin):
    list_display = ("name", "tenant", "created_at")
    search_fields = ("name",)


@admin.register(Employee)
class EmployeeAdmin(TenantAdmin):
    list_display = ("name", "company", "tenant")
    search_fields = ("name",)


@admin.register(ComponentType)
class ComponentTypeAdmin(TenantAdmin):
    list_display = ("key", "name", "undoable", "tenant")
    search_fields = ("key", "name")


class PermitComponentInline(ReadOnlyMixin, admin.TabularInline):
    model = PermitComponent
    fields = ("component_type", "notes", "created_at")
    readonly_fields = fields
    extra = 0


class PermitWorkerInline(ReadOnlyMixin, admin.TabularInline):
    model = PermitWorker
    fields = ("employee", "created_at")
    readonly_fields = fields
    extra = 0


@admin.register(WorkPermit)
class WorkPermitAdmin(TenantAdmin):
    list_display = ("number", "company", "status", "validity_days", "responsible", "revision", "tenant")
    list_filter = ("tenant", "status")
    search_fields = ("number", "company__name")
    inlines = [PermitComponentInline, PermitWorkerInline]


class FindingInline(ReadOnlyMixin, admin.TabularInline):
    model = Finding
    fields = ("description", "severity", "created_at")
    readonly_fields = fields
    extra = 0


@admin.register(Inspection)
class InspectionAdmin(TenantAdmin):
    list_display = ("number", "company", "site", "status", "scheduled_for", "inspector", "revision", "tenant")
    list_filter = ("tenant", "status")
    search_fields = ("number", "company__name", "site")
    inlines = [FindingInline]


@admin.register(FaultRule)
class FaultRuleAdmin(TenantAdmin):
    list_display = ("route", "method", "status", "latency_ms", "times", "match", "tenant", "created_at")

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return bool(request.user.is_superuser)


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(TenantAdmin):
    list_display = ("key", "state", "response_status", "tenant", "created_at")
    search_fields = ("key",)
