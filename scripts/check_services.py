"""Fail fast, with the command to fix it, when PostgreSQL or Redis cannot be reached.

`make test` never falls back to SQLite: the behaviour under test (locks, triggers, workers)
depends on the real services.
"""

import os
import sys

import psycopg
import redis

PG_START = "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start"
REDIS_START = ("redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save '' --appendonly no "
               "--dir /var/lib/redis --logfile /var/log/redis/ci.log")


def main() -> int:
    problems = []
    db_url = os.environ["DATABASE_URL"]
    try:
        # The test database is created by pytest-django from the server's `postgres` database.
        base = db_url.rsplit("/", 1)[0] + "/postgres"
        psycopg.connect(base, connect_timeout=3).close()
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
        problems.append(f"PostgreSQL at {db_url} is not reachable ({exc}).\n  Start it with: {PG_START}")
    try:
        redis.Redis.from_url(os.environ["REDIS_URL"], socket_connect_timeout=3).ping()
    except Exception as exc:  # noqa: BLE001
        problems.append(f"Redis at {os.environ['REDIS_URL']} is not reachable ({exc}).\n  Start it with: {REDIS_START}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
