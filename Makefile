# Two commands: `make run` and `make test`. Everything else is a helper of those two.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-12)

# Tests always run on the real services: local defaults unless the environment points elsewhere.
TEST_DATABASE_URL ?= $(or $(DATABASE_URL),postgres://postgres@127.0.0.1:5432/sst_agent)
TEST_REDIS_URL ?= $(or $(REDIS_URL),redis://127.0.0.1:6379/0)

.PHONY: run serve test install lint bench scenarios reliability

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@rm -f $(VENV)/.installed-*; touch $(STAMP)

install: $(STAMP)

run: install
	$(PY) scripts/ensure_database.py
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	@DEBUG=$${DEBUG:-1} bash scripts/serve.sh

# Production serving (README "Production serving"): the same application on one worker process per core
# (gunicorn + uvicorn workers, DEBUG=0), with the Celery worker and beat when Redis is reachable.
serve: install
	$(PY) scripts/ensure_database.py
	$(PY) manage.py migrate --noinput
	@bash scripts/serve_production.sh

test: install
	@bash scripts/ensure_system_deps.sh
	@DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) $(PY) scripts/check_services.py
	$(VENV)/bin/ruff check .
	DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) $(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .

# Play our scenarios (and the shared acceptance ones when ../shared is there) in-process against the test
# services (worlds are created and removed).
scenarios: install
	DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) $(PY) scripts/ensure_database.py
	DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) $(PY) manage.py migrate --noinput -v0
	DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) $(PY) manage.py run_scenarios tests/conversations/scenarios \
		$(wildcard ../shared/scenarios) $(wildcard ../shared/scenarios/inspections)

# Every bench/*.py script, then bench/RESULTS.md (../shared/design/BENCH.md).
bench: install
	DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) $(PY) scripts/ensure_database.py
	DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) $(PY) manage.py migrate --noinput -v0
	DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) $(PY) scripts/bench_all.py

# TypeScript types of the REST and websocket payloads into contracts/ (tests/contracts fails on drift).
contracts: install
	$(PY) scripts/contracts.py

# The reliability and security suite in full (schema fuzzing and chaos tests too; under 10 minutes).
reliability: install
	DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) bash scripts/reliability.sh
