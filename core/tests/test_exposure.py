"""What listens where (issue 24, item 7): gunicorn on loopback unless GUNICORN_BIND says
otherwise, `make run` on loopback and saying in its banner that it is a demo."""

import runpy
from io import StringIO
from pathlib import Path

import yaml
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]


def gunicorn_bind(monkeypatch, **env) -> str:
    monkeypatch.delenv("GUNICORN_BIND", raising=False)
    monkeypatch.delenv("PORT", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(ROOT / "gunicorn.conf.py"))["bind"]


def test_gunicorn_binds_loopback_unless_told_otherwise(monkeypatch):
    assert gunicorn_bind(monkeypatch) == "127.0.0.1:8000"
    assert gunicorn_bind(monkeypatch, PORT="9000") == "127.0.0.1:9000"
    assert gunicorn_bind(monkeypatch, GUNICORN_BIND="0.0.0.0:8000") == "0.0.0.0:8000"


def test_the_compose_web_container_binds_for_its_proxy_only():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    web = compose["services"]["web"]
    assert web["environment"]["GUNICORN_BIND"] == "0.0.0.0:8000"
    assert "ports" not in web  # published by `proxy` alone


def test_make_run_binds_loopback_by_default():
    makefile = (ROOT / "Makefile").read_text()
    assert "run: export APP_HOST := $(or $(RUN_HOST),127.0.0.1)" in makefile
    web = next(
        line for line in (ROOT / "Procfile.dev").read_text().splitlines() if line.startswith("web:")
    )
    assert "--bind ${APP_HOST:-127.0.0.1}:$APP_PORT" in web and "0.0.0.0" not in web


def test_the_banner_says_it_is_a_demo(db, settings, monkeypatch):
    settings.DEBUG = True
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
    monkeypatch.setenv("APP_HOST", "127.0.0.1")
    out = StringIO()
    call_command("demo_banner", stdout=out)
    text = out.getvalue()
    assert "A DEMO, NOT FOR REAL MONEY" in text
    assert "DEBUG on" in text and "demo passwords" in text
    assert "webhooks may go to private networks" in text
    assert "this machine only" in text
    monkeypatch.setenv("APP_HOST", "0.0.0.0")
    out = StringIO()
    call_command("demo_banner", stdout=out)
    assert "anyone who can reach this machine" in out.getvalue()
