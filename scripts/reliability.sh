#!/usr/bin/env bash
# `make reliability`: the whole reliability and security suite (tests/reliability), chaos tests included.
# Chaos tests start their own PostgreSQL cluster and Redis on free ports; the rest uses the test services.
# The report (cases of each kind) is written to tests/artifacts/reliability.md and printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
export RELIABILITY=1
exec .venv/bin/python -m pytest -q tests/reliability "$@"
