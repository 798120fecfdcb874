from __future__ import annotations

from rest_framework.permissions import BasePermission

from .context import TenantContext
from .models import Role


def tenant_context(request) -> TenantContext:
    """The authenticated TenantContext of a DRF request (IsTenantMember guarantees it exists)."""
    context = request.auth
    if not isinstance(context, TenantContext):
        raise PermissionError("request has no tenant context")
    return context


class IsTenantMember(BasePermission):
    """Authenticated, with a tenant chosen by the server, as at least `required_role`."""

    required_role = Role.VIEWER

    def has_permission(self, request, view) -> bool:
        context = request.auth
        if not isinstance(context, TenantContext):
            return False
        minimum = getattr(view, "required_role", None) or self.required_role
        return context.has_role(minimum)
