"""Fixtures for the client's tests: a live server with the demo data, clients
pointed at it, and a small proxy that loses or refuses requests on cue."""

import sys
import zlib
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from struct import pack

import httpx
import pytest
from django.urls import Resolver404, resolve

# The package beside these tests, even when another checkout's copy is installed in the
# environment (an editable install elsewhere, or none at all yet).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from paymentsvc_client import Client, RetryPolicy  # noqa: E402

from conftest import load_demo  # noqa: E402
from core.testing import LocalServer  # noqa: E402

SECRET = "whsec_ZGVtby1zaG9wLXdlYmhvb2stc2VjcmV0LTMyYnl0ZXM="
SHOP_KEY = "demo-shop-key"
TRADER_KEYS = ["demo-trader-1-key", "demo-trader-2-key", "demo-trader-3-key"]
FAST_RETRIES = RetryPolicy(max_retries=3, backoff=0.05, max_backoff=0.2)


def has_route(path: str) -> bool:
    """Whether the service routes this path to a view of its own (rather than to the
    JSON 404 of unknown /api/ routes)."""
    from core.fallback import api_fallback

    try:
        match = resolve(path)
    except Resolver404:
        return False
    return match.func is not api_fallback


def png_bytes() -> bytes:
    """A real 1x1 PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return pack(">I", len(data)) + kind + data + pack(">I", zlib.crc32(kind + data))

    header = pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


@pytest.fixture
def live(live_server, settings, tmp_path):
    settings.API_RATE_LIMIT = "1000000/min"
    # Dispute evidence and receipts the tests upload stay in the test's own directory.
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "private-media"), "base_url": None},
        },
    }
    load_demo()
    return live_server.url


@pytest.fixture
def client(live):
    with Client(live, SHOP_KEY, retry=RetryPolicy(**vars(FAST_RETRIES))) as c:
        yield c


@pytest.fixture
def method_ids(client) -> dict[str, str]:
    return {m.method_name: m.method_id for m in client.finance.payment_methods()}


class Proxy:
    """Forwards requests to the live server, except that each request first takes
    the next cue from `script`: "503" answers 503 itself, "drop" forwards the
    request and then hangs up without an answer (the request did reach the
    service), "refuse" hangs up before forwarding. Every request is recorded."""

    def __init__(self, upstream: str):
        self.upstream = upstream.rstrip("/")
        self.script: list[str] = []
        self.requests: list[dict] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self):
                length = int(self.headers.get("Content-Length", 0))
                content = self.rfile.read(length) if length else b""
                record = {"method": self.command, "path": self.path, "headers": self.headers}
                proxy.requests.append(record)
                cue = proxy.script.pop(0) if proxy.script else None
                if cue == "503":
                    self.send_response(503)
                    self.send_header("Content-Type", "application/json")
                    payload = b'{"success": false, "message": "Busy", "code": "unavailable"}'
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if cue == "refuse":
                    self.close_connection = True
                    return
                headers = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() not in ("host", "content-length", "connection")
                }
                answer = httpx.request(
                    self.command,
                    proxy.upstream + self.path,
                    headers=headers,
                    content=content,
                    timeout=60,
                )
                record["answer_headers"] = answer.headers
                if cue == "drop":
                    self.close_connection = True
                    return
                self.send_response(answer.status_code)
                for name, value in answer.headers.items():
                    if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            do_GET = do_POST = do_PUT = _handle

            def log_message(self, *args):
                pass

        self.local = LocalServer(Handler)

    @property
    def url(self) -> str:
        return self.local.base_url

    def close(self):
        self.local.close()


@pytest.fixture
def proxy(live):
    p = Proxy(live)
    yield p
    p.close()


@pytest.fixture
def receiver():
    from webhooks.tests.receiver import Receiver

    r = Receiver()
    yield r
    r.close()
