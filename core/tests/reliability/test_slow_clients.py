"""Slow clients behind the production proxy (deploy/nginx/paymentsvc.conf).

gunicorn's gthread workers read a request inside one of their few threads, so clients
that send their headers one line at a time hold every thread and starve everyone else
(32 such clients kept /healthz waiting 40 s). The control test shows that against a
small gunicorn; the proxy test shows 64 of them through nginx leave /healthz and order
creation answering at once, and that nginx's own refusals keep the contract's JSON
error shape."""

import selectors
import socket
import threading
import time

import httpx
import pytest

from conftest import load_demo

from . import stack

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not stack.nginx_available(),
        reason="nginx is not installed (Debian's nginx package; `make test` installs it)",
    ),
]

SLOW_CLIENTS = 64
LINE_EVERY = 2.0  # seconds between two header lines of one slow client


class SlowClients:
    """Connections that send a request's headers one line every LINE_EVERY seconds
    and never finish them."""

    def __init__(self, port: int, count: int):
        self.sockets = []
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n")
            self.sockets.append(sock)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._trickle, daemon=True)
        self.thread.start()

    def _trickle(self):
        n = 0
        while not self.stopped.wait(LINE_EVERY):
            n += 1
            for sock in self.sockets:
                try:
                    sock.sendall(f"X-Slow-{n}: {'a' * 20}\r\n".encode())
                except OSError:
                    pass

    def answered(self, timeout: float = 0.5) -> int:
        """How many of the connections the server has answered or closed."""
        selector = selectors.DefaultSelector()
        for sock in self.sockets:
            selector.register(sock, selectors.EVENT_READ)
        ready = len(selector.select(timeout=timeout))
        selector.close()
        return ready

    def close(self):
        self.stopped.set()
        self.thread.join()
        for sock in self.sockets:
            sock.close()


@pytest.fixture
def gunicorn(tmp_path):
    load_demo()
    port = stack.free_port()
    process = stack.start_gunicorn(
        port=port,
        env={"DATABASE_URL": stack.database_url()},
        log=tmp_path / "gunicorn.log",
        workers=1,
        threads=2,
    )
    yield port
    stack.stop(process)


@pytest.fixture
def proxy(gunicorn, tmp_path):
    port = stack.free_port(range(gunicorn + 1, stack.PORTS.stop))
    process = stack.start_nginx(port=port, upstream=f"127.0.0.1:{gunicorn}", workdir=tmp_path)
    yield port
    stack.stop(process)


def _answers(url: str, **kwargs) -> tuple[int | None, float]:
    started = time.monotonic()
    try:
        method = "POST" if "json" in kwargs else "GET"
        status = httpx.request(method, url, timeout=3, **kwargs).status_code
    except httpx.TimeoutException:
        status = None
    return status, time.monotonic() - started


ORDER = {"client_order_id": "slow", "order_side": "Buy", "method_type": "SBP", "amount": "777"}
SHOP = {"X-API-Key": "demo-shop-key"}


def test_without_the_proxy_slow_clients_starve_gunicorn(gunicorn):
    """The control: the same attack straight at gunicorn (2 threads) holds it."""
    attack = SlowClients(gunicorn, 8)
    try:
        time.sleep(0.5)
        status, _ = _answers(f"http://127.0.0.1:{gunicorn}/healthz")
        assert status is None  # no thread left to answer within 3 s
    finally:
        attack.close()
    status, _ = _answers(f"http://127.0.0.1:{gunicorn}/healthz")
    assert status == 200


def test_behind_the_proxy_slow_clients_starve_nothing(proxy):
    base = f"http://127.0.0.1:{proxy}"
    attack = SlowClients(proxy, SLOW_CLIENTS)
    started = time.monotonic()
    try:
        deadline = time.monotonic() + 3 * LINE_EVERY
        rounds = 0
        while time.monotonic() < deadline:
            status, took = _answers(base + "/healthz")
            assert status == 200 and took < 1.5, (status, took)
            # A fresh amount each round: the rounds are as many as time allows, more
            # than the demo's requisites have slots for any one amount.
            amount = str(1000 + rounds)
            body = {**ORDER, "client_order_id": f"slow-{rounds}", "amount": amount}
            status, took = _answers(base + "/api/v1/order/", json=body, headers=SHOP)
            assert status == 201 and took < 2.5, (status, took)
            rounds += 1
        assert rounds >= 3
        assert attack.answered() == 0  # held by nginx all along, not refused
        # client_header_timeout: nobody may take longer than 10 s over its headers,
        # however steadily it trickles them.
        time.sleep(max(0.0, started + 10.5 - time.monotonic()))
        assert attack.answered(timeout=3) == SLOW_CLIENTS
    finally:
        attack.close()


def test_the_proxy_refuses_oversized_requests_with_json(proxy):
    base = f"http://127.0.0.1:{proxy}"
    cases = [
        (httpx.post(base + "/api/v1/order/", content=b"{" + b" " * (2 << 20), headers=SHOP), 413),
        (httpx.get(base + "/api/v1/order/?q=" + "a" * 20000, headers=SHOP), 414),
        (httpx.get(base + "/api/v1/order/", headers={**SHOP, "X-Big": "a" * 20000}), 431),
    ]
    for response, status in cases:
        assert response.status_code == status, response.text
        assert response.headers["content-type"].startswith("application/json")
        body = response.json()
        assert body["success"] is False and body["code"] and body["message"]
    # Evidence may be larger than other bodies: 6 MB reaches the service (which
    # answers in the contract's terms), it is not cut off by the proxy.
    big = httpx.post(
        base + "/api/v1/disputes/create",
        data={"order_id": "00000000-0000-0000-0000-000000000000", "amount": "1"},
        files=[("files", ("a.png", b"\x89PNG" + b"\0" * (6 << 20), "image/png"))],
        headers=SHOP,
        timeout=30,
    )
    assert big.status_code == 404, big.text  # the service's answer: no such order
    assert big.json()["code"] == "order_not_found"
