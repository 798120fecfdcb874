"""Fail fast, with the command to fix it, when PostgreSQL or Redis cannot be reached.

`make test` never falls back to SQLite: the behaviour under test (locks, triggers, workers)
depends on the real services.
"""

import os
import sys

import psycopg
import redis
from ensure_database import ensure_roles

PG_START = "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start"
REDIS_START = ("redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save '' --appendonly no "
               "--dir /var/lib/redis --logfile /var/log/redis/ci.log")


def _end_stale_sessions(conn: psycopg.Connection, test_db: str) -> None:
    """An interrupted earlier run can leave sessions on the test database, and pytest-django then
    cannot drop and re-create it. Only the test database (test_<name>) is touched, never the real one."""
    ended = conn.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                         "WHERE datname = %s AND pid <> pg_backend_pid()", [test_db]).fetchone()[0]
    if ended:
        print(f"ended {ended} stale session(s) on {test_db}", file=sys.stderr)


def _database_room(client: redis.Redis, url: str) -> list[str]:
    """REDIS_URL's database n is the first of five (config/settings/services.py): the server must have n+4."""
    first = int(url.rsplit("/", 1)[1].split("?", 1)[0] or 0) if url.count("/") >= 3 else 0
    have = int(client.config_get("databases").get("databases", 16))
    if first + 4 < have:
        return []
    return [f"REDIS_URL ends in database {first}, but the app uses five from it ({first}–{first + 4}: broker, "
            f"results, channel layer, cache, runtime) and this Redis has {have} (0–{have - 1}).\n"
            f"  Use a database number of at most {have - 5}, e.g. redis://127.0.0.1:6379/0."]


def main() -> int:
    problems = []
    db_url = os.environ["DATABASE_URL"]
    try:
        # The test database is created by pytest-django from the server's `postgres` database.
        base = db_url.rsplit("/", 1)[0] + "/postgres"
        with psycopg.connect(base, connect_timeout=3, autocommit=True) as conn:
            _end_stale_sessions(conn, "test_" + db_url.rsplit("/", 1)[1].split("?", 1)[0])
            ensure_roles(conn)  # the tests act as the runtime role, as the application does
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
        problems.append(f"PostgreSQL at {db_url} is not reachable ({exc}).\n  Start it with: {PG_START}")
    try:
        client = redis.Redis.from_url(os.environ["REDIS_URL"], socket_connect_timeout=3)
        client.ping()
        problems.extend(_database_room(client, os.environ["REDIS_URL"]))
    except Exception as exc:  # noqa: BLE001
        problems.append(f"Redis at {os.environ['REDIS_URL']} is not reachable ({exc}).\n  Start it with: {REDIS_START}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
