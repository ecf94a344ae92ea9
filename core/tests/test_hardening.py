import logging
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.cache import cache
from django.db import connection

from core.testing import ApiClient
from finance.tests.factories import PaymentMethodFactory, TerminalFactory

ROOT = Path(__file__).resolve().parents[2]


def test_deploy_checks_are_clean_with_production_settings():
    env = {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_SETTINGS_MODULE": "paymentsvc.settings",
    }
    for name in (
        "SECURE_SSL_REDIRECT",
        "SESSION_COOKIE_SECURE",
        "CSRF_COOKIE_SECURE",
        "DJANGO_ALLOW_ASYNC_UNSAFE",
    ):
        env.pop(name, None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_service_refuses_to_start_without_secret_key_when_debug_is_off():
    env = {**os.environ, "DEBUG": "false", "DJANGO_SETTINGS_MODULE": "paymentsvc.settings"}
    env.pop("SECRET_KEY", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


@pytest.fixture
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def operator(django_user_model):
    return django_user_model.objects.create_superuser(
        "operator", "operator@example.com", "operator-test-password"
    )


def test_admin_sign_in_locks_after_five_failures(client, operator, fresh_cache):
    for _ in range(5):
        response = client.post("/admin/login/", {"username": "operator", "password": "wrong"})
        assert response.status_code == 200
    response = client.post(
        "/admin/login/", {"username": "operator", "password": "operator-test-password"}
    )
    assert response.status_code == 429
    assert "Retry-After" in response


def test_admin_lockout_follows_admin_login_rate_limit(client, operator, fresh_cache, settings):
    settings.ADMIN_LOGIN_RATE_LIMIT = "2/10min"
    for _ in range(2):
        client.post("/admin/login/", {"username": "operator", "password": "wrong"})
    response = client.post(
        "/admin/login/", {"username": "operator", "password": "operator-test-password"}
    )
    assert response.status_code == 429
    assert response["Retry-After"] == "600"


def test_successful_sign_in_resets_the_failure_count(client, operator, fresh_cache):
    for _ in range(4):
        client.post("/admin/login/", {"username": "operator", "password": "wrong"})
    response = client.post(
        "/admin/login/", {"username": "operator", "password": "operator-test-password"}
    )
    assert response.status_code == 302


def test_weak_operator_passwords_are_refused(db):
    from django.contrib.auth.password_validation import validate_password
    from django.core.exceptions import ValidationError

    for weak in ["operator", "12345678901234", "password123"]:
        with pytest.raises(ValidationError):
            validate_password(weak)


def test_api_keys_never_reach_the_logs(db, caplog):
    unmatched = PaymentMethodFactory()  # no requisites: the order fails with a 500
    terminal = TerminalFactory(key="shop-secret-key", methods=[unmatched])
    caplog.set_level(logging.DEBUG)
    ApiClient("shop-secret-key").get("/api/v1/finance/nothing")
    ApiClient("secret-looking-wrong-key").get("/api/v1/finance/balance")
    body = {
        "client_order_id": "x",
        "order_side": "Buy",
        "payment_method_id": str(unmatched.pk),
        "amount": "1000",
    }
    assert ApiClient(terminal.raw_key).post("/api/v1/order/", body).status_code == 500
    text = caplog.text
    assert "shop-secret-key" not in text
    assert "secret-looking-wrong-key" not in text


def test_security_headers_on_api_and_pages(merchant, client):
    api = merchant.get("/api/v1/finance/balance")
    assert api["X-Content-Type-Options"] == "nosniff"
    assert api["X-Frame-Options"] == "DENY"
    assert "default-src 'none'" in api["Content-Security-Policy"]
    page = client.get("/healthz")
    assert page["Referrer-Policy"] == "same-origin"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("lost", ["before the write", "after the write, in its transaction"])
def test_database_lost_mid_request_is_a_clear_503_and_writes_nothing(transactional_db, lost):
    from django.db import OperationalError

    from orders.models import Order
    from webhooks.tests.world import World

    world = World.build()
    state = {"lost": False, "write": None}

    def lose_at_the_orders_write(execute, sql, params, many, context):
        # The database is gone at the order's write (before it is sent, or once it ran
        # and before its answer comes back), and for everything after.
        if state["lost"]:
            raise OperationalError("server closed the connection unexpectedly")
        if f'INSERT INTO "{Order._meta.db_table}"' in sql:
            state["write"] = connection.in_atomic_block
            state["lost"] = True
            if lost == "before the write":
                raise OperationalError("could not send data to server")
            execute(sql, params, many, context)
            raise OperationalError("server closed the connection unexpectedly")
        return execute(sql, params, many, context)

    # With an Idempotency-Key the write is in a transaction with the key's answer (a
    # Buy's write alone, which commits as it ends: test_database_lost_after_a_write_alone).
    headers = {"Idempotency-Key": "lost-1"} if lost.endswith("transaction") else {}
    with connection.execute_wrapper(lose_at_the_orders_write):
        response = world.shop.post("/api/v1/order/", world.buy_body(), headers=headers)
    # The setup did what it says: the database was lost at the order's write.
    assert state["lost"]
    if lost.endswith("transaction"):
        assert state["write"] is True
    assert response.status_code == 503, response.content
    assert response.json()["code"] == "service_unavailable"
    assert Order.objects.count() == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_database_lost_after_a_write_alone_is_a_503_and_the_order_whole(transactional_db):
    """A Buy's write that is its own transaction commits as it ends: a database lost
    before its answer comes back is a loss during COMMIT, whose outcome the service
    cannot know. The answer is 503; the order is there whole (its event, its
    requisite's figures, its trader's freeze) or not at all, never half."""
    from django.db import OperationalError

    from finance.services import ledger_check
    from orders.models import Order, RequisiteLoad
    from webhooks.models import WebhookEvent
    from webhooks.tests.world import World

    world = World.build()
    state = {"lost": False, "write": None}

    def lose_after_the_orders_write(execute, sql, params, many, context):
        if state["lost"]:
            raise OperationalError("server closed the connection unexpectedly")
        result = execute(sql, params, many, context)
        if f'INSERT INTO "{Order._meta.db_table}"' in sql:
            state["write"] = connection.in_atomic_block
            state["lost"] = True
            raise OperationalError("server closed the connection unexpectedly")
        return result

    with connection.execute_wrapper(lose_after_the_orders_write):
        response = world.shop.post("/api/v1/order/", world.buy_body())
    assert state == {"lost": True, "write": False}
    assert response.status_code == 503, response.content
    assert response.json()["code"] == "service_unavailable"
    order = Order.objects.get()
    assert order.status == "Pending"
    assert WebhookEvent.objects.filter(order_id=order.pk, type="order.created").count() == 1
    assert RequisiteLoad.objects.get(requisite=order.requisite).pending == 1
    assert ledger_check() == []
