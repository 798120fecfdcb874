import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("sst_agent")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def _refuse_a_deleting_role(**kwargs) -> None:
    """A worker never runs as a database role that could delete an audit row (tenancy.db)."""
    from django.core.exceptions import ImproperlyConfigured
    from django.db import connections

    from tenancy.db import refuse_to_serve_as_a_deleting_role

    try:
        refuse_to_serve_as_a_deleting_role()
    except ImproperlyConfigured as exc:
        raise SystemExit(str(exc)) from None  # Celery logs and ignores a handler's ordinary exception
    connections.close_all()  # nothing open to hand down to the pool's forked children
