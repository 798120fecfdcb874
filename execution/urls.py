"""Routes of execution's HTTP views, included under /agent/ by config/urls.py."""

from django.urls import path

from .apis import ExecutionDetailApi, ExecutionKillApi, ExecutionPauseApi, ExecutionResumeApi

app_name = "execution"

urlpatterns = [
    path("executions/<uuid:execution_id>", ExecutionDetailApi.as_view(), name="execution-detail"),
    path("executions/<uuid:execution_id>/kill", ExecutionKillApi.as_view(), name="execution-kill"),
    path("executions/<uuid:execution_id>/pause", ExecutionPauseApi.as_view(), name="execution-pause"),
    path("executions/<uuid:execution_id>/resume", ExecutionResumeApi.as_view(), name="execution-resume"),
]
