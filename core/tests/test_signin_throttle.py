"""Sign-in throttling under parallel tries and without Redis (traders.md §24; issue
items 5 and 6): counted before the password is checked, failing open when the shared
cache is gone."""

import logging
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth.signals import user_login_failed
from django.core.cache import cache
from django.db import connections
from django.test import Client, RequestFactory

from core.signin_throttle import signin_succeeded, signin_try

GOOD = "operator-demo-password"
DEAD_REDIS = {"default": {"BACKEND": "core.cache.RedisCache", "LOCATION": "redis://127.0.0.1:1/0"}}


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def sign_in(address: str, username: str = "operator", password: str = "wrong"):
    return Client(REMOTE_ADDR=address).post(
        "/admin/login/", {"username": username, "password": password}
    )


@pytest.fixture
def checked():
    """How many passwords were checked (and found wrong), from Django's own signal."""
    seen = []
    lock = threading.Lock()

    def count(sender, **kwargs):
        with lock:
            seen.append(kwargs.get("credentials", {}).get("username"))

    user_login_failed.connect(count, weak=False)
    yield seen
    user_login_failed.disconnect(count)


def all_at_once(calls):
    gate = threading.Barrier(len(calls))

    def run(call):
        try:
            gate.wait(20)
            return call()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(run, calls))


def test_forty_parallel_wrong_passwords_check_at_most_the_limit(demo_transactional, checked):
    """Measured before: 10 of 40 checked (limit 5)."""
    answers = all_at_once([lambda: sign_in("203.0.113.7").status_code] * 40)
    assert sorted(answers) == [200] * 5 + [429] * 35, answers
    assert len(checked) == 5, len(checked)
    assert sign_in("203.0.113.7", password=GOOD).status_code == 429


def test_sixty_parallel_user_names_check_at_most_the_address_limit(demo_transactional, checked):
    """Measured before: 23 of 60 checked (address limit 20)."""
    calls = [
        lambda n=n: sign_in("203.0.113.8", username=f"guess-{n}").status_code for n in range(60)
    ]
    answers = all_at_once(calls)
    assert len(checked) == 20, len(checked)
    assert answers.count(429) == 40


def test_admin_sign_in_works_with_redis_gone(demo, settings, caplog):
    settings.CACHES = DEAD_REDIS
    with caplog.at_level(logging.WARNING):
        assert sign_in("203.0.113.9").status_code == 200
        assert sign_in("203.0.113.9", password=GOOD).status_code == 302
    assert "Sign-in (admin) not throttled: the shared cache is unavailable" in caplog.text


def test_a_success_does_not_count_and_realms_are_apart(db, settings):
    settings.ADMIN_LOGIN_RATE_LIMIT = "2/10min"
    request = RequestFactory().post("/", REMOTE_ADDR="198.51.100.20")
    for _ in range(2):
        assert signin_try(request, "Trader", realm="trader").allowed
    assert not signin_try(request, "trader", realm="trader").allowed
    assert signin_try(request, "trader", realm="admin").allowed  # another realm's count
    counted = signin_try(request, "someone", realm="admin")
    assert counted.allowed and counted.retry_after == 600
    signin_succeeded(counted)
    assert signin_try(request, "someone", realm="admin").allowed
