"""Create the PostgreSQL database DATABASE_URL names when it does not exist yet, and the roles the
application acts as (make run / scenarios / make test)."""

import os
import sys

import psycopg
from psycopg import sql


def ensure_roles(conn: psycopg.Connection) -> None:
    """The roles the application's connections act as (tenancy.db; migrations grant their rights):
    agent_app, agent_maintainer and the runtime role (DATABASE_RUNTIME_ROLE, default agent_runtime,
    NOLOGIN: the connection logs in as the owner and acts as it through the `role` startup option)."""
    runtime = os.environ.get("DATABASE_RUNTIME_ROLE", "").strip() or "agent_runtime"
    for role in ("agent_app", "agent_maintainer", *([] if runtime.lower() == "none" else [runtime])):
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role]).fetchone() is None:
            conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE").format(
                sql.Identifier(role)))
            print(f"created role {role}")
    if runtime.lower() != "none":
        conn.execute(sql.SQL("GRANT agent_app TO {}").format(sql.Identifier(runtime)))


def main() -> int:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        return 0  # the embedded default (SQLite) creates its own file
    base, name = url.rsplit("/", 1)
    name = name.split("?", 1)[0]
    with psycopg.connect(base + "/postgres", autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            print(f"created database {name}")
        ensure_roles(conn)
    return 0


if __name__ == "__main__":
    sys.exit(main())
