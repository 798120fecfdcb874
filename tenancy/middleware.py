from __future__ import annotations

from django.utils.functional import SimpleLazyObject

from .selectors import context_for_session


class TenantMiddleware:
    """`request.tenant_context` for plain Django views (the chat page), from the session only."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.tenant_context = SimpleLazyObject(
            lambda: context_for_session(user=request.user, session=request.session)
        )
        return self.get_response(request)
