"""Create the PostgreSQL database DATABASE_URL names when it does not exist yet (make run / scenarios)."""

import os
import sys

import psycopg
from psycopg import sql


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
    return 0


if __name__ == "__main__":
    sys.exit(main())
