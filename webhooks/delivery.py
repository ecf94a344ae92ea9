"""Sending webhooks (decisions §7): Standard Webhooks signatures, a retry schedule,
an SSRF guard, and claims that keep two workers from sending one attempt at once.

No database transaction is held open across the HTTP call: a worker claims the
delivery with a conditional UPDATE (committed), sends, then records the outcome.
If it dies in between, the claim simply runs out and the sweep queues it again, so a
receiver may see a duplicate (same webhook-id), never a gap.
"""

import asyncio
import functools
import ipaddress
import logging
import socket
import ssl
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import unquote, urlsplit, urlunsplit

import certifi
import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from finance.services import terminal_webhook_secrets
from paymentsvc import metrics

from .models import DeliveryState, WebhookAttempt, WebhookDelivery

logger = logging.getLogger(__name__)

EXCERPT_BYTES = 2048
# A claim outlives the whole attempt (bounded by WEBHOOK_TIMEOUT_SECONDS) by this much,
# so it only runs out when the worker holding it is gone.
CLAIM_MARGIN_SECONDS = 30
USER_AGENT = "paymentsvc-webhooks/1.0"


class DeliveryRefused(Exception):
    """The target may not be called (SSRF guard); retried like any failure."""


@dataclass(frozen=True)
class Target:
    url: str  # what is connected to: the address that passed the check
    host: str  # the Host header: the merchant's name (and port)
    server_name: str | None  # TLS SNI and certificate name for https
    auth: tuple[str, str] | None


def claim_seconds() -> float:
    return settings.WEBHOOK_TIMEOUT_SECONDS + CLAIM_MARGIN_SECONDS


def _claim(delivery_id: int) -> tuple[WebhookDelivery, datetime] | None:
    now = timezone.now()
    until = now + timedelta(seconds=claim_seconds())
    claimed = (
        WebhookDelivery.objects.filter(
            pk=delivery_id, state=DeliveryState.PENDING, next_attempt_at__lte=now
        )
        .filter(Q(locked_until__isnull=True) | Q(locked_until__lt=now))
        .update(locked_until=until)
    )
    if claimed != 1:
        return None
    delivery = WebhookDelivery.objects.select_related("event", "event__terminal").get(
        pk=delivery_id
    )
    return delivery, until


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    # is_global also rules out shared (carrier-grade NAT, some clouds' metadata
    # services), documentation and benchmarking ranges, which is_private misses.
    return ip.is_global and not (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_reserved
        or ip.is_multicast
        or ip.is_unspecified
    )


def resolve_target(url: str) -> Target:
    """Resolve the host once, check every address, and connect to the first one.

    The connection goes to the checked address whatever the scheme, so DNS cannot
    answer differently between the check and the connection (rebinding); the Host
    header and, for https, the TLS server name and certificate check keep the
    merchant's host name."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host:
        raise DeliveryRefused(f"Refused: not an http(s) URL: {url[:100]}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise DeliveryRefused(f"Cannot resolve {host}: {exc}")
    # getaddrinfo's order is the system's preference (RFC 6724): keep it.
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    if not addresses:
        raise DeliveryRefused(f"Cannot resolve {host}: no address")
    if not settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS:
        blocked = [a for a in addresses if not _is_public(a)]
        if blocked:
            raise DeliveryRefused(
                f"Refused: {host} resolves to a non-public address ({blocked[0]})"
            )
    address = addresses[0]
    literal = f"[{address}]" if ":" in address else address
    netloc = f"{literal}:{parts.port}" if parts.port else literal
    host_header = parts.netloc.rsplit("@", 1)[-1]
    auth = None
    if parts.username is not None:
        auth = (unquote(parts.username), unquote(parts.password or ""))
    return Target(
        url=urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, "")),
        host=host_header,
        server_name=host if parts.scheme == "https" else None,
        auth=auth,
    )


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context per process, shared by every attempt (contexts are safe to
    share): building one loads the CA bundle, about 70 ms of CPU, which a new
    AsyncClient would otherwise spend on every delivery, https target or not."""
    return ssl.create_default_context(cafile=certifi.where())


async def _post(url: str, headers: dict, body: bytes) -> tuple[int, bytes]:
    """Resolve, check, connect, send and read an excerpt, all within one deadline:
    httpx's own timeouts are per read, and a server trickling bytes could hold a
    worker far longer than WEBHOOK_TIMEOUT_SECONDS."""
    seconds = settings.WEBHOOK_TIMEOUT_SECONDS
    # Not the loop's default executor: asyncio.run waits for that one on exit, and a
    # hanging resolver must not outlast the deadline.
    resolver = ThreadPoolExecutor(max_workers=1)
    try:
        async with asyncio.timeout(seconds):
            loop = asyncio.get_running_loop()
            target = await loop.run_in_executor(resolver, resolve_target, url)
            async with httpx.AsyncClient(
                timeout=httpx.Timeout(seconds),
                follow_redirects=False,
                trust_env=False,
                verify=_tls(),
            ) as client:
                request = client.build_request(
                    "POST",
                    target.url,
                    content=body,
                    headers={**headers, "Host": target.host},
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
                    await response.aclose()
                return response.status_code, excerpt[:EXCERPT_BYTES]
    finally:
        resolver.shutdown(wait=False)


def sign(terminal, msg_id: str, timestamp: datetime, body: str) -> str:
    """Standard Webhooks' header: one `v1,` signature per secret that signs now,
    space-separated; a receiver accepts the message if any of them verifies."""
    return " ".join(
        Webhook(secret).sign(msg_id, timestamp, body)
        for secret in terminal_webhook_secrets(terminal=terminal)
    )


def _send(delivery: WebhookDelivery) -> tuple[int | None, str, str]:
    """(status code or None, error, response excerpt)."""
    event = delivery.event
    try:
        timestamp = timezone.now()
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "webhook-id": event.id,
            "webhook-timestamp": str(int(timestamp.timestamp())),
            "webhook-signature": sign(event.terminal, event.id, timestamp, event.body),
        }
        status_code, excerpt = asyncio.run(_post(delivery.url, headers, event.body.encode()))
    except DeliveryRefused as exc:
        return None, str(exc), ""
    except (TimeoutError, httpx.TimeoutException):
        return None, f"Timed out after {settings.WEBHOOK_TIMEOUT_SECONDS:g} s", ""
    except httpx.HTTPError as exc:
        return None, f"{type(exc).__name__}: {exc}", ""
    except Exception as exc:
        # Whatever went wrong (a malformed secret included), the attempt is counted: an
        # uncounted failure would be retried every time the claim runs out, for ever.
        logger.exception("Webhook delivery %s: unexpected error", delivery.pk)
        return None, f"{type(exc).__name__}: {exc}", ""
    text = excerpt.decode("utf-8", "replace")
    error = "" if 200 <= status_code < 300 else f"HTTP {status_code}"
    return status_code, error, text


def delivery_attempt(*, delivery_id: int) -> str | None:
    """One attempt; returns the delivery's state afterwards, or None if not claimed."""
    claim = _claim(delivery_id)
    if claim is None:
        return None
    delivery, claimed_until = claim
    started = timezone.now()
    clock = time.monotonic()
    status_code, error, excerpt = _send(delivery)
    duration_ms = int((time.monotonic() - clock) * 1000)
    return _outcome_record(
        delivery=delivery,
        claimed_until=claimed_until,
        started=started,
        duration_ms=duration_ms,
        status_code=status_code,
        error=error[:500],
        excerpt=excerpt,
    )


def _outcome_record(
    *, delivery, claimed_until, started, duration_ms, status_code, error, excerpt
) -> str:
    attempts = delivery.attempts + 1
    schedule = settings.WEBHOOK_RETRY_SCHEDULE
    update = {
        "attempts": attempts,
        "locked_until": None,
        "last_status_code": status_code,
        "last_error": error,
        "updated_at": timezone.now(),
    }
    if not error:
        update["state"] = DeliveryState.DELIVERED
        update["delivered_at"] = timezone.now()
    elif attempts <= len(schedule):
        update["next_attempt_at"] = timezone.now() + timedelta(seconds=schedule[attempts - 1])
    else:
        update["state"] = DeliveryState.FAILED
    with transaction.atomic():
        WebhookAttempt.objects.create(
            delivery=delivery,
            number=attempts,
            started_at=started,
            duration_ms=duration_ms,
            status_code=status_code,
            error=error,
            response_excerpt=excerpt,
        )
        # Only while the claim is still ours: if this worker stalled past it and
        # another one took over, that one's outcome stands.
        kept = WebhookDelivery.objects.filter(pk=delivery.pk, locked_until=claimed_until).update(
            **update
        )
    state = update.get("state", DeliveryState.PENDING)
    metrics.webhook_delivery_attempted(state=state)
    logger.info(
        "Webhook delivery %s attempt %s: %s (event %s, HTTP %s, %d ms)%s",
        delivery.pk,
        attempts,
        state,
        delivery.event_id,
        status_code,
        duration_ms,
        f": {error}" if error else "",
    )
    if not kept:
        logger.warning("Webhook delivery %s: claim lost before the outcome was saved", delivery.pk)
    return state
