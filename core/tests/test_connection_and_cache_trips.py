"""Round trips saved on every request: the kept connection's health check only after it
has rested, and a version counter raised in one trip to Redis."""

import pytest
from django.core.cache import caches
from django.db import connection, connections
from django.test import Client

from core import connection_checks
from core.cache import RedisCache


def _next_request(*, errors: bool = False) -> bool:
    """One request ends and the next one's first statement is about to go: whether the
    connection is then taken without Django's SELECT 1."""
    connection.errors_occurred = errors
    try:
        connection_checks._ended()
        connection.health_check_done = False  # what Django leaves at a request's start
        return connection_checks.checked_unless_fresh(connection)
    finally:
        connection.errors_occurred = False


@pytest.mark.django_db
def test_the_check_before_a_requests_first_statement_is_ours():
    connection.ensure_connection()
    assert "close_if_health_check_failed" in connections["default"].__dict__


@pytest.mark.django_db
def test_a_connection_used_a_moment_ago_is_not_checked_again():
    connection.ensure_connection()
    assert _next_request()
    assert connection.health_check_done  # no SELECT 1 before this request's first statement


@pytest.mark.django_db
def test_a_rested_connection_is_checked_as_django_checks_it(monkeypatch):
    connection.ensure_connection()
    monkeypatch.setattr(connection_checks, "RESTED_SECONDS", 0.0)
    assert not _next_request()
    assert not connection.health_check_done  # Django's own check runs


@pytest.mark.django_db
def test_a_connection_with_an_error_is_left_to_djangos_check():
    connection.ensure_connection()
    assert not _next_request(errors=True)
    assert not connection.health_check_done


@pytest.mark.django_db
def test_requests_one_after_another_still_answer(client: Client):
    for _ in range(3):
        assert client.get("/readyz").status_code == 200


@pytest.mark.skipif(
    not isinstance(caches["default"], RedisCache), reason="needs CACHE_URL=redis://…"
)
def test_clearing_the_cache_removes_its_own_keys_and_nothing_else():
    """Two processes with their own prefixes (two test workers) and a broker on one
    Redis database: a clear by one of them leaves the others' keys."""
    options = caches["default"]._cache._pool_options
    location = caches["default"]._servers[0]
    mine = RedisCache(location, {"KEY_PREFIX": "clear-test[mine]", "OPTIONS": options})
    theirs = RedisCache(location, {"KEY_PREFIX": "clear-test-theirs", "OPTIONS": options})
    raw = mine._cache.get_client(write=True)
    try:
        mine.set_many({f"k{i}": i for i in range(1500)})
        theirs.set("k1", "kept")
        raw.set("clear-test-broker-queue", "kept")
        mine.clear()
        assert mine.get_many([f"k{i}" for i in range(1500)]) == {}
        assert theirs.get("k1") == "kept"
        assert raw.get("clear-test-broker-queue") == b"kept"
    finally:
        theirs.clear()
        raw.delete("clear-test-broker-queue")


@pytest.mark.skipif(
    not isinstance(caches["default"], RedisCache), reason="needs CACHE_URL=redis://…"
)
def test_a_number_kept_reads_back_as_set_would_keep_it():
    """`number_keep` stores what `set(key, number, timeout=None)` stores: under the same
    prefixed key, the int as itself, with no expiry."""
    cache = caches["default"]
    raw = cache._cache.get_client(write=True)
    try:
        cache.number_keep("kept-number", 2**61 + 7)
        cache.set("set-number", 2**61 + 7, timeout=None)
        assert cache.get("kept-number") == 2**61 + 7
        assert raw.get(cache.make_key("kept-number")) == raw.get(cache.make_key("set-number"))
        assert raw.ttl(cache.make_key("kept-number")) == -1
    finally:
        cache.delete_many(["kept-number", "set-number"])
