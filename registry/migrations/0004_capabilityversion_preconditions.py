"""The resource-state rules policy checks before a confirmation (manifest `preconditions`).

The column is added with a plain ALTER TABLE rather than Django's AddField: on SQLite AddField with
a default rebuilds the table, and the registry's guard triggers (0002) that name
`registry_capabilityversion` then fail mid-rebuild ("no such table"). ADD COLUMN keeps the table
and its triggers in place on both vendors.
"""

from django.db import migrations, models

_SQL = {
    "postgresql": (
        "ALTER TABLE registry_capabilityversion ADD COLUMN preconditions jsonb NOT NULL DEFAULT '[]'::jsonb",
        "ALTER TABLE registry_capabilityversion DROP COLUMN preconditions",
    ),
    "sqlite": (
        "ALTER TABLE registry_capabilityversion ADD COLUMN preconditions text NOT NULL DEFAULT '[]' "
        "CHECK ((JSON_VALID(preconditions) OR preconditions IS NULL))",
        "ALTER TABLE registry_capabilityversion DROP COLUMN preconditions",
    ),
}


def _run(index: int):
    def run(apps, schema_editor) -> None:
        schema_editor.execute(_SQL[schema_editor.connection.vendor][index])

    return run


class Migration(migrations.Migration):
    dependencies = [("registry", "0003_app_role_grants")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(_run(0), _run(1))],
            state_operations=[
                migrations.AddField(
                    model_name="capabilityversion",
                    name="preconditions",
                    field=models.JSONField(blank=True, default=list),
                ),
            ],
        ),
    ]
