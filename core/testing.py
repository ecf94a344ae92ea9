"""Test helpers that need no app: an HTTP client that speaks to the API with a key,
the way merchants and traders do. Imported by conftest.py and by test modules."""

import json
import threading
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from django.test import Client


class ApiClient:
    """Django's test client with an X-API-Key and JSON bodies."""

    def __init__(self, key: str | None):
        self.key = key
        self.http = Client()

    def _headers(self, headers):
        out = dict(headers or {})
        if self.key is not None:
            out.setdefault("X-API-Key", self.key)
        return out

    def get(self, path, params=None, headers=None):
        return self.http.get(path, params or {}, headers=self._headers(headers))

    def post(self, path, body=None, headers=None, raw: bytes | str | None = None):
        data = raw if raw is not None else json.dumps(body if body is not None else {}, default=str)
        return self.http.post(
            path, data, content_type="application/json", headers=self._headers(headers)
        )

    def post_multipart(self, path, data, headers=None):
        return self.http.post(path, data, headers=self._headers(headers))

    def request(self, method, path, headers=None, **kwargs):
        return getattr(self.http, method.lower())(path, headers=self._headers(headers), **kwargs)


def money(value) -> Decimal:
    return Decimal(str(value))


class LocalServer:
    """A threaded HTTP server on 127.0.0.1 (a free port) serving `handler`, for tests
    that need something real on the other end of a connection."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def operator_user_create():
    """A staff user in the Operators group, `operator` / `operator-demo-password` (the
    demo set's operator, without the rest of the set)."""
    from io import StringIO

    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    call_command("operators_group", verbosity=0, stdout=StringIO())
    user = get_user_model().objects.filter(username="operator").first()
    if user is None:  # the demo set, when loaded too, has made it already
        user = get_user_model().objects.create_user(
            "operator", "operator@example.com", "operator-demo-password", is_staff=True
        )
    user.groups.add(Group.objects.get(name="Operators"))
    return user
