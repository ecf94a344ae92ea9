"""One worker process keeps many deliveries in flight: a real receiver that answers
slowly counts how many requests it is answering at once."""

import threading

import pytest
from django.conf import settings
from django.db import connection
from standardwebhooks.webhooks import Webhook

from webhooks.claims import deliveries_claim
from webhooks.delivery import deliveries_send
from webhooks.models import WebhookAttempt, WebhookDelivery

from .conftest import SECRET, headers_of
from .world import World

POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


def _deliveries_to(world, receiver, count: int) -> None:
    """One order whose event goes to `count` URLs of the receiver: `count` deliveries,
    due now (nothing is queued: the test's transaction never commits)."""
    world.terminal.webhook_urls = [f"{receiver.url}/{i}" for i in range(count)]
    world.terminal.save()
    response = world.shop.post("/api/v1/order/", world.buy_body())
    assert response.status_code == 201, response.content
    assert WebhookDelivery.objects.filter(state="pending").count() == count


def test_one_run_keeps_the_configured_number_of_deliveries_in_flight(world, receiver, settings):
    settings.WEBHOOK_DELIVERY_CONCURRENCY = 6
    receiver.delay = 0.3  # each answer takes a while, so overlapping requests are seen
    _deliveries_to(world, receiver, 10)

    assert deliveries_send() == 10

    assert receiver.most_in_flight == 6  # never more than the setting, and that many
    assert sorted(r["path"] for r in receiver.requests) == sorted(f"/hooks/{i}" for i in range(10))
    for request in receiver.requests:
        Webhook(SECRET).verify(request["body"], headers_of(request))
    assert set(WebhookDelivery.objects.values_list("state", "attempts")) == {("delivered", 1)}
    attempts = list(WebhookAttempt.objects.all())
    assert len(attempts) == 10
    assert all(a.status_code == 200 and a.error == "" and a.duration_ms >= 0 for a in attempts)


def test_a_concurrency_of_one_sends_one_at_a_time(world, receiver, settings):
    settings.WEBHOOK_DELIVERY_CONCURRENCY = 1
    receiver.delay = 0.1
    _deliveries_to(world, receiver, 3)
    assert deliveries_send() == 3
    assert receiver.most_in_flight == 1
    assert len(receiver.requests) == 3


def test_failures_in_a_run_are_recorded_and_scheduled_each_on_its_own(world, receiver, settings):
    settings.WEBHOOK_DELIVERY_CONCURRENCY = 4
    receiver.status = 503
    _deliveries_to(world, receiver, 4)
    WebhookDelivery.objects.filter(url=f"{receiver.url}/3").update(url="ftp://example.com/x")
    assert deliveries_send() == 4
    assert deliveries_send() == 0  # nothing is due again before its retry time
    errors = sorted(WebhookAttempt.objects.values_list("error", flat=True))
    assert errors == ["HTTP 503"] * 3 + ["Refused: not an http(s) URL: ftp://example.com/x"]
    assert set(WebhookDelivery.objects.values_list("state", "attempts")) == {("pending", 1)}


def test_a_run_starts_with_its_own_delivery_then_takes_the_others_due(world, receiver, settings):
    settings.WEBHOOK_DELIVERY_CONCURRENCY = 1
    _deliveries_to(world, receiver, 2)
    first, second = WebhookDelivery.objects.order_by("pk")
    assert deliveries_send(first_id=second.pk) == 2
    assert [r["path"] for r in receiver.requests] == ["/hooks/1", "/hooks/0"]
    # Its own delivery already sent, a later run has nothing to do.
    assert deliveries_send(first_id=second.pk) == 0
    assert len(receiver.requests) == 2


def test_connections_are_kept_alive_and_reused(world, receiver, settings):
    settings.WEBHOOK_DELIVERY_CONCURRENCY = 2
    receiver.keep_alive = True
    receiver.delay = 0.05
    _deliveries_to(world, receiver, 8)
    assert deliveries_send() == 8
    # Eight requests over at most as many connections as there were in flight.
    assert len(receiver.requests) == 8
    assert 1 <= len({r["client_port"] for r in receiver.requests}) <= 2


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL=postgres://…")
def test_workers_claiming_at_once_take_different_deliveries(transactional_db, receiver):
    _deliveries_to(World.build(webhook_secret=SECRET), receiver, 10)
    barrier = threading.Barrier(3)
    claimed: list[list[int]] = [[], [], []]

    def claim(i):
        try:
            barrier.wait()
            claimed[i] = [d.pk for d, _ in deliveries_claim(limit=10)]
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    everyone = [pk for ids in claimed for pk in ids]
    assert len(everyone) == len(set(everyone)) == 10  # each claimed once, none left out


def test_one_server_gets_its_share_and_the_others_are_claimed_beside_it(world, receiver, settings):
    """A run holds at most twice the setting for one server, however many of its
    deliveries are older than another server's."""
    from webhooks.claims import host_of
    from webhooks.delivery import _Held

    settings.WEBHOOK_DELIVERY_CONCURRENCY = 2
    _deliveries_to(world, receiver, 10)
    other = "http://other.invalid:81/hooks"
    newest = WebhookDelivery.objects.order_by("-pk").first()
    WebhookDelivery.objects.filter(pk=newest.pk).update(url=other)
    held = _Held()
    held.claim(16, 4)
    hosts = sorted(host_of(a.delivery.url) for a in held.attempts.values())
    assert hosts.count(host_of(receiver.url)) == 4
    assert hosts.count("http://other.invalid:81") == 1
    # What was claimed beyond the share is given back, due for the next claim.
    assert WebhookDelivery.objects.filter(locked_until__isnull=True).count() == 5
    import concurrent.futures

    concurrent.futures.wait(list(held.attempts), timeout=15)


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://shop.example/hooks?a=1", "https://shop.example"),
        ("http://u:p@10.0.0.1:8080#x", "http://u:p@10.0.0.1:8080"),
        ("http://shop.example", "http://shop.example"),
    ],
)
def test_host_of(url, host):
    from webhooks.claims import host_of

    assert host_of(url) == host
