"""The web process's log lines as gunicorn with gunicorn.conf.py writes them: one
access line per request, Django's, unless GUNICORN_ACCESS_LOG asks for gunicorn's too."""

import json

import httpx
import pytest

from . import stack

pytestmark = pytest.mark.django_db(transaction=True)


def _lines(env: dict, tmp_path) -> list[dict]:
    port = stack.free_port()
    log = tmp_path / "gunicorn.log"
    process = stack.start_gunicorn(
        port=port, env={"DATABASE_URL": stack.database_url(), **env}, log=log
    )
    try:
        assert httpx.get(f"http://127.0.0.1:{port}/healthz?probe=1").status_code == 200
    finally:
        stack.stop(process)
    lines = []
    for text in log.read_text().splitlines():
        try:
            lines.append(json.loads(text))
        except ValueError:
            continue
    return lines


def _access(lines: list[dict], logger: str) -> list[dict]:
    return [line for line in lines if line.get("logger") == logger]


def test_a_request_is_one_access_line(tmp_path):
    lines = _lines({"LOG_LEVEL": "INFO"}, tmp_path)
    ours = _access(lines, "paymentsvc.access")  # the readiness probe's requests, and ours
    assert ours and all(line["path"] == "/healthz" and line["request_id"] for line in ours)
    assert _access(lines, "gunicorn.access") == []


def test_gunicorn_s_own_line_when_asked(tmp_path):
    lines = _lines({"LOG_LEVEL": "INFO", "GUNICORN_ACCESS_LOG": "-"}, tmp_path)
    theirs = _access(lines, "gunicorn.access")
    assert any("GET /healthz?probe=1 " in line["message"] for line in theirs)
    assert len(theirs) == len(_access(lines, "paymentsvc.access"))
