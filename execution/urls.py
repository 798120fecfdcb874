from django.urls import path

from .apis import ExecutionDetailApi, ExecutionKillApi

app_name = "execution"

urlpatterns = [
    path("executions/<uuid:execution_id>", ExecutionDetailApi.as_view(), name="execution-detail"),
    path("executions/<uuid:execution_id>/kill", ExecutionKillApi.as_view(), name="execution-kill"),
]
