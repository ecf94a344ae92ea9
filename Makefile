# The only commands anyone needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
PORT ?= 8000

.PHONY: run test test-sqlite test-postgres lint format bench reliability venv dev-venv browser clean

$(VENV)/.base: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --disable-pip-version-check --upgrade pip
	$(PIP) install -q --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.dev: $(VENV)/.base requirements-dev.txt
	$(PIP) install -q --disable-pip-version-check -r requirements-dev.txt
	touch $@

venv: $(VENV)/.base
dev-venv: $(VENV)/.dev

# Debian's Chromium drives the payment-form tests (Playwright with executable_path).
browser:
	@command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || \
	  { if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	    else echo "chromium missing: install Debian's chromium package (browser tests will be skipped)"; fi; }

# Debian's nginx: the slow-client tests run the production proxy configuration
# (deploy/nginx/paymentsvc.conf) in front of a gunicorn they start.
.PHONY: proxy-server audit soak restore-drill
proxy-server:
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || \
	  { if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; \
	    else echo "nginx missing: install Debian's nginx package (proxy tests will be skipped)"; fi; }

# Demo mode: DEBUG on, SQLite and a filesystem broker unless DATABASE_URL /
# CELERY_BROKER_URL say otherwise; web + Celery worker + beat, demo data loaded.
run: export DEBUG ?= true
run: export APP_PORT := $(PORT)
run: export PUBLIC_BASE_URL ?= http://localhost:$(PORT)
run: export ALLOWED_HOSTS ?= *
run: venv
	$(PY) manage.py migrate --noinput -v 0
	$(PY) manage.py collectstatic --noinput -v 0
	$(PY) manage.py seed_demo --force
	@$(PY) manage.py demo_banner
	$(VENV)/bin/honcho start -f Procfile.dev

test: dev-venv browser proxy-server
	$(PY) -m pytest -q $(PYTEST_ARGS)

lint: dev-venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: dev-venv
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: dev-venv
	$(PY) bench/run.py

reliability: dev-venv browser proxy-server
	$(PY) -m pytest -q -m "slow" $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) var staticfiles

# The ledger auditor (paymentsvc/tests/reliability/test_audit.py) until stopped with
# Ctrl-C: operations per second every 30 s; a failure prints AUDIT_SEED=<n>, and
# `make audit AUDIT_SEED=<n>` replays that run first. `make test` runs it for 1,000
# operations.
audit: dev-venv
	AUDIT_FOREVER=1 AUDIT_SEED=$(AUDIT_SEED) $(PY) -m pytest -q -x -p no:randomly \
	  paymentsvc/tests/reliability/test_audit.py $(PYTEST_ARGS)

# Backup and restore drill on a private PostgreSQL: pg_dump during load, pg_restore
# into a fresh database, check_ledger clean, the outbox delivers what was due.
restore-drill: dev-venv
	$(PY) scripts/restore_drill.py $(DRILL_ARGS)

# Soak: 30 minutes (SOAK_ARGS="--minutes N") of mixed load on a private stack, a
# report of memory, descriptors, connections and queue depth every minute.
soak: dev-venv
	$(PY) scripts/soak.py $(SOAK_ARGS)
