# The only commands anyone needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
PORT ?= 8000

.PHONY: run test test-sqlite test-postgres lint format bench reliability venv dev-venv browser messages form-screenshots clean

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
run: export APP_PORT := $(PORT)
run: export PUBLIC_BASE_URL ?= http://localhost:$(PORT)
run: export ALLOWED_HOSTS ?= *
run: venv messages
	$(PY) manage.py migrate --noinput -v 0
	$(PY) manage.py collectstatic --noinput -v 0
	$(PY) manage.py seed_demo --force
	@$(PY) manage.py demo_banner
	$(VENV)/bin/honcho start -f Procfile.dev

test: dev-venv browser messages
	$(PY) -m pytest -q $(PYTEST_ARGS)

lint: dev-venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: dev-venv
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: dev-venv
	$(PY) bench/run.py

reliability: dev-venv browser
	$(PY) -m pytest -q -m "slow" $(PYTEST_ARGS)

# docs/form.md's screenshots: every state of the payer's page at 390 and 1280 px.
form-screenshots: dev-venv browser messages
	rm -f docs/img/form/*.png
	FORM_SCREENSHOTS_DIR=docs/img/form $(PY) -m pytest -q -p no:randomly \
	  forms_ui/tests/test_accessibility.py -k every_state

clean:
	rm -rf $(VENV) var staticfiles
