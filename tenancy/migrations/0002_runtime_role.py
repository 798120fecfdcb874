"""The roles the application's connections act as (tenancy.db, README "Database roles").

- `agent_app`: may read and write every table of the schema (the append-only triggers still refuse
  UPDATE, DELETE and TRUNCATE on their tables); tables created later by the migrating role too.
- `agent_maintainer`: a member of `agent_app`, so a purge acting as it (tenancy.db.purge_window)
  can read and delete what it cascades to.
- `settings.DATABASE_RUNTIME_ROLE` (default `agent_runtime`): created NOLOGIN when missing, a member
  of `agent_app`. Production may log in as a runtime role of its own instead (README).
"""

from django.conf import settings
from django.db import migrations

from tenancy.db import _PG_ROLES, APP_ROLE, MAINTAINER_ROLE


def forwards(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return  # SQLite has no roles
    runtime = getattr(settings, "DATABASE_RUNTIME_ROLE", "")
    create_runtime = "" if not runtime else f"""
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{runtime}') THEN
        BEGIN CREATE ROLE {runtime} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END;  -- a parallel migrate won
    END IF;
END $$;
GRANT {APP_ROLE} TO {runtime};
"""
    privileges = "SELECT, INSERT, UPDATE, DELETE"
    schema_editor.execute(f"""{_PG_ROLES}
GRANT {APP_ROLE} TO {MAINTAINER_ROLE};
GRANT USAGE ON SCHEMA public TO {APP_ROLE};
GRANT {privileges} ON ALL TABLES IN SCHEMA public TO {APP_ROLE};
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {APP_ROLE};
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT {privileges} ON TABLES TO {APP_ROLE};
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO {APP_ROLE};
{create_runtime}""", params=None)


class Migration(migrations.Migration):
    dependencies = [("tenancy", "0001_initial")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
