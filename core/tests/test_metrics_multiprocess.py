"""Multiprocess mode: what separate processes (gunicorn workers, Celery children)
count adds up in one scrape, through files in PROMETHEUS_MULTIPROC_DIR."""

import os
import subprocess
import sys
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[2]

COUNT = """
import django
django.setup()
from core import metrics
for _ in range({n}):
    metrics.order_transitioned(to="Completed", actor="trader:7")
    metrics.http_request_observed(method="POST", route="/api/v1/order/", status=201, seconds=0.05)
metrics.webhook_delivery_attempted(state="delivered")
"""

OPEN_DATABASE = """
import django
django.setup()
from django.db import connection
connection.ensure_connection()
"""

SCRAPE = """
import django
django.setup()
from core import metrics
metrics._scrape_gauges.clear()  # no database here: counters only
print(metrics.exposition().decode())
"""


def _run(code: str, env: dict, cwd: Path = ROOT) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_counts_from_two_processes_add_up_in_one_scrape(tmp_path):
    metrics_dir = tmp_path / "metrics"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "paymentsvc.settings",
        "DEBUG": "true",
        "VAR_DIR": str(tmp_path / "var"),
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
    }
    # The embedded database made first, by one process, as `make run`'s migrate does:
    # two processes opening a new SQLite file at once may both try to switch it to WAL
    # and one is told "database is locked".
    if not env.get("DATABASE_URL"):
        _run(OPEN_DATABASE, env)
    first = subprocess.Popen([sys.executable, "-c", COUNT.format(n=3)], cwd=ROOT, env=env)
    second = subprocess.Popen([sys.executable, "-c", COUNT.format(n=4)], cwd=ROOT, env=env)
    assert first.wait(timeout=120) == 0
    assert second.wait(timeout=120) == 0
    # One file per process and kind: nothing shared while counting.
    assert len(list(metrics_dir.glob("counter_*.db"))) == 2

    text = _run(SCRAPE, env)
    samples = {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    assert (
        samples[
            (
                "paymentsvc_order_transitions_total",
                frozenset({("to", "Completed"), ("actor", "trader")}),
            )
        ]
        == 7
    )
    http = frozenset({("method", "POST"), ("route", "/api/v1/order/"), ("status", "201")})
    assert samples[("paymentsvc_http_requests_total", http)] == 7
    duration = frozenset({("method", "POST"), ("route", "/api/v1/order/")})
    assert samples[("paymentsvc_http_request_duration_seconds_count", duration)] == 7
    assert (
        samples[("paymentsvc_webhook_deliveries_total", frozenset({("outcome", "delivered")}))] == 2
    )


def test_an_empty_multiprocess_dir_writes_no_files(tmp_path):
    """PROMETHEUS_MULTIPROC_DIR set but empty is no multiprocess mode: the process counts
    in memory, and no metrics file lands in its working directory."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "paymentsvc.settings",
        "DEBUG": "true",
        "VAR_DIR": str(tmp_path / "var"),
        "PROMETHEUS_MULTIPROC_DIR": "",
        "PYTHONPATH": str(ROOT),
    }
    scrape = "metrics._scrape_gauges.clear()\nprint(metrics.exposition().decode())"
    out = _run(COUNT.format(n=2) + scrape, env, cwd=tmp_path)
    assert list(tmp_path.glob("*.db")) == []
    assert 'paymentsvc_order_transitions_total{actor="trader",to="Completed"} 2.0' in out
