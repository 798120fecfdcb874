"""OpenAPI descriptions of the tenant-bound authenticators (drf-spectacular extensions)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class TenantTokenScheme(OpenApiAuthenticationExtension):
    target_class = "tenancy.authentication.TenantTokenAuthentication"
    name = "tenantToken"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Token <key>`: a key bound to one user and one tenant."}


class TenantSessionScheme(OpenApiAuthenticationExtension):
    target_class = "tenancy.authentication.TenantSessionAuthentication"
    name = "tenantSession"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": "sessionid",
                "description": "Django session; the tenant is the one the session switched to."}
