from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config import schema  # noqa: F401 - registers the OpenAPI view extensions
from config.observability import metrics_view

# Overload (no database connection to be had) is a 503 with Retry-After; anything else stays a 500.
handler500 = "config.overload.server_error"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("metrics", metrics_view, name="metrics"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/tenancy/", include("tenancy.urls")),
    path("api/sst/", include("sst.urls")),
    path("api/knowledge/", include("knowledge.urls")),
    path("api/_test/", include("demo.testcontrol.urls")),
    path("agent/", include("registry.urls")),
    path("agent/", include("execution.urls")),
    path("agent/", include("conversations.urls")),
    path("", include("conversations.page_urls")),
]
