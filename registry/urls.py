from django.urls import path

from . import apis

app_name = "registry"

urlpatterns = [
    path("capabilities", apis.CapabilityListApi.as_view(), name="capability-list"),
]
