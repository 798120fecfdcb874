"""Let the production application role (tenancy.db.APP_ROLE) use the registry tables.

It gets every privilege on purpose: what stops it from editing an approved definition or an
approval record is the trigger, and the attack tests run as that role to prove it.
"""

from django.db import migrations

from tenancy.db import APP_ROLE

TABLES = ["registry_capability", "registry_capabilityversion", "registry_capabilityapproval",
          "registry_capabilitystatuschange", "registry_resource", "registry_resourcefallback",
          "registry_tenantcapabilityblock", "registry_registrystate"]


def forwards(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return  # SQLite has no roles
    schema_editor.execute(
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON {', '.join(TABLES)} TO {APP_ROLE};"
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {APP_ROLE};", params=None)


class Migration(migrations.Migration):
    dependencies = [("registry", "0002_database_guards")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
