# The only commands anyone needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
PORT ?= 8000

.PHONY: run test test-sqlite test-postgres lint format bench reliability venv dev-venv browser messages form-screenshots trader-screenshots operator-screenshots clean

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

# The payer's page translations: locale/*/LC_MESSAGES/django.mo from the .po catalogs
# (the .mo files are committed too, so a clone without gettext still has them).
messages: venv
	@command -v msgfmt >/dev/null 2>&1 || \
	  { if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gettext >/dev/null; \
	    else echo "gettext missing: using the committed .mo files"; fi; }
	@if command -v msgfmt >/dev/null 2>&1; then DEBUG=true $(PY) manage.py compilemessages -v 0 -i ".*" -i staticfiles -i var; fi

# Demo mode: DEBUG on, SQLite and a filesystem broker unless DATABASE_URL /
# CELERY_BROKER_URL say otherwise; web + Celery worker + beat, demo data loaded.
run: export DEBUG ?= true
run: export ADMIN_2FA ?= false
run: export TRADER_2FA ?= false
run: export APP_PORT := $(PORT)
# Loopback only: the demo (DEBUG, demo passwords, private webhook targets allowed) is
# for this machine. RUN_HOST=0.0.0.0 make run opens it to the network on purpose.
run: export APP_HOST := $(or $(RUN_HOST),127.0.0.1)
run: export PUBLIC_BASE_URL ?= http://localhost:$(PORT)
run: export ALLOWED_HOSTS ?= *
# Metrics of every web and Celery process add up through files here (one per
# process); emptied at every start, so a run counts from zero.
run: export PROMETHEUS_MULTIPROC_DIR ?= $(or $(VAR_DIR),$(CURDIR)/var)/metrics
run: venv messages
	$(PY) manage.py migrate --noinput -v 0
	$(PY) manage.py collectstatic --noinput -v 0
	$(PY) manage.py seed_demo --force
	@$(PY) manage.py demo_banner
	@mkdir -p "$$PROMETHEUS_MULTIPROC_DIR" && find "$$PROMETHEUS_MULTIPROC_DIR" -maxdepth 1 -name '*.db' -delete
	$(VENV)/bin/honcho start -f Procfile.dev

# The suite runs in parallel (pytest-xdist), a worker per core up to four: each worker
# has its own test database and its own cache keys (paymentsvc/test_settings.py), and
# the servers a test starts take free ports. TEST_WORKERS=0 runs it in this process.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)

test: dev-venv browser messages proxy-server
	$(PY) -m pytest -q -n $(TEST_WORKERS) $(PYTEST_ARGS)

# The same suite on one database: SQLite (DATABASE_URL unset) or PostgreSQL (DATABASE_URL).
test-sqlite: dev-venv browser messages proxy-server
	env -u DATABASE_URL $(PY) -m pytest -q -n $(TEST_WORKERS) $(PYTEST_ARGS)

test-postgres: dev-venv browser messages proxy-server
	@case "$$DATABASE_URL" in postgres*) ;; *) echo "test-postgres: set DATABASE_URL=postgres://..."; exit 2;; esac
	$(PY) -m pytest -q -n $(TEST_WORKERS) $(PYTEST_ARGS)

# The deploy check sees production settings as a deploy sets them: DEBUG off, a secret
# of production length, a real host name.
DEPLOY_CHECK_ENV := DJANGO_SETTINGS_MODULE=paymentsvc.settings DEBUG=false \
  SECRET_KEY=deploy-check-only-not-a-real-secret-7f3c9e1a5b2d8046c1e9a7f35b0d2c84 \
  PUBLIC_BASE_URL=https://payments.example.com ALLOWED_HOSTS=payments.example.com

lint: dev-venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(PY) scripts/check_module_size.py
	DJANGO_SETTINGS_MODULE=paymentsvc.test_settings $(PY) manage.py makemigrations --check --dry-run
	env $(DEPLOY_CHECK_ENV) $(PY) manage.py check --deploy --fail-level WARNING

format: dev-venv
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: dev-venv
	$(PY) -m bench

reliability: dev-venv browser proxy-server
	$(PY) -m pytest -q -m "slow" $(PYTEST_ARGS)

# docs/form.md's screenshots: every state of the payer's page at 390 and 1280 px.
form-screenshots: dev-venv browser messages
	rm -f docs/img/form/*.png
	FORM_SCREENSHOTS_DIR=docs/img/form $(PY) -m pytest -q -p no:randomly \
	  forms_ui/tests/test_accessibility.py -k every_state

# docs/traders.md's screenshots: every page of the traders' cabinet at 390 and 1280 px.
trader-screenshots: dev-venv browser messages
	rm -f docs/img/traders/*.png
	TRADER_SCREENSHOTS_DIR=docs/img/traders $(PY) -m pytest -q -p no:randomly \
	  traders/tests/test_accessibility.py

# The back office's pages in docs/operators.md (index, order list, an order, a dispute,
# the dashboard, the two-factor pages), taken by its browser tests at 1280x800.
operator-screenshots: dev-venv browser messages
	rm -f docs/img/operators-*.png
	OPERATOR_SCREENSHOTS_DIR=docs/img $(PY) -m pytest -q -p no:randomly \
	  operators/tests/test_browser.py operators/tests/test_back_office_browser.py

clean:
	rm -rf $(VENV) var staticfiles

# The ledger auditor (core/tests/reliability/test_audit.py) until stopped with
# Ctrl-C: operations per second every 30 s; a failure prints AUDIT_SEED=<n>, and
# `make audit AUDIT_SEED=<n>` replays that run first. `make test` runs it for 1,000
# operations.
audit: dev-venv
	AUDIT_FOREVER=1 AUDIT_SEED=$(AUDIT_SEED) $(PY) -m pytest -q -x -p no:randomly \
	  core/tests/reliability/test_audit.py $(PYTEST_ARGS)

# Backup and restore drill on a private PostgreSQL: pg_dump during load, pg_restore
# into a fresh database, check_ledger clean, the outbox delivers what was due.
restore-drill: dev-venv
	$(PY) scripts/restore_drill.py $(DRILL_ARGS)

# Soak: 30 minutes (SOAK_ARGS="--minutes N") of mixed load on a private stack, a
# report of memory, descriptors, connections and queue depth every minute.
soak: dev-venv
	$(PY) scripts/soak.py $(SOAK_ARGS)
