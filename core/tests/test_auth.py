"""X-API-Key authentication: failed attempts throttled per client address, no write on
GET, and key spaces found through the look-ups the apps register."""

import itertools
import secrets

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from finance.models import ApiKey
from finance.tests.factories import TerminalFactory
from orders.tests.factories import TraderFactory

PING = "/api/v1/ping"
# Documentation addresses, new on every run: the counts outlive a run in the file cache.
_run = secrets.token_hex(2)
_addresses = (f"2001:db8:{_run}::{i:x}" for i in itertools.count(1))


@pytest.fixture
def address() -> str:
    """A fresh client address per test: the failure counts live in the shared cache."""
    return next(_addresses)


@pytest.fixture
def terminal(db):
    return TerminalFactory(key="good-key")


@pytest.fixture
def low_limit(settings):
    settings.AUTH_FAILURE_RATE_LIMIT = "3/hour"


def get(address, key=None, **extra):
    headers = {"X-API-Key": key} if key is not None else {}
    return Client(REMOTE_ADDR=address).get(PING, headers=headers, **extra)


def test_past_the_limit_an_address_gets_429_with_retry_after(terminal, low_limit, address):
    assert [get(address, "wrong").status_code for _ in range(3)] == [401, 401, 401]
    response = get(address, "wrong")
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 3600
    body = response.json()
    assert body["success"] is False
    assert body["code"] == "auth_rate_limited"
    assert "Retry in" in body["message"]


def test_missing_keys_count_as_failures(terminal, low_limit, address):
    assert [get(address).status_code for _ in range(3)] == [401, 401, 401]
    assert get(address).status_code == 429


def test_a_limited_address_is_refused_before_any_query_even_with_a_valid_key(
    terminal, low_limit, address
):
    for _ in range(3):
        get(address, "wrong")
    with CaptureQueriesContext(connection) as queries:
        response = get(address, "good-key")
    assert response.status_code == 429
    assert len(queries) == 0


def test_other_addresses_are_not_slowed(terminal, low_limit, address):
    for _ in range(4):
        get(address, "wrong")
    other = next(_addresses)
    assert get(other, "good-key").status_code == 200
    assert get(other, "wrong").status_code == 401


def test_successes_do_not_count(terminal, low_limit, address):
    for _ in range(5):
        assert get(address, "good-key").status_code == 200
    assert get(address, "wrong").status_code == 401


def test_forwarded_for_is_believed_only_from_a_trusted_proxy(
    terminal, low_limit, settings, address
):
    settings.FORWARDED_ALLOW_IPS = ["10.0.0.1"]
    client = next(_addresses)
    # Through the proxy: the client's own address is counted, not the proxy's.
    for _ in range(3):
        get("10.0.0.1", "wrong", HTTP_X_FORWARDED_FOR=f"{client}, 10.0.0.1")
    assert get("10.0.0.1", "wrong", HTTP_X_FORWARDED_FOR=client).status_code == 429
    assert get("10.0.0.1", "good-key", HTTP_X_FORWARDED_FOR=address).status_code == 200
    # From anyone else the header is ignored: a client cannot pick someone's address.
    assert get(address, "good-key", HTTP_X_FORWARDED_FOR=client).status_code == 200


def test_get_writes_nothing_not_even_last_used_at(terminal):
    with CaptureQueriesContext(connection) as queries:
        assert get(next(_addresses), "good-key").status_code == 200
    assert not [q for q in queries if not q["sql"].lstrip().upper().startswith("SELECT")]
    assert ApiKey.objects.get(terminal=terminal).last_used_at is None


def test_a_post_records_when_the_key_was_last_used(terminal, merchant):
    assert merchant.post("/api/v1/order/", {}).status_code == 400
    assert ApiKey.objects.get(terminal=terminal).last_used_at is not None


def test_a_terminal_key_is_no_trader_key_and_the_reverse(terminal, address):
    trader = TraderFactory(key="trader-key")
    http = Client(REMOTE_ADDR=address)
    response = http.get("/api/v1/trader/orders", headers={"X-API-Key": "good-key"})
    assert response.status_code == 401
    response = http.get("/api/v1/trader/orders", headers={"X-API-Key": "trader-key"})
    assert response.status_code == 200
    assert get(address, "trader-key").status_code == 401
    trader.is_active = False
    trader.save()
    response = http.get("/api/v1/trader/orders", headers={"X-API-Key": "trader-key"})
    assert response.status_code == 401
