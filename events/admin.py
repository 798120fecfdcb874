from django.contrib import admin

from .models import ConversationEvent


@admin.register(ConversationEvent)
class ConversationEventAdmin(admin.ModelAdmin):
    """Read-only: the log is append-only (a database trigger refuses changes anyway)."""

    list_display = ("conversation_id", "seq", "type", "actor", "timestamp", "tenant")
    list_filter = ("type", "actor")
    search_fields = ("conversation_id",)

    def get_queryset(self, request):
        return ConversationEvent.objects.all_tenants().select_related("tenant")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
