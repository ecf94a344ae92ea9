"""Where the bench runs and the environment its server processes get."""

import os
import secrets
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PORT = int(os.environ.get("BENCH_PORT", "18080"))
BASE = f"http://127.0.0.1:{PORT}"
# A second server beside the first (the bare WSGI app, metrics off), a third (metrics
# on, beside the second) and a fourth (metrics on too: the third's twin, the metrics
# point's control); the webhook receiver takes PORT + 1 and PgBouncer PORT + 2.
SECOND_PORT = PORT + 3
SECOND = f"http://127.0.0.1:{SECOND_PORT}"
THIRD_PORT = PORT + 4
THIRD = f"http://127.0.0.1:{THIRD_PORT}"
FOURTH_PORT = PORT + 5
FOURTH = f"http://127.0.0.1:{FOURTH_PORT}"
DB = os.environ.get("BENCH_DB", "paymentsvc_bench_run")
PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
REDIS = os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379/7")
SECONDS = float(os.environ.get("BENCH_SECONDS", "6"))
MEMORY_REQUESTS = int(os.environ.get("BENCH_MEMORY_REQUESTS", "20000"))
SHOP = {"X-API-Key": "demo-shop-key"}
# Metrics in multiprocess mode, as deployed (docs/operations.md): emptied at each run.
METRICS_DIR = ROOT / "var" / "bench" / "metrics"

ENV = {
    **os.environ,
    "DJANGO_SETTINGS_MODULE": "paymentsvc.settings",
    "DEBUG": "false",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "SECURE_SSL_REDIRECT": "false",
    "ALLOWED_HOSTS": "*",
    "DATABASE_URL": f"{PG}/{DB}",
    "CELERY_BROKER_URL": REDIS,
    "CACHE_URL": REDIS,
    "API_RATE_LIMIT": "1000000000/min",
    "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
    "PUBLIC_BASE_URL": BASE,
    "VAR_DIR": str(ROOT / "var" / "bench"),
    "GUNICORN_BIND": f"127.0.0.1:{PORT}",
    "PROMETHEUS_MULTIPROC_DIR": str(METRICS_DIR),
    # The dashboard point signs the demo operator in with a password alone.
    "ADMIN_2FA": "false",
    # The cabinets point opens sessions as a sign-in leaves them, without the OTP step.
    "TRADER_2FA": "false",
}
RESULTS = ROOT / "var" / "bench" / "results.pickle"
