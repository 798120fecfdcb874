"""Django's `migrate`, acting as the login role (the owner): DDL is not the runtime role's (tenancy.db)."""

from django.core.management.commands.migrate import Command as MigrateCommand

from tenancy.db import owner_session


class Command(MigrateCommand):
    def execute(self, *args, **options):  # the system checks before handle() connect too
        with owner_session():
            return super().execute(*args, **options)
