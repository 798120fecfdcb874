#!/usr/bin/env bash
# `make run`: the ASGI server (chat, API, admin, websockets) and, when Redis is reachable, a Celery
# worker and beat, all under honcho so one Ctrl-C stops them together.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBUG="${DEBUG:-1}"
procfile=$(mktemp)
trap 'rm -f "$procfile"' EXIT
echo "web: .venv/bin/python manage.py runserver 127.0.0.1:${PORT:-8000} --noreload" >"$procfile"
if [ -n "${REDIS_URL:-}" ] && .venv/bin/python -c "import redis,os; redis.Redis.from_url(os.environ['REDIS_URL']).ping()" 2>/dev/null; then
  echo "worker: .venv/bin/celery -A config worker --loglevel=INFO --concurrency=2" >>"$procfile"
  echo "beat: .venv/bin/celery -A config beat --loglevel=INFO --schedule=/tmp/sst-agent-celerybeat" >>"$procfile"
else
  echo "REDIS_URL unset or unreachable: embedded default (in-memory channel layer, eager Celery)."
fi
echo "Serving on http://127.0.0.1:${PORT:-8000}/ (admin at /admin/, API docs at /api/docs/). Ctrl-C stops."
exec .venv/bin/honcho -f "$procfile" -d . start
