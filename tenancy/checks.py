"""Start-up check: the application's database role cannot delete an audit row (tenancy.db).

A system check, so `manage.py runserver` (`make run`) and `manage.py check` refuse with an error
naming DATABASE_RUNTIME_ROLE; config/asgi.py and the Celery worker call the same verdict at start.
"""

from django.core import checks


def runtime_role(app_configs, **kwargs) -> list[checks.CheckMessage]:
    from .db import check_runtime_role

    verdict = check_runtime_role()
    if verdict is None:
        return []
    kind, reason = verdict
    if kind == "error":
        return [checks.Error(reason, id="tenancy.E001")]
    return [checks.Info(f"append-only role check skipped: {reason}", id="tenancy.I001")]
