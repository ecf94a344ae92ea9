"""Settings read `.env` before anything else and touch no disk at import."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import redis

ROOT = Path(__file__).resolve().parents[2]


def clean_environment(**env) -> dict:
    """What a shell gives a process, and `env`: the variables this test run set for
    itself (test_settings sets several) must not leak in."""
    keep = ("PATH", "HOME", "LANG", "TMPDIR")
    base = {k: os.environ[k] for k in keep if k in os.environ}
    return base | {"DJANGO_SETTINGS_MODULE": "paymentsvc.settings", "SECRET_KEY": "x" * 50} | env


def import_settings(tmp_path, env_file: str, **env) -> subprocess.CompletedProcess:
    (tmp_path / ".env").write_text(env_file)
    environ = clean_environment(ENV_FILE=str(tmp_path / ".env"), **env)
    return subprocess.run(
        [sys.executable, "-c", "from paymentsvc import settings; print(settings.VAR_DIR)"],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_var_dir_comes_from_dot_env_and_is_not_created_at_import(tmp_path):
    result = import_settings(tmp_path, f"VAR_DIR={tmp_path / 'state'}\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(tmp_path / "state")
    assert not (tmp_path / "state").exists()


def test_the_environment_wins_over_dot_env(tmp_path):
    result = import_settings(
        tmp_path, f"VAR_DIR={tmp_path / 'file'}\n", VAR_DIR=str(tmp_path / "env")
    )
    assert result.stdout.strip() == str(tmp_path / "env")


def test_a_malformed_rate_stops_start_up_naming_the_variable(tmp_path):
    result = import_settings(tmp_path, "AUTH_FAILURE_RATE_LIMIT=lots\n")
    assert result.returncode != 0
    assert "AUTH_FAILURE_RATE_LIMIT must look like 1200/min" in result.stderr


def test_django_start_up_makes_the_directories(tmp_path):
    code = "import django; django.setup(); from django.conf import settings; print('ok')"
    environ = clean_environment(
        ENV_FILE=str(tmp_path / "none"),
        VAR_DIR=str(tmp_path / "state"),
        CELERY_BROKER_URL="filesystem://",
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environ, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "state" / "broker" / "queue").is_dir()
    assert (tmp_path / "state" / "broker" / "processed").is_dir()


def test_a_broker_key_prefix_starts_every_key_the_broker_writes(tmp_path):
    """Two sets of processes on one Redis database (the suite's parallel workers) keep
    their queues apart: a message sent under CELERY_BROKER_KEY_PREFIX lands in the
    prefixed queue only."""
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not broker.startswith(("redis://", "rediss://")):
        pytest.skip("needs CELERY_BROKER_URL=redis://…")
    prefix = f"prefix-test-{uuid.uuid4().hex[:12]}:"
    code = (
        "import django; django.setup(); from paymentsvc.celery import app; "
        "app.send_task('prefix-test.nothing', queue='prefix-test-queue')"
    )
    environ = clean_environment(
        ENV_FILE=str(tmp_path / "none"),
        VAR_DIR=str(tmp_path / "state"),
        CELERY_BROKER_URL=broker,
        CELERY_BROKER_KEY_PREFIX=prefix,
    )
    client = redis.Redis.from_url(broker)
    try:
        result = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=environ, capture_output=True, text=True
        )
        assert result.returncode == 0, result.stderr
        assert client.llen(f"{prefix}prefix-test-queue") == 1
        assert client.llen("prefix-test-queue") == 0
    finally:
        for key in client.scan_iter(match=f"{prefix}*"):
            client.delete(key)
