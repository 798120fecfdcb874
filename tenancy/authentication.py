"""DRF authentication that yields (user, TenantContext): the tenant comes from the server only.

`request.auth` is the TenantContext. A token carries its tenant; a session carries the tenant the
user switched to (or the only one they belong to). Nothing in the body or query can change it.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from .selectors import context_for_session, context_for_token


class TenantTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Token"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(_("Invalid token header."))
        try:
            raw = header[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed(_("Invalid token header.")) from None
        context = context_for_token(raw_key=raw)
        if context is None:
            raise exceptions.AuthenticationFailed(_("Invalid or expired token."))
        return context.user, context

    def authenticate_header(self, request) -> str:
        return self.keyword


class TenantSessionAuthentication(authentication.SessionAuthentication):
    def authenticate(self, request):
        result = super().authenticate(request)
        if result is None:
            return None
        user, _auth = result
        return user, context_for_session(user=user, session=request._request.session)
