"""Read-only admin views of knowledge packages: versions are imported, never edited by hand."""

from __future__ import annotations

from django.contrib import admin

from .models import KnowledgePackage, KnowledgeSection


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).all_tenants()  # the admin is the documented escape hatch


@admin.register(KnowledgePackage)
class KnowledgePackageAdmin(_ReadOnly):
    list_display = ("tenant", "version", "label", "is_active", "source", "created_at")
    list_filter = ("is_active",)


@admin.register(KnowledgeSection)
class KnowledgeSectionAdmin(_ReadOnly):
    list_display = ("section_id", "title", "language", "package", "tenant")
    list_filter = ("language",)
    search_fields = ("section_id", "title")
