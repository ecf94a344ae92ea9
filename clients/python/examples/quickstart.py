"""Five minutes with paymentsvc-client against `make run` (demo data loaded).

    pip install ./clients/python
    python clients/python/examples/quickstart.py [http://localhost:8000]

Creates a Buy, reads it back, opens a dispute with a PNG, meets a 404 and a
429 as typed errors, lists orders across pages, and verifies a webhook the service
delivers to a small receiver this script runs on 127.0.0.1.
"""

import queue
import random
import sys
import threading
import uuid
import zlib
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from struct import pack

from paymentsvc_client import (
    Client,
    NotFoundError,
    OrderSide,
    RateLimitError,
    WebhookVerificationError,
    verify_webhook,
)

BASE_URL = sys.argv[1] if len(sys.argv) > 1 else "http://localhost:8000"
API_KEY = "demo-shop-key"
WEBHOOK_SECRET = "whsec_ZGVtby1zaG9wLXdlYmhvb2stc2VjcmV0LTMyYnl0ZXM="
RUN = uuid.uuid4().hex[:8]  # so the script can run again and again
# Any whole amount in the methods' ranges; a fresh one each run leaves room on the
# demo requisites (one Pending order per amount on each) for the next run.
AMOUNT = Decimal(1000 + random.randrange(20000))


def start_receiver() -> tuple[str, queue.Queue]:
    """A webhook receiver: answers 200 and hands each delivery to the queue."""
    received: queue.Queue = queue.Queue()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            received.put((body, dict(self.headers)))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/hooks", received


def tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return pack(">I", len(data)) + kind + data + pack(">I", zlib.crc32(kind + data))

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    webhook_url, received = start_receiver()
    with Client(BASE_URL, API_KEY) as client:
        methods = {m.method_name: m for m in client.finance.payment_methods(active=True)}
        sberbank = methods["Sberbank SBP"].method_id
        print("balance:", client.finance.balance().available)

        # 1. A Buy order; unique_amount lets the service shift whole roubles so that
        #    the amount is free on some requisite.
        order = client.orders.create(
            client_order_id=f"quickstart-{RUN}",
            order_side=OrderSide.BUY,
            payment_method_id=sberbank,
            amount=AMOUNT,
            unique_amount=True,
            webhook_url=webhook_url,
        )
        print("created:", order.id, order.status, order.amount, "pay to", order.holder_account)

        # 2. Read it back: the result is the order itself.
        print("read back:", client.orders.get(order.id).status)

        # 3. A dispute with a PNG as evidence.
        dispute = client.disputes.create(order.id, order.amount, files=[("proof.png", tiny_png())])
        print("dispute:", dispute.dispute_id, dispute.dispute_files)

        # 4. Errors are typed.
        try:
            client.orders.get("00000000-0000-0000-0000-000000000000")
        except NotFoundError as exc:
            print("404:", exc.code, exc.message)
        try:
            for i in range(4):  # the demo caps Pending orders per user_id at 3
                client.orders.create(
                    client_order_id=f"quickstart-{RUN}-{i}",
                    order_side="Buy",
                    payment_method_id=methods["Bank card"].method_id,
                    amount=AMOUNT + 100,
                    unique_amount=True,
                    user_id=f"payer-{RUN}",
                )
        except RateLimitError as exc:
            print("429:", exc.message)

        # 5. Every order of the last 24 hours, two per page, page after page.
        first_page = client.orders.list(size=2)
        every = list(client.orders.list_all(size=2))
        print(f"orders: {len(every)} of {first_page.total} over {first_page.pages} pages")

        # 6. The order.created webhook, as the Celery worker of `make run` delivers it.
        body, headers = received.get(timeout=30)
        try:
            event = verify_webhook(body, headers, WEBHOOK_SECRET)
        except WebhookVerificationError as exc:
            sys.exit(f"webhook refused: {exc}")
        print("webhook:", event.type, "order", event.data.order.id, event.data.order.amount)


if __name__ == "__main__":
    main()
