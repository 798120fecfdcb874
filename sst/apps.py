from django.apps import AppConfig


class SstConfig(AppConfig):
    name = "sst"

    def ready(self) -> None:
        from .changes import connect

        connect()
