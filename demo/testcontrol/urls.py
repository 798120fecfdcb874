"""/api/_test/… (present in the URL table always; every view answers 404 unless AGENT_TEST_CONTROL is on)."""

from django.urls import path

from . import apis

app_name = "testcontrol"

urlpatterns = [
    path("worlds", apis.WorldCreateApi.as_view(), name="world-create"),
    path("worlds/<str:tenant>", apis.WorldDetailApi.as_view(), name="world-detail"),
    path("worlds/<str:tenant>/facts", apis.WorldFactsApi.as_view(), name="world-facts"),
    path("faults", apis.FaultsApi.as_view(), name="faults"),
    path("clock", apis.ClockApi.as_view(), name="clock"),
]
