"""X-Device-Token: a missing, unknown or removed token is 401 `Invalid device token`
and counts like a failed key against the address; requests are limited per device;
the heartbeat keeps a device online."""

import itertools
import json
import secrets
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.db.models import QuerySet
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core import memo
from traders.devices import device_remove
from traders.models import BankNotification, Device

from .setup import HEARTBEAT, NOTIFICATIONS, ground, sber_sms, send

pytestmark = pytest.mark.django_db
_run = secrets.token_hex(2)
_addresses = (f"2001:db8:{_run}::d{i:x}" for i in itertools.count(1))


@pytest.fixture
def g():
    return ground()


@pytest.fixture
def address() -> str:
    return next(_addresses)


def post(path, token, address="127.0.0.9", body=None):
    headers = {} if token is None else {"X-Device-Token": token}
    return Client(REMOTE_ADDR=address).post(
        path, json.dumps(body or {}), content_type="application/json", headers=headers
    )


@pytest.mark.parametrize("token", [None, "", "dev_not-a-device-token-000000000000000000"])
def test_a_missing_or_unknown_token_is_401(g, token):
    for path in (NOTIFICATIONS, HEARTBEAT):
        response = post(path, token)
        assert response.status_code == 401
        assert response.json() == {
            "success": False,
            "message": "Invalid device token",
            "code": "invalid_device_token",
        }


def test_an_api_key_is_no_device_token(g):
    response = Client().post(
        NOTIFICATIONS,
        "{}",
        content_type="application/json",
        headers={"X-API-Key": g.trader.raw_key},
    )
    assert response.status_code == 401


def test_a_removed_device_is_refused_at_once(g):
    assert send(g.token, text=sber_sms("5")).status_code == 200
    device_remove(device=g.device)
    response = send(g.token, id="n-2", text=sber_sms("5"))
    assert response.status_code == 401
    assert response.json()["message"] == "Invalid device token"
    assert BankNotification.objects.count() == 1


def test_a_deactivated_traders_device_is_refused(g):
    assert post(HEARTBEAT, g.token).status_code == 200  # the device is kept now
    g.trader.is_active = False
    g.trader.save()
    assert post(HEARTBEAT, g.token).status_code == 401


def _device_reads(token, **body) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert send(token, **body).status_code == 200
    return sum("FROM traders_device d" in q["sql"] for q in captured.captured_queries)


def test_a_device_is_read_once_and_then_kept(g):
    assert _device_reads(g.token, id="n-1", text=sber_sms("5")) == 1
    assert _device_reads(g.token, id="n-2", text=sber_sms("5")) == 0
    # Its last note of being heard from is kept with it: no write per request.
    with CaptureQueriesContext(connection) as captured:
        assert send(g.token, id="n-3", text=sber_sms("5")).status_code == 200
    assert not [q for q in captured.captured_queries if 'UPDATE "traders_device"' in q["sql"]]


def test_another_process_removing_the_device_is_seen_once_the_generation_moves(g):
    """What one process keeps, another process's change makes stale through the
    generation in the shared cache: written here behind the ORM's back (no signal,
    nothing cleared in this process), the removal is seen once the generation moves."""
    assert send(g.token, id="n-1", text=sber_sms("5")).status_code == 200
    # a plain QuerySet's update: no signal, nothing forgotten here
    QuerySet(Device).filter(pk=g.device.pk).update(revoked_at=timezone.now())
    assert send(g.token, id="n-2", text=sber_sms("5")).status_code == 200  # kept
    cache.set(memo.GENERATION_KEY, secrets.token_hex(8), timeout=None)
    response = send(g.token, id="n-3", text=sber_sms("5"))
    assert response.status_code == 401
    assert BankNotification.objects.filter(device=g.device).count() == 2


def test_bad_tokens_count_against_the_address_like_bad_keys(g, settings, address):
    settings.AUTH_FAILURE_RATE_LIMIT = "3/hour"
    assert [post(HEARTBEAT, "dev_wrong", address).status_code for _ in range(3)] == [401] * 3
    limited = post(HEARTBEAT, g.token, address)
    assert limited.status_code == 429
    assert limited.json()["code"] == "auth_rate_limited"
    # A wrong API key from there is refused the same way: one count per address.
    api = Client(REMOTE_ADDR=address).get("/api/v1/ping", headers={"X-API-Key": "wrong"})
    assert api.status_code == 429
    assert post(HEARTBEAT, g.token, next(_addresses)).status_code == 200


def test_requests_are_limited_per_device(g, settings, address):
    settings.API_RATE_LIMIT = "3/hour"
    codes = [post(HEARTBEAT, g.token, address).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert post(HEARTBEAT, g.token, address).json()["code"] == "rate_limited"


def test_the_heartbeat_marks_the_device_seen_and_online(g, settings):
    assert g.device.is_online is False
    response = post(HEARTBEAT, g.token)
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    assert body["device"]["id"] == str(g.device.pk)
    g.device.refresh_from_db()
    assert g.device.is_online
    settings.DEVICE_OFFLINE_AFTER_SECONDS = 60
    g.device.last_seen_at = timezone.now() - timedelta(seconds=61)
    assert not g.device.is_online


def test_a_notification_also_marks_the_device_seen(g):
    send(g.token, text=sber_sms("5"))
    g.device.refresh_from_db()
    assert g.device.last_seen_at is not None
