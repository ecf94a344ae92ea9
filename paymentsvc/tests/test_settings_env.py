"""Settings read `.env` before anything else and touch no disk at import."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def import_settings(tmp_path, env_file: str, **env) -> subprocess.CompletedProcess:
    (tmp_path / ".env").write_text(env_file)
    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in {"VAR_DIR", "DEBUG", "AUTH_FAILURE_RATE_LIMIT"}
    }
    environ |= {"ENV_FILE": str(tmp_path / ".env"), "SECRET_KEY": "x" * 50, **env}
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
    environ = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    environ |= {
        "ENV_FILE": str(tmp_path / "none"),
        "SECRET_KEY": "x" * 50,
        "VAR_DIR": str(tmp_path / "state"),
        "CELERY_BROKER_URL": "filesystem://",
        "DJANGO_SETTINGS_MODULE": "paymentsvc.settings",
    }
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environ, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "state" / "broker" / "queue").is_dir()
    assert (tmp_path / "state" / "broker" / "processed").is_dir()
