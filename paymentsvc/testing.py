"""Test helpers that need no app: an HTTP client that speaks to the API with a key,
the way merchants and traders do. Imported by conftest.py and by test modules."""

import json
from decimal import Decimal

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
