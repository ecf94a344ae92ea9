"""The web process's log lines as gunicorn with gunicorn.conf.py writes them: one
access line per request, Django's, unless GUNICORN_ACCESS_LOG asks for gunicorn's too."""

import json
import socket

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


def _raw(port: int, request: bytes) -> tuple[str, dict, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *fields = head.decode("latin-1").split("\r\n")
    headers = dict(field.split(": ", 1) for field in fields)
    return status, {k.lower(): v for k, v in headers.items()}, body


def test_what_gunicorn_refuses_itself_is_a_json_error_not_an_html_page(tmp_path):
    port = stack.free_port()
    process = stack.start_gunicorn(
        port=port, env={"DATABASE_URL": stack.database_url()}, log=tmp_path / "g.log"
    )
    long_line = b"GET /api/v1/form/search?client_order_id=" + b"a" * 10_000 + b" HTTP/1.1\r\n\r\n"
    long_header = (
        b"GET /api/v1/finance/balance HTTP/1.1\r\nHost: x\r\nX-API-Key: "
        + b"x" * 10_000
        + b"\r\n\r\n"
    )
    try:
        answers = [_raw(port, request) for request in (long_line, long_header, b"BAD\r\n\r\n")]
    finally:
        stack.stop(process)
    assert [status.split(" ")[1] for status, _, _ in answers] == ["414", "431", "400"]
    codes = ["uri_too_long", "headers_too_large", "malformed_request"]
    for (_status, headers, body), code in zip(answers, codes, strict=True):
        assert headers["content-type"] == "application/json"
        error = json.loads(body)
        assert (error["success"], error["code"]) == (False, code) and error["message"]
