"""Which capability permissions each tenant role holds: data, reused by the policy engine.

A capability lists `required_permissions`; a member may discover (and, subject to policy, use) it
when their role holds all of them. Roles are cumulative (viewer < operator < supervisor < admin).
"""

from __future__ import annotations

from tenancy.models import Role

VIEWER_PERMISSIONS = frozenset({"sst.read", "sst.navigate", "knowledge.read"})
OPERATOR_PERMISSIONS = VIEWER_PERMISSIONS | {"sst.write"}
SUPERVISOR_PERMISSIONS = OPERATOR_PERMISSIONS | {"sst.delete", "sst.approve", "sst.cancel"}
ADMIN_PERMISSIONS = SUPERVISOR_PERMISSIONS

ROLE_PERMISSIONS: dict[str, frozenset[str]] = {
    Role.VIEWER: VIEWER_PERMISSIONS,
    Role.OPERATOR: OPERATOR_PERMISSIONS,
    Role.SUPERVISOR: SUPERVISOR_PERMISSIONS,
    Role.ADMIN: ADMIN_PERMISSIONS,
}

# Every permission a manifest may name; anything else is a typo the loader reports.
KNOWN_PERMISSIONS: frozenset[str] = frozenset().union(*ROLE_PERMISSIONS.values())


def permissions_for_role(role: str) -> frozenset[str]:
    """The permissions of a role; an unknown role holds none (fail closed)."""
    return ROLE_PERMISSIONS.get(role, frozenset())
