"""Nothing is lost when the broker is down or a worker dies mid-burst: real commits,
real Celery worker and beat processes, a real receiver."""

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.utils import timezone
from kombu import pools
from standardwebhooks.webhooks import Webhook

from demo.testing import buy_body
from orders.tests import world as orders_world
from paymentsvc.celery import app as celery_app
from webhooks import tasks as webhook_tasks
from webhooks.delivery import deliveries_send
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEvent
from webhooks.tasks import deliveries_requeue_due

from .receiver import Receiver
from .world import World

ROOT = Path(__file__).resolve().parents[2]
CELERY = Path(sys.executable).with_name("celery")
SECRET = "whsec_ZGVtby1zaG9wLXdlYmhvb2stc2VjcmV0LTMyYnl0ZXM="
BROKER = settings.CELERY_BROKER_URL


POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


def _redis_problem() -> str:
    if not BROKER.startswith(("redis://", "rediss://")):
        return "needs CELERY_BROKER_URL=redis://…"
    try:
        redis.Redis.from_url(BROKER, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        return f"Redis at {BROKER} is unreachable: {exc}"
    return ""


REDIS_PROBLEM = _redis_problem() if POSTGRES else ""


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def _point_broker_at(read_url: str, write_url: str | None) -> None:
    celery_app.conf.broker_url = read_url
    celery_app.conf.broker_write_url = write_url
    pools.reset()
    celery_app._pool = None
    celery_app.amqp._producer_pool = None
    webhook_tasks._broker_paused_until = 0.0


@pytest.fixture
def dead_broker():
    """The broker is a closed port until the test calls the returned function."""
    saved = (celery_app.conf.broker_url, celery_app.conf.broker_write_url)
    _point_broker_at("redis://127.0.0.1:1/0", "redis://127.0.0.1:1/0")
    restored = False

    def restore():
        nonlocal restored
        if not restored:
            _point_broker_at(*saved)
            restored = True

    yield restore
    restore()


@pytest.fixture
def run_tasks_here():
    """Calling it makes queued tasks run in this process, as a worker would run them."""

    def on():
        celery_app.conf.task_always_eager = True

    yield on
    celery_app.conf.task_always_eager = False


def _database_url() -> str:
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    password = f":{quote(s['PASSWORD'], safe='')}" if s.get("PASSWORD") else ""
    user = quote(s.get("USER") or "", safe="")
    return f"postgres://{user}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def _start_worker(log, schedule: Path):
    """A worker with an embedded beat, as `celery -A paymentsvc worker -B` runs it,
    on the test database (committed rows) and the configured broker."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "paymentsvc.test_settings",
        "DATABASE_URL": _database_url(),
        "CELERY_BROKER_URL": BROKER,
        "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
    }
    return subprocess.Popen(
        [
            str(CELERY),
            "-A",
            "paymentsvc",
            "worker",
            "--beat",
            "--schedule",
            str(schedule),
            "--concurrency",
            "2",
            "--pool",
            "prefork",
            "--without-mingle",
            "--without-gossip",
            "--loglevel",
            "WARNING",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _kill(worker):
    try:
        os.killpg(worker.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    worker.wait(timeout=10)


def _wait_for(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return predicate()


def _verified(receiver) -> dict[str, dict]:
    """Every request the receiver got, verified, by webhook-id."""
    out = {}
    for request in list(receiver.requests):
        headers = {k.lower(): v for k, v in request["headers"].items()}
        out[headers["webhook-id"]] = Webhook(SECRET).verify(request["body"], headers)
    return out


def test_orders_are_created_while_the_broker_is_down_and_the_sweep_delivers_them_after(
    transactional_db, receiver, dead_broker, run_tasks_here
):
    world = World.build(webhook_secret=SECRET)  # one method, one trader's requisite on it
    timings = []
    for i in range(6):
        started = time.monotonic()
        # Real commits: the on-commit publish runs and finds the broker down.
        response = world.shop.post(
            "/api/v1/order/",
            world.buy_body(webhook_url=receiver.url, amount=1000 + i, client_order_id=f"o-{i}"),
        )
        timings.append(time.monotonic() - started)
        assert response.status_code == 201, response.content
    assert timings[0] < 5  # the first one tries the broker once
    assert sum(timings[1:]) < 2  # the others do not wait on it at all
    assert WebhookDelivery.objects.filter(state="pending", attempts=0).count() == 6
    assert receiver.requests == []

    dead_broker()  # the broker is back; the next beat tick runs the sweep
    run_tasks_here()
    assert deliveries_requeue_due() == 6
    assert len(_verified(receiver)) == 6
    assert set(WebhookDelivery.objects.values_list("state", flat=True)) == {"delivered"}


@pytest.mark.slow
def test_beat_and_a_worker_deliver_what_was_never_queued(
    transactional_db, receiver, dead_broker, tmp_path
):
    """The embedded default (filesystem broker) without DATABASE_URL / CELERY_BROKER_URL,
    else the configured Redis: beat's sweep queues, the worker sends."""
    world = World.build(webhook_secret=SECRET)  # one method, one trader's requisite on it
    order = world.buy(webhook_url=receiver.url)
    assert order["status"] == "Pending"
    dead_broker()
    celery_app.control.purge()  # what earlier tests queued: this one starts from none
    expected = set(WebhookEvent.objects.values_list("id", flat=True))
    assert len(expected) == 1 and receiver.requests == []

    log = open(tmp_path / "worker.log", "w")
    worker = _start_worker(log, tmp_path / "beat-schedule")
    try:
        arrived = _wait_for(lambda: expected <= set(_verified(receiver)), 60)
    finally:
        _kill(worker)
        log.close()
    assert arrived, (tmp_path / "worker.log").read_text()[-3000:]
    assert WebhookDelivery.objects.get().state == "delivered"


@pytest.mark.slow
def test_a_delivery_whose_worker_died_mid_attempt_is_sent_again_once_its_claim_runs_out(
    transactional_db, receiver, run_tasks_here, tmp_path
):
    world = World.build(webhook_secret=SECRET)  # one method, one trader's requisite on it
    receiver.delay = 8  # the worker is still waiting for this answer when it is killed
    celery_app.control.purge()  # what earlier tests queued: this one starts from none
    log = open(tmp_path / "worker.log", "w")
    worker = _start_worker(log, tmp_path / "beat-schedule")
    try:
        # Committed: its delivery is queued on commit and the worker takes it.
        response = world.shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
        assert response.status_code == 201, response.content
        arrived = _wait_for(lambda: len(receiver.requests) == 1, 60)
    finally:
        _kill(worker)
        log.close()
    assert arrived, (tmp_path / "worker.log").read_text()[-3000:]

    delivery = WebhookDelivery.objects.get()
    # The dead worker's claim still holds: nothing recorded, and nobody sends it again
    # while a live worker might still be waiting for the answer.
    assert (delivery.state, delivery.attempts) == ("pending", 0)
    assert delivery.locked_until > timezone.now()
    assert deliveries_requeue_due() == 0
    assert deliveries_send() == 0

    # The claim runs out timeout + 30 s after it was taken: move it there rather than wait.
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        locked_until=timezone.now() - timedelta(seconds=1)
    )
    receiver.delay = 0
    run_tasks_here()
    assert deliveries_requeue_due() == 1  # the sweep queues it; the task runs here
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts) == ("delivered", 1)
    assert WebhookAttempt.objects.get().status_code == 200
    received = [
        Webhook(SECRET).verify(r["body"], {k.lower(): v for k, v in r["headers"].items()})
        for r in receiver.requests
    ]
    assert len(received) == 2  # a duplicate (same event id), never a gap
    assert received[0]["id"] == received[1]["id"] == delivery.event_id


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES, reason="needs DATABASE_URL=postgres://…")
@pytest.mark.skipif(bool(REDIS_PROBLEM), reason=REDIS_PROBLEM)
def test_every_event_arrives_signed_when_a_worker_is_killed_mid_burst(
    transactional_db, receiver, tmp_path
):
    # A shop sending its webhooks to the receiver; two traders' requisites on each of
    # Sberbank SBP and T-Bank SBP take the burst's Buys in turn.
    world = orders_world.World.build(
        {"Sberbank SBP": 2, "T-Bank SBP": 2}, webhook_secret=SECRET, webhook_urls=[receiver.url]
    )
    receiver.delay = 0.1  # slow enough that the kill finds deliveries in flight
    celery_app.control.purge()  # messages left by earlier runs
    shop = world.api
    log = open(tmp_path / "worker.log", "w")
    worker = _start_worker(log, tmp_path / "beat-schedule")
    try:
        orders = [
            shop.post(
                "/api/v1/order/",
                buy_body(
                    world,
                    amount=1000 + i,
                    client_order_id=f"burst-{i}",
                    method="T-Bank SBP" if i % 2 else "Sberbank SBP",
                ),
            ).json()
            for i in range(30)
        ]
        killed = {}
        for i, order in enumerate(orders):
            response = orders_world.trader_for(order).post(
                f"/api/v1/trader/orders/{order['id']}/confirm"
            )
            assert response.status_code == 200, response.content
            if i == 12:
                in_flight = WebhookDelivery.objects.filter(
                    state="pending", locked_until__gt=timezone.now()
                )
                _wait_for(in_flight.exists, 10)
                _kill(worker)
                now = timezone.now()
                claimed = list(
                    WebhookDelivery.objects.filter(
                        state="pending", locked_until__gt=now
                    ).values_list("pk", flat=True)
                )
                killed = {
                    "in_flight": len(claimed),
                    "pending": WebhookDelivery.objects.filter(state="pending").count(),
                }
                # The dead worker's claims run out (after timeout + 30 s in real
                # time): move them there rather than wait.
                WebhookDelivery.objects.filter(pk__in=claimed).update(
                    locked_until=now - timedelta(seconds=1)
                )
                worker = _start_worker(log, tmp_path / "beat-schedule")
        expected = set(WebhookEvent.objects.values_list("id", flat=True))
        assert len(expected) == 60
        # Beat in the new worker sweeps every 5 s: no help from the test from here on.
        pending = WebhookDelivery.objects.filter(state="pending")
        _wait_for(lambda: expected <= set(_verified(receiver)) and not pending.exists(), 120)
    finally:
        _kill(worker)
        log.close()
    assert killed["pending"] > 0, killed  # the kill did leave work undone
    received = _verified(receiver)
    missing = expected - set(received)
    assert not missing, (len(missing), killed, (tmp_path / "worker.log").read_text()[-3000:])
    assert all(received[e]["id"] == e for e in expected)
    assert set(WebhookDelivery.objects.values_list("state", flat=True)) == {"delivered"}
