"""Webhook delivery: the worker's rate against plain POSTs to the same receiver, which
takes 50 ms to answer, as a merchant's server does."""

import asyncio
import json
import shlex
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import redis

from .config import BASE, PORT, PY, REDIS, ROOT, SHOP
from .load import AMOUNTS
from .processes import start

ANSWER_SECONDS = 0.05
# In flight on both sides: the plain client's posters, and one worker process's
# WEBHOOK_DELIVERY_CONCURRENCY (its default).
IN_FLIGHT = 16


class Receiver:
    """Times receipts and counts the requests it is answering at once."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.arrived()
                try:
                    time.sleep(ANSWER_SECONDS)
                    self.send_response(200)
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"ok")
                finally:
                    receiver.answered()

            def log_message(self, *a):
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 128  # many connections opened at once

        self.server = Server(("127.0.0.1", PORT + 1), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def arrived(self):
        now = time.perf_counter()
        with self.lock:
            self.first = self.first or now
            self.last = now
            self.count += 1
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)

    def answered(self):
        with self.lock:
            self.in_flight -= 1

    def rate(self) -> float:
        return self.count / max(self.last - self.first, 1e-9)

    def reset(self):
        with self.lock:
            self.count, self.first, self.last = 0, 0.0, 0.0
            self.in_flight = self.most_in_flight = 0


def procfile_worker(processes: int) -> list[str]:
    """The Procfile's worker command, with WORKER_CONCURRENCY set to `processes`."""
    line = next(
        line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("worker:")
    )
    args = shlex.split(line.removeprefix("worker:"))
    assert args[0] == "celery", line
    args = [str(processes) if arg.startswith("${WORKER_CONCURRENCY") else arg for arg in args]
    return [PY, "-m", "celery", *args[1:]]


def wait_for_empty_queue(seconds: float = 120) -> None:
    """Until the worker has taken every queued message. A message whose delivery an
    earlier run already sent still costs the worker a claim: the plain client's second
    run must not share the machine with that."""
    broker = redis.Redis.from_url(REDIS)
    deadline = time.perf_counter() + seconds
    while broker.llen("celery") and time.perf_counter() < deadline:
        time.sleep(0.2)
    time.sleep(1)  # the last one taken is still running


def webhook_rates(method_id: str, receiver: "Receiver", n: int = 800):
    """The events are written first (no worker yet, so they wait in the queue); then a
    worker starts as the Procfile runs it, with one process, whose run keeps its
    WEBHOOK_DELIVERY_CONCURRENCY (16) deliveries in flight: the plain client's
    concurrency. The plain client runs once before the worker and once after. All are
    timed at the receiver, from the first receipt to the last."""
    body_sample = None
    with httpx.Client(base_url=BASE, timeout=30) as client:
        for i in range(n // 2):
            order = client.post(
                "/api/v1/order/",
                headers=SHOP,
                json={
                    "client_order_id": f"w{i}",
                    "order_side": "Buy",
                    "payment_method_id": method_id,
                    "amount": AMOUNTS.take(),
                    "webhook_url": receiver.url,
                },
            ).json()
            client.post(f"/api/v1/order/{order['id']}/cancel", headers=SHOP)
            body_sample = body_sample or json.dumps({"data": {"order": order}})
    receiver.reset()

    async def plain():
        limits = httpx.Limits(max_connections=IN_FLIGHT, max_keepalive_connections=IN_FLIGHT)
        async with httpx.AsyncClient(timeout=30, limits=limits) as client:
            queue = list(range(n))

            async def poster():
                while queue:
                    queue.pop()
                    await client.post(
                        receiver.url,
                        content=body_sample,
                        headers={"Content-Type": "application/json"},
                    )

            await asyncio.gather(*(poster() for _ in range(IN_FLIGHT)))

    def plain_rate() -> tuple[float, int]:
        asyncio.run(plain())
        rate, most = receiver.rate(), receiver.most_in_flight
        receiver.reset()
        return rate, most

    # The plain client runs before the worker and after it, so a machine that slows
    # down or speeds up during the point weighs on both sides alike.
    before, plain_most = plain_rate()
    worker = start(procfile_worker(1), env={"WEBHOOK_DELIVERY_CONCURRENCY": str(IN_FLIGHT)})
    started = time.perf_counter()
    while receiver.count < n and time.perf_counter() - started < 180:
        time.sleep(0.05)
    time.sleep(ANSWER_SECONDS * 2)
    worker_rate, delivered, worker_most = receiver.rate(), receiver.count, receiver.most_in_flight
    receiver.reset()
    wait_for_empty_queue()
    after, _ = plain_rate()
    return {
        "worker": worker_rate,
        "plain": (before + after) / 2,
        "plain_runs": (before, after),
        "delivered": delivered,
        "in_flight": IN_FLIGHT,
        "processes": 1,
        "worker_most_in_flight": worker_most,
        "plain_most_in_flight": plain_most,
        "answer_ms": ANSWER_SECONDS * 1000,
    }, worker
