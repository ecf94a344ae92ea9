"""The HTTP side of a webhook attempt: one event loop per process, in a thread of its
own, with pooled clients, so a worker keeps many attempts in flight while its task's
thread does the database work (claims, outcomes) on its one connection.

Connections are kept alive and reused per connected address. The URL an attempt
connects to is always the address that passed the guard at this attempt (see
`resolve_target`), so a reused connection never reaches an address that was not
checked. For https the TLS server name and certificate check belong to the
connection, so each merchant host name has its own client: a connection made and
verified for one name is never used for another name served from the same address.
"""

import asyncio
import functools
import os
import ssl
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext

import certifi
import httpx
from django.conf import settings

from .guard import names_an_address, resolve_target

EXCERPT_BYTES = 2048
# Clients (one per https host name, one for all plain http) kept per process; the least
# recently used beyond this is closed once its last attempt can have ended.
CLIENTS_KEPT = 64
# An idle connection is dropped after this long: merchants' servers commonly close
# theirs after 5-15 s, and one closed under a request fails that attempt.
KEEPALIVE_SECONDS = 4.0
# Name lookups run in threads (the system resolver blocks). A lookup that hangs holds
# its thread until the resolver gives up, whatever the attempt's deadline: there are
# enough for many at once, and idle ones are reused rather than started per attempt.
RESOLVER_THREADS = 64


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context per process, shared by every client (contexts are safe to
    share): building one loads the CA bundle, about 70 ms of CPU."""
    return ssl.create_default_context(cafile=certifi.where())


class _Sender:
    """The process's loop thread and its clients. Clients are only touched from
    coroutines on the loop, so they need no lock."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.resolver = ThreadPoolExecutor(RESOLVER_THREADS, thread_name_prefix="webhook-resolver")
        self.clients: OrderedDict[str | None, httpx.AsyncClient] = OrderedDict()
        threading.Thread(target=self.loop.run_forever, name="webhook-sender", daemon=True).start()

    def client(self, server_name: str | None, seconds: float) -> httpx.AsyncClient:
        client = self.clients.pop(server_name, None)
        if client is None:
            client = httpx.AsyncClient(
                follow_redirects=False,
                trust_env=False,
                verify=_tls(),
                limits=httpx.Limits(
                    max_connections=None,
                    max_keepalive_connections=max(1, settings.WEBHOOK_DELIVERY_CONCURRENCY),
                    keepalive_expiry=KEEPALIVE_SECONDS,
                ),
            )
        self.clients[server_name] = client
        while len(self.clients) > CLIENTS_KEPT:
            _, old = self.clients.popitem(last=False)
            self.loop.call_later(seconds + 1, lambda c=old: self.loop.create_task(c.aclose()))
        return client


_sender: _Sender | None = None
_sender_lock = threading.Lock()


def _forget_sender() -> None:
    # A forked child (a Celery pool process) has none of its parent's threads: it
    # starts its own loop on first use.
    global _sender, _sender_lock
    _sender, _sender_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_sender)


def _the_sender() -> _Sender:
    global _sender
    with _sender_lock:
        if _sender is None:
            _sender = _Sender()
        return _sender


async def _post(sender: _Sender, url: str, make_headers, body: bytes, seconds: float, gate):
    """Wait for a free place (`gate`), then resolve, check, connect, send and read an
    excerpt, all within one deadline: httpx's own timeouts are per read, and a server
    trickling bytes could hold an attempt far longer than WEBHOOK_TIMEOUT_SECONDS."""
    async with gate or nullcontext():
        # Called as the attempt begins: the signature's timestamp is the sending time.
        headers = make_headers()
        async with asyncio.timeout(seconds):
            if names_an_address(url):
                target = resolve_target(url)
            else:
                target = await sender.loop.run_in_executor(sender.resolver, resolve_target, url)
            client = sender.client(target.server_name, seconds)
            request = client.build_request(
                "POST",
                target.url,
                content=body,
                headers={**headers, "Host": target.host},
                timeout=httpx.Timeout(seconds),
                extensions={"sni_hostname": target.server_name} if target.server_name else {},
            )
            response = await client.send(request, auth=target.auth, stream=True)
            try:
                excerpt = b""
                async for chunk in response.aiter_bytes():
                    excerpt += chunk
                    if len(excerpt) >= EXCERPT_BYTES:
                        break
            finally:
                # An answer not read to its end closes its connection rather than
                # returning it to the pool.
                await response.aclose()
            return response.status_code, excerpt[:EXCERPT_BYTES]


def in_flight_limit(places: int) -> asyncio.Semaphore:
    """At most `places` of the posts given this gate are in flight at once; the others
    wait their turn, in order."""
    return asyncio.Semaphore(places)


def post(
    url: str,
    make_headers: Callable[[], dict],
    body: bytes,
    *,
    seconds: float,
    gate: asyncio.Semaphore | None = None,
) -> Future:
    """Queue one POST on the process's loop; `make_headers()` is called when it starts.
    The future holds (status code, excerpt) or the exception that ended the attempt."""
    sender = _the_sender()
    return asyncio.run_coroutine_threadsafe(
        _post(sender, url, make_headers, body, seconds, gate), sender.loop
    )
