"""Django's `flush` (TransactionTestCase's teardown among others), acting as the login role: it
TRUNCATEs every table, append-only ones included, which the runtime role may not (tenancy.db)."""

from django.core.management.commands.flush import Command as FlushCommand

from tenancy.db import owner_session


class Command(FlushCommand):
    def execute(self, *args, **options):  # the system checks before handle() connect too
        with owner_session():
            return super().execute(*args, **options)
