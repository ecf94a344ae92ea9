"""`Client` / `AsyncClient` for merchants and `TraderClient` / `AsyncTraderClient`
for traders. Both flavours share every resource: a resource method describes the
call, and the client sends it (blocking, or returning an awaitable)."""

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

from . import _core
from ._core import Call, RetryPolicy
from .models import Ping
from .resources import (
    Deliveries,
    DeviceNotifications,
    Disputes,
    Events,
    Finance,
    Form,
    Orders,
    Sandbox,
    TraderAccount,
    TraderOrders,
    Webhooks,
    heartbeat_call,
)

DEFAULT_TIMEOUT = 30.0


def _http_kwargs(
    base_url: str, api_key: str, timeout: float, headers: dict | None, key_header: str
) -> dict:
    return {
        "base_url": base_url.rstrip("/"),
        "timeout": timeout,
        "headers": {
            key_header: api_key,
            "Accept": "application/json",
            "User-Agent": _core.USER_AGENT,
            **(headers or {}),
        },
    }


class _Base:
    _http_class: type
    _key_header = "X-API-Key"

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        max_retries: int | None = None,
        headers: dict[str, str] | None = None,
        transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None,
    ):
        self.retry = retry or RetryPolicy()
        if max_retries is not None:
            self.retry = dataclasses.replace(self.retry, max_retries=max_retries)
        self._http = self._http_class(
            transport=transport,
            **_http_kwargs(base_url, api_key, timeout, headers, self._key_header),
        )


class _SyncBase(_Base):
    _http_class = httpx.Client

    def _call(self, call: Call) -> Any:
        flow = _core.attempts(self._http, call, self.retry)
        step = next(flow)
        try:
            while True:
                if isinstance(step, float):
                    time.sleep(step)
                    step = flow.send(None)
                    continue
                try:
                    outcome = self._http.send(step)
                except httpx.TransportError as exc:
                    outcome = exc
                step = flow.send(outcome)
        except StopIteration as done:
            return done.value

    def _paginate(self, make_call, page: int = 1) -> Iterator[Any]:
        while True:
            result = self._call(make_call(page))
            yield from result.items
            if not result.has_next:
                return
            page += 1

    def close(self) -> None:
        self._http.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class _AsyncBase(_Base):
    _http_class = httpx.AsyncClient

    async def _call(self, call: Call) -> Any:
        flow = _core.attempts(self._http, call, self.retry)
        step = next(flow)
        try:
            while True:
                if isinstance(step, float):
                    await asyncio.sleep(step)
                    step = flow.send(None)
                    continue
                try:
                    outcome = await self._http.send(step)
                except httpx.TransportError as exc:
                    outcome = exc
                step = flow.send(outcome)
        except StopIteration as done:
            return done.value

    async def _paginate(self, make_call, page: int = 1) -> AsyncIterator[Any]:
        while True:
            result = await self._call(make_call(page))
            for item in result.items:
                yield item
            if not result.has_next:
                return
            page += 1

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.aclose()


class _MerchantResources:
    def _attach(self) -> None:
        self.orders = Orders(self)
        self.form = Form(self)
        self.disputes = Disputes(self)
        self.finance = Finance(self)
        self.events = Events(self)
        self.deliveries = Deliveries(self)
        self.webhooks = Webhooks(self)
        self.sandbox = Sandbox(self)

    def ping(self):
        """Checks the key: `Ping(success=True)`, or AuthenticationError."""
        return self._call(Call("GET", "/api/v1/ping", model=Ping))


class Client(_SyncBase, _MerchantResources):
    """A merchant's (terminal's) client: `Client(base_url, api_key)`."""

    def __init__(self, base_url: str, api_key: str, **kwargs: Any):
        super().__init__(base_url, api_key, **kwargs)
        self._attach()


class AsyncClient(_AsyncBase, _MerchantResources):
    """The same as `Client`, every method awaitable; `list_all` is an async iterator."""

    def __init__(self, base_url: str, api_key: str, **kwargs: Any):
        super().__init__(base_url, api_key, **kwargs)
        self._attach()


class TraderClient(_SyncBase, TraderAccount):
    """A trader's client: `TraderClient(base_url, api_key).orders.confirm(id)`,
    `.me()`, `.requisites()`, `.enable_requisite(id)`, `.stats(period="7d")`."""

    def __init__(self, base_url: str, api_key: str, **kwargs: Any):
        super().__init__(base_url, api_key, **kwargs)
        self.orders = TraderOrders(self)


class AsyncTraderClient(_AsyncBase, TraderAccount):
    def __init__(self, base_url: str, api_key: str, **kwargs: Any):
        super().__init__(base_url, api_key, **kwargs)
        self.orders = TraderOrders(self)


class DeviceClient(_SyncBase):
    """A trader's phone: `DeviceClient(base_url, token).notifications.send(...)` and
    `.heartbeat()`, authenticated by the device's `dev_` token (X-Device-Token)."""

    _key_header = "X-Device-Token"

    def __init__(self, base_url: str, token: str, **kwargs: Any):
        super().__init__(base_url, token, **kwargs)
        self.notifications = DeviceNotifications(self)

    def heartbeat(self):
        """The device is alive: its `DeviceState` (id, name, last_seen_at)."""
        return self._call(heartbeat_call())
