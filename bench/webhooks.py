"""Webhook delivery: the worker's rate against plain POSTs to the same receiver."""

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from .config import BASE, PORT, PY, SHOP
from .load import AMOUNTS
from .processes import start

# The worker's processes (--concurrency); the plain client posts as many at a time.
PROCESSES = 2


class Receiver:
    def __init__(self):
        self.count = 0
        self.first = self.last = 0.0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                now = time.perf_counter()
                receiver.first = receiver.first or now
                receiver.last = now
                receiver.count += 1
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *a):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", PORT + 1), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def reset(self):
        self.count, self.first, self.last = 0, 0.0, 0.0


def webhook_rates(method_id: str, receiver: "Receiver", n: int = 400):
    """The events are written first (no worker yet, so they wait in the queue); then a
    worker starts and is timed from the first receipt to the last."""
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
    worker = start(
        [
            PY,
            "-m",
            "celery",
            "-A",
            "paymentsvc",
            "worker",
            "--concurrency",
            str(PROCESSES),
            "--loglevel",
            "WARNING",
            "--without-mingle",
            "--without-gossip",
        ]
    )
    started = time.perf_counter()
    while receiver.count < n and time.perf_counter() - started < 180:
        time.sleep(0.05)
    worker_rate = receiver.count / max(receiver.last - receiver.first, 1e-9)
    delivered = receiver.count
    receiver.reset()

    async def plain():
        async with httpx.AsyncClient(timeout=30) as client:
            queue = list(range(n))

            async def poster():
                while queue:
                    queue.pop()
                    await client.post(
                        receiver.url,
                        content=body_sample,
                        headers={"Content-Type": "application/json"},
                    )

            await asyncio.gather(*(poster() for _ in range(PROCESSES)))

    began = time.perf_counter()
    asyncio.run(plain())
    plain_rate = n / (time.perf_counter() - began)
    receiver.reset()
    rates = {
        "worker": worker_rate,
        "plain": plain_rate,
        "delivered": delivered,
        "processes": PROCESSES,
    }
    return rates, worker
