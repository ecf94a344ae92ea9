"""X-Request-ID on every response, JSON log lines that carry it (and the terminal,
route, status and duration), the id travelling into Celery tasks, and what is
masked before a line is written (docs/operations.md#logs)."""

import io
import json
import logging

import pytest
from django.test import Client

from core import logs
from core.testing import ApiClient
from core.tests.log_guard import _service_handler, leaks
from paymentsvc.celery import app as celery_app


@pytest.fixture
def log_lines():
    """The service's own log lines (its JSON formatter and filters), as dicts."""
    like = _service_handler()
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(like.formatter)
    for f in like.filters:
        handler.addFilter(f)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        root.removeHandler(handler)


def test_a_clients_request_id_comes_back_as_sent(db):
    response = Client().get("/healthz", HTTP_X_REQUEST_ID="abc-123")
    assert response["X-Request-ID"] == "abc-123"


def test_a_request_without_an_id_gets_a_fresh_one_each_time(db):
    first = Client().get("/healthz")["X-Request-ID"]
    second = Client().get("/healthz")["X-Request-ID"]
    assert first and second and first != second
    assert len(first) <= 128


@pytest.mark.parametrize("sent", ["x" * 129, "bad\x01id", "", "\u00e9t\u00e9"])
def test_an_id_that_is_not_1_to_128_printable_characters_is_replaced(db, sent):
    response = Client().get("/healthz", HTTP_X_REQUEST_ID=sent)
    assert response["X-Request-ID"] != sent
    assert len(response["X-Request-ID"]) == 32


def test_every_response_carries_an_id_errors_and_unknown_paths_included(db):
    client = Client()
    for path in ("/api/v1/order/", "/nowhere", "/api/nowhere", "/metrics"):
        assert client.get(path, HTTP_X_REQUEST_ID="r-1")["X-Request-ID"] == "r-1"
    assert client.post("/healthz", HTTP_X_REQUEST_ID="r-2")["X-Request-ID"] == "r-2"


def test_a_request_is_one_json_line_with_id_terminal_route_status_and_duration(world, log_lines):
    response = world.shop.post(
        "/api/v1/order/", world.buy_body(), headers={"X-Request-ID": "req-42"}
    )
    assert response.status_code == 201
    access = [line for line in log_lines() if line["logger"] == "paymentsvc.access"]
    assert len(access) == 1
    line = access[0]
    assert line["request_id"] == "req-42"
    assert line["terminal_id"] == str(world.terminal.pk)
    assert line["route"] == "/api/v1/order/"
    assert line["status"] == 201
    assert line["method"] == "POST"
    assert isinstance(line["duration_ms"], float)
    assert line["level"] == "INFO" and line["time"].endswith("+00:00")


def test_a_views_own_log_lines_carry_the_request_id_and_route(world, log_lines):
    world.trader.get("/api/v1/trader/orders", headers={"X-Request-ID": "trader-req"})
    logging.getLogger("orders").info("outside any request")
    lines = log_lines()
    inside = [line for line in lines if line["request_id"] == "trader-req"]
    assert inside and all(line["route"] == "/api/v1/trader/orders" for line in inside)
    assert inside[-1]["trader_id"] == str(world.requisite.trader_id)
    outside = [line for line in lines if line["message"] == "outside any request"]
    assert outside[0]["request_id"] is None


def test_tasks_queued_by_a_request_carry_its_id_in_the_message_headers():
    token = logs.context_start(request_id="req-to-worker")
    try:
        with celery_app.connection_for_write("memory://") as conn:
            celery_app.send_task("webhooks.tasks.deliver_webhook", args=[1], connection=conn)
            message = conn.SimpleQueue("celery").get(timeout=5)
    finally:
        logs.context_end(token)
    assert message.headers["request_id"] == "req-to-worker"


def test_a_worker_runs_a_task_under_the_request_id_it_carries(log_lines):
    seen = {}

    @celery_app.task(name="core.tests.probe_request_id")
    def probe():
        seen["id"] = logs.current("request_id")
        logging.getLogger("webhooks.delivery").info("inside the task")

    probe.apply(headers={"request_id": "from-the-request"})
    assert seen["id"] == "from-the-request"
    line = next(line for line in log_lines() if line["message"] == "inside the task")
    assert line["request_id"] == "from-the-request"
    assert line["task"] == "core.tests.probe_request_id"
    assert logs.current("request_id") is None  # the context ends with the task


def test_a_task_not_started_by_a_request_logs_under_its_task_id():
    seen = {}

    @celery_app.task(name="core.tests.probe_task_id")
    def probe():
        seen["id"] = logs.current("request_id")

    result = probe.apply()
    assert seen["id"] == f"task-{result.id}"


SECRET = "whsec_ZGVtby1zaG9wLXdlYmhvb2stc2VjcmV0LTMyYnl0ZXM="
KEY = "tk_Q2xJ0c8yWm3v_PpRk9s-Lb7NfHe4Tz1UaXgYdEo6iC5"


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (f"rotated to {SECRET}", "whsec_[redacted]"),
        (f"issued {KEY} for trader", "tk_[redacted]"),
        ("card 2200123456789012 declined", "[redacted]9012"),
        ("card 2200 1234 5678 9012 declined", "[redacted]9012"),
        ("payout to +79991234567", "[redacted]4567"),
        ("POST https://user:hunter2@hooks.example.com/x", "https://[redacted]@hooks.example.com/x"),
        ("headers {'X-API-Key': 'demo-shop-key'}", "'X-API-Key': '[redacted]'"),
        ("Authorization: Bearer abcdefgh12345", "Bearer [redacted]"),
    ],
)
def test_secrets_and_account_numbers_are_masked_before_a_line_is_written(log_lines, text, kept):
    logging.getLogger("paymentsvc").warning("%s", text)
    line = log_lines()[-1]["message"]
    assert kept in line
    assert not leaks([line], {"demo-shop-key", "hunter2", "abcdefgh12345"})


def test_amounts_ids_and_times_are_left_alone(log_lines):
    text = "order 53838076-67f5-4e3f-95c2-445669404b11 amount 1000.00 at 2026-11-23 14:25:29"
    logging.getLogger("paymentsvc").info(text)
    assert log_lines()[-1]["message"] == text


def test_a_traceback_is_masked_too(log_lines):
    try:
        raise ValueError("Failing row contains (2200123456789012, whsec_c2VjcmV0c2VjcmV0)")
    except ValueError:
        logging.getLogger("core.errors").exception("Unhandled error")
    line = log_lines()[-1]
    assert "2200123456789012" not in json.dumps(line)
    assert "c2VjcmV0c2VjcmV0" not in json.dumps(line)
    assert "[redacted]9012" in line["exc_info"]


def test_the_guard_finds_a_key_a_request_sent():
    """The suite-wide check (log_guard) would fail a test whose lines held these."""
    assert leaks(['{"message": "key demo-shop-key"}'], {"demo-shop-key"})
    assert leaks([f'{{"message": "{SECRET}"}}'], set())
    assert leaks(['{"message": "2200123456789012"}'], set())
    assert not leaks(['{"message": "whsec_[redacted] [redacted]9012"}'], {"demo-shop-key"})


def test_djangos_own_line_about_a_failed_request_carries_its_id(db, log_lines):
    ApiClient("wrong-key-123456").get("/api/v1/finance/balance", headers={"X-Request-ID": "r-401"})
    lines = [line for line in log_lines() if line["logger"] == "django.request"]
    assert lines and lines[-1]["request_id"] == "r-401"
    assert lines[-1]["route"] == "/api/v1/finance/balance"
