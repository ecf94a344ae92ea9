"""Round trips saved on every request: the kept connection's health check only after it
has rested, and a version counter raised in one trip to Redis."""

import pytest
from django.core.cache import cache, caches
from django.core.signals import request_finished, request_started
from django.db import connection
from django.test import Client

from core import connection_checks
from core.cache import RedisCache


def _request_cycle():
    """What Django's handler sends around one request: finished, then the next started."""
    request_finished.send(sender=None)
    request_started.send(sender=None)


@pytest.mark.django_db
def test_a_connection_used_a_moment_ago_is_not_checked_again(settings):
    settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    connection.ensure_connection()
    connection.health_check_enabled = True
    _request_cycle()
    assert connection.health_check_done  # no SELECT 1 before this request's first statement


@pytest.mark.django_db
def test_a_rested_connection_is_checked_as_django_checks_it(monkeypatch):
    connection.ensure_connection()
    monkeypatch.setattr(connection_checks, "RESTED_SECONDS", 0.0)
    _request_cycle()
    assert not connection.health_check_done  # Django's own check runs at the first cursor


@pytest.mark.django_db
def test_a_connection_with_an_error_is_left_to_djangos_check():
    connection.ensure_connection()
    request_finished.send(sender=None)
    connection.errors_occurred = True
    try:
        connection_checks._started()
        assert not connection.health_check_done
    finally:
        connection.errors_occurred = False


@pytest.mark.django_db
def test_requests_one_after_another_still_answer(client: Client):
    for _ in range(3):
        assert client.get("/readyz").status_code == 200


@pytest.mark.skipif(
    not isinstance(caches["default"], RedisCache), reason="needs CACHE_URL=redis://…"
)
def test_a_version_starts_from_the_given_number_then_counts_up():
    key = "test:version-bump"
    cache.delete(key)
    assert cache.version_bump(key, start=1000) == 1001  # missing: started, then raised
    assert cache.version_bump(key, start=5) == 1002  # present: raised alone
    assert cache.get(key) == 1002
    cache.delete(key)
