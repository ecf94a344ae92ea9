"""X-API-Key authentication: failed attempts throttled per client address, no write on
GET, and key spaces found through the look-ups the apps register."""

import itertools

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from finance.models import ApiKey

PING = "/api/v1/ping"
_addresses = (f"198.51.100.{i}" for i in itertools.count(1))


@pytest.fixture
def address() -> str:
    """A fresh client address per test: the failure counts live in the shared cache."""
    return next(_addresses)


@pytest.fixture
def low_limit(settings):
    settings.AUTH_FAILURE_RATE_LIMIT = "3/hour"


def get(address, key=None, **extra):
    headers = {"X-API-Key": key} if key is not None else {}
    return Client(REMOTE_ADDR=address).get(PING, headers=headers, **extra)


def test_past_the_limit_an_address_gets_429_with_retry_after(demo, low_limit, address):
    assert [get(address, "wrong").status_code for _ in range(3)] == [401, 401, 401]
    response = get(address, "wrong")
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 3600
    body = response.json()
    assert body["success"] is False
    assert body["code"] in {"auth_rate_limited", "rate_limited"}
    assert "Retry in" in body["message"]


def test_missing_keys_count_as_failures(demo, low_limit, address):
    assert [get(address).status_code for _ in range(3)] == [401, 401, 401]
    assert get(address).status_code == 429


def test_a_limited_address_is_refused_before_any_query_even_with_a_valid_key(
    demo, low_limit, address
):
    for _ in range(3):
        get(address, "wrong")
    with CaptureQueriesContext(connection) as queries:
        response = get(address, "demo-shop-key")
    assert response.status_code == 429
    assert len(queries) == 0


def test_other_addresses_are_not_slowed(demo, low_limit, address):
    for _ in range(4):
        get(address, "wrong")
    other = next(_addresses)
    assert get(other, "demo-shop-key").status_code == 200
    assert get(other, "wrong").status_code == 401


def test_successes_do_not_count(demo, low_limit, address):
    for _ in range(5):
        assert get(address, "demo-shop-key").status_code == 200
    assert get(address, "wrong").status_code == 401


def test_forwarded_for_is_believed_only_from_a_trusted_proxy(demo, low_limit, settings, address):
    settings.FORWARDED_ALLOW_IPS = ["10.0.0.1"]
    client = next(_addresses)
    # Through the proxy: the client's own address is counted, not the proxy's.
    for _ in range(3):
        get("10.0.0.1", "wrong", HTTP_X_FORWARDED_FOR=f"{client}, 10.0.0.1")
    assert get("10.0.0.1", "wrong", HTTP_X_FORWARDED_FOR=client).status_code == 429
    assert get("10.0.0.1", "demo-shop-key", HTTP_X_FORWARDED_FOR=address).status_code == 200
    # From anyone else the header is ignored: a client cannot pick someone's address.
    assert get(address, "demo-shop-key", HTTP_X_FORWARDED_FOR=client).status_code == 200


def test_get_writes_nothing_not_even_last_used_at(demo):
    with CaptureQueriesContext(connection) as queries:
        assert get(next(_addresses), "demo-shop-key").status_code == 200
    assert not [q for q in queries if not q["sql"].lstrip().upper().startswith("SELECT")]
    assert ApiKey.objects.get(name="demo", terminal=demo.shop).last_used_at is None


def test_a_post_records_when_the_key_was_last_used(demo, shop):
    assert shop.post("/api/v1/order/", {}).status_code == 400
    assert ApiKey.objects.get(name="demo", terminal=demo.shop).last_used_at is not None


def test_a_terminal_key_is_no_trader_key(demo, address):
    http = Client(REMOTE_ADDR=address)
    response = http.get("/api/v1/trader/orders", headers={"X-API-Key": "demo-shop-key"})
    assert response.status_code == 401
    response = http.get("/api/v1/trader/orders", headers={"X-API-Key": "demo-trader-1-key"})
    assert response.status_code == 200
