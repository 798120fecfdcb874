"""`{% waiting_for_my_approval as n %}`: how many capability versions the signed-in user could approve now."""

from __future__ import annotations

from django import template

from registry.approval_selectors import versions_waiting_for

register = template.Library()


@register.simple_tag(takes_context=True)
def waiting_for_my_approval(context) -> int:
    request = context.get("request")
    if request is None or not request.user.is_authenticated:
        return 0
    return versions_waiting_for(user=request.user).count()
