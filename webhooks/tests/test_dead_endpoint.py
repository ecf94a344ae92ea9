"""One merchant's dead webhook endpoint holds back nobody else (traders.md §24): real
worker processes as Procfile.dev runs them (deliveries, periodic work, beat), a server
that accepts connections and never answers for terminal A's hundred deliveries, a
prompt receiver for terminal B. B's webhooks arrive within seconds and expiry keeps
its time."""

import socket
import subprocess
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from core.testing import ApiClient
from demo.testing import buy_body
from orders.models import Order
from orders.tests.world import World
from paymentsvc.celery import app as celery_app

from .test_worker_and_broker import BROKER, CELERY, ROOT, _database_url, _kill, _wait_for

pytestmark = pytest.mark.slow

DEAD_DELIVERIES = 100


def _spawn(args, log, env):
    import os

    return subprocess.Popen(
        [str(CELERY), "-A", "paymentsvc", *args, "--loglevel", "WARNING"],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _stack(log, tmp_path):
    """The worker processes of Procfile.dev, on the test database."""
    env = {
        "DJANGO_SETTINGS_MODULE": "paymentsvc.test_settings",
        "DATABASE_URL": _database_url(),
        "CELERY_BROKER_URL": BROKER,
        "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
        "WEBHOOK_TIMEOUT_SECONDS": "10",
    }
    common = ["--without-mingle", "--without-gossip", "--pool", "prefork"]
    return [
        _spawn(["worker", "-Q", "celery", "--concurrency", "2", *common], log, env),
        _spawn(
            ["worker", "-Q", "periodic", "--hostname", "periodic@%h", "--concurrency", "1"]
            + common,
            log,
            env,
        ),
        _spawn(["beat", "--schedule", str(tmp_path / "beat-schedule")], log, env),
    ]


@pytest.fixture
def silent_server():
    """Accepts connections (the kernel's backlog) and never reads or answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/hooks"
    sock.close()


def test_a_dead_endpoint_delays_no_other_terminal_and_no_expiry(
    transactional_db, receiver, silent_server, tmp_path
):
    # Terminal A, live, and terminal B, a sandbox one, both on Sberbank SBP: two live
    # traders hold a requisite on it for A's Buys, the sandbox trader two for B's.
    world = World.build({"Sberbank SBP": 2}, sandbox_holders={"Sberbank SBP": 2})
    terminal_b = world.terminal(sandbox=True)
    celery_app.control.purge()  # messages left by earlier runs
    log = open(tmp_path / "workers.log", "w")
    processes = _stack(log, tmp_path)
    try:
        shop_a = world.api
        for i in range(DEAD_DELIVERIES):
            body = buy_body(world, amount=f"{1000 + i}.00", client_order_id=f"dead-{i}")
            response = shop_a.post("/api/v1/order/", {**body, "webhook_url": silent_server})
            assert response.status_code == 201, response.content
        time.sleep(3)  # the workers have taken the dead endpoint's deliveries by now

        shop_b = ApiClient(terminal_b.raw_key)
        sandbox_method = world.method_id("Sberbank SBP")
        latencies, due = [], None
        for i in range(6):
            body = {
                "client_order_id": f"b-{i}",
                "order_side": "Buy",
                "payment_method_id": sandbox_method,
                "amount": f"{1500 + i}.00",
                "webhook_url": receiver.url,
            }
            started = time.monotonic()
            response = shop_b.post("/api/v1/order/", body)
            assert response.status_code == 201, response.content
            if due is None:
                # This order falls due in two seconds: the expiry sweep must see to it.
                due = timezone.now() + timedelta(seconds=2)
                Order.objects.filter(pk=response.json()["id"]).update(expires_at=due)
                expiring = response.json()["id"]
            arrived = _wait_for(lambda n=i + 1: len(receiver.requests) >= n, 30)
            latencies.append(time.monotonic() - started)
            assert arrived, (tmp_path / "workers.log").read_text()[-3000:]
            time.sleep(0.5)
        expired = _wait_for(lambda: Order.objects.get(pk=expiring).status == "Expired", 15)
        expired_at = timezone.now()
    finally:
        for process in processes:
            _kill(process)
        log.close()
    late = (expired_at - due).total_seconds()
    (tmp_path / "figures.txt").write_text(f"latencies {latencies} expiry late {late}")
    assert max(latencies) < 5, (latencies, late)
    assert expired, latencies
    assert late < 6, (latencies, late)
