"""Execution's AppConfig: registers the Celery tasks in every process (see `ready`)."""

from django.apps import AppConfig


class ExecutionConfig(AppConfig):
    name = "execution"

    def ready(self) -> None:
        # Every process registers execution's tasks: the modules below tasks.py send them by name
        # through the Celery app's registry (execution/dispatch.py), also in a web process that never
        # imports the tasks module otherwise.
        from . import tasks  # noqa: F401
