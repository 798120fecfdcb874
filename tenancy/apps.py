from django.apps import AppConfig


class TenancyConfig(AppConfig):
    name = "tenancy"
    verbose_name = "Tenancy"

    def ready(self) -> None:
        from django.core import checks

        from . import schema  # noqa: F401 - registers the OpenAPI authentication extensions
        from .checks import runtime_role
        from .pgdriver import conversion_cache_tune
        from .signals import connect

        connect()
        conversion_cache_tune()
        checks.register(runtime_role)
