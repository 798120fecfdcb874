#!/usr/bin/env bash
# `make serve`: the same application and settings as `make run`, served to use the cores — gunicorn
# with one uvicorn worker process per core (HTTP and websockets on one port, config.asgi), DEBUG=0 —
# and, when Redis is reachable, a Celery worker and beat, all under honcho as scripts/serve.sh does.
# bench/served_turns.py starts this script itself, so what it measures is what this serves.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBUG=0  # production serving: no debug pages, no query log
port="${PORT:-8000}"
host="${HOST:-127.0.0.1}"
workers="${WEB_CONCURRENCY:-$(nproc)}"
procfile=$(mktemp)
trap 'rm -f "$procfile"' EXIT
services=""
if [ -n "${REDIS_URL:-}" ] && .venv/bin/python -c "import redis,os; redis.Redis.from_url(os.environ['REDIS_URL']).ping()" 2>/dev/null; then
  services="redis"
else
  # The in-memory channel layer lives in one process: with several, an event would reach only the
  # sockets of the process that published it.
  echo "REDIS_URL unset or unreachable: embedded default (in-memory channel layer, eager Celery), one process."
  workers=1
fi
# --keep-alive 5: an idle browser or API client keeps its connection for 5 s (gunicorn's 2 s makes
# busy clients reconnect); no access log line per request (structlog already logs what matters).
echo "web: .venv/bin/gunicorn config.asgi:application -k uvicorn_worker.UvicornWorker -w $workers" \
  "-b $host:$port --keep-alive 5 --graceful-timeout 20 --log-level warning" >"$procfile"
if [ -n "$services" ]; then
  echo "worker: .venv/bin/celery -A config worker --loglevel=INFO --concurrency=${CELERY_WORKER_CONCURRENCY:-2}" >>"$procfile"
  echo "beat: .venv/bin/celery -A config beat --loglevel=INFO --schedule=/tmp/sst-agent-celerybeat-$port" >>"$procfile"
fi
echo "Serving on http://$host:$port/ with $workers worker processes (DEBUG=0). Ctrl-C stops."
exec .venv/bin/honcho -f "$procfile" -d . start
