"""Sending webhooks (docs/webhooks.md#delivery-and-retries): Standard Webhooks signatures and a retry schedule.

No database transaction is held open across the HTTP call: a worker claims
deliveries (claims.py, committed), sends, then records the outcomes. If it dies in
between, the claim runs out and the sweep queues the delivery again.

Everything here runs on the caller's thread and its one database connection; only
the HTTP exchange runs elsewhere, on the process's sender loop (transport.py). So one
worker process keeps WEBHOOK_DELIVERY_CONCURRENCY attempts in flight without a
database connection per attempt, and a slow database round trip does not leave a
place idle: the next claimed attempts already wait on the loop for a free place.
"""

import logging
import time
from collections import Counter
from concurrent import futures
from datetime import datetime, timedelta

import httpx
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from core import metrics
from finance.services import terminal_webhook_secrets

from . import transport
from .claims import deliveries_claim, deliveries_release, delivery_claim, host_of
from .guard import DeliveryRefused
from .models import DeliveryState, WebhookAttempt, WebhookDelivery

logger = logging.getLogger(__name__)

# A sending run claims new deliveries for this long, then finishes those it holds and
# ends: other tasks of the same worker process (the sweeps) wait at most this plus two
# attempts' time, and every claim it took outlives the run's time limit.
SENDING_WINDOW_SECONDS = 5.0
# How long past the longest an attempt can take it is waited for before it is given up.
WAIT_GRACE_SECONDS = 5
# How long a run lets ended attempts gather before recording them (see deliveries_send).
GATHER_SECONDS = 0.02
USER_AGENT = "paymentsvc-webhooks/1.0"


def sign(terminal, msg_id: str, timestamp: datetime, body: str) -> str:
    """Standard Webhooks' header: one `v1,` signature per secret that signs now,
    space-separated; a receiver accepts the message if any of them verifies."""
    return " ".join(
        Webhook(secret).sign(msg_id, timestamp, body)
        for secret in terminal_webhook_secrets(terminal=terminal)
    )


class Attempt:
    """One attempt of a claimed delivery, from its hand-over to the sender loop to
    its outcome. `started`, `clock` and `ended` are set on the loop as the exchange
    begins and ends."""

    def __init__(self, delivery: WebhookDelivery, claimed_until: datetime, gate=None):
        self.delivery = delivery
        self.claimed_until = claimed_until
        self.started = timezone.now()
        self.clock = time.monotonic()
        self.ended: float | None = None
        self.future = transport.post(
            delivery.url,
            self.headers,
            delivery.event.body.encode(),
            seconds=settings.WEBHOOK_TIMEOUT_SECONDS,
            gate=gate,
        )
        self.future.add_done_callback(self._mark_ended)

    def headers(self) -> dict:
        # Signed as the exchange begins: webhook-timestamp is the sending time.
        self.started = timezone.now()
        self.clock = time.monotonic()
        event = self.delivery.event
        return {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "webhook-id": event.id,
            "webhook-timestamp": str(int(self.started.timestamp())),
            "webhook-signature": sign(event.terminal, event.id, self.started, event.body),
        }

    def _mark_ended(self, _future) -> None:
        self.ended = time.monotonic()

    def result(self) -> tuple[int | None, str, str]:
        """(status code or None, error, response excerpt)."""
        try:
            if self.future.cancelled():
                raise TimeoutError
            status_code, excerpt = self.future.result(timeout=0)
        except DeliveryRefused as exc:
            return None, str(exc), ""
        except (TimeoutError, httpx.TimeoutException):
            return None, f"Timed out after {settings.WEBHOOK_TIMEOUT_SECONDS:g} s", ""
        except httpx.HTTPError as exc:
            return None, f"{type(exc).__name__}: {exc}", ""
        except Exception as exc:
            # Whatever went wrong (a malformed secret included), the attempt is counted:
            # an uncounted failure would be retried every time the claim runs out.
            logger.exception("Webhook delivery %s: unexpected error", self.delivery.pk)
            return None, f"{type(exc).__name__}: {exc}", ""
        text = excerpt.decode("utf-8", "replace")
        error = "" if 200 <= status_code < 300 else f"HTTP {status_code}"
        return status_code, error, text


def _wait_seconds() -> float:
    return settings.WEBHOOK_TIMEOUT_SECONDS + WAIT_GRACE_SECONDS


def delivery_attempt(*, delivery_id: int) -> str | None:
    """One attempt; returns the delivery's state afterwards, or None if not claimed."""
    claim = delivery_claim(delivery_id)
    if claim is None:
        return None
    attempt = Attempt(*claim)
    futures.wait([attempt.future], timeout=_wait_seconds())
    attempt.future.cancel()  # does nothing once it has ended
    return _outcomes_record([attempt])[0]


# While a run claims, it looks for newly due deliveries at least this often, even when
# every attempt it holds is waiting on a server that does not answer.
POLL_SECONDS = 0.25


class _Held:
    """The attempts a run holds, counted per server (claims.host_of), each server with
    its own gate: WEBHOOK_DELIVERY_CONCURRENCY attempts in flight to one server at once,
    as many again claimed ahead of them, and four times that in all. So a server that
    never answers holds only its own share, and every other server's deliveries are
    claimed and sent beside it."""

    def __init__(self):
        self.host_places = max(1, settings.WEBHOOK_DELIVERY_CONCURRENCY)
        self.attempts: dict[futures.Future, Attempt] = {}
        self.hosts: Counter = Counter()
        self.gates: dict[str, object] = {}

    def take(self, claims, host_cap: int) -> None:
        unused: dict[datetime, list[int]] = {}
        for delivery, claimed_until in claims:
            host = host_of(delivery.url)
            if self.hosts[host] >= host_cap:
                unused.setdefault(claimed_until, []).append(delivery.pk)
                continue
            self.hosts[host] += 1
            gate = self.gates.get(host)
            if gate is None:
                gate = self.gates[host] = transport.in_flight_limit(self.host_places)
            attempt = Attempt(delivery, claimed_until, gate)
            attempt.host = host
            self.attempts[attempt.future] = attempt
        for claimed_until, ids in unused.items():
            deliveries_release(ids, claimed_until)

    def claim(self, limit: int, host_cap: int, *, skip_held: bool = False) -> None:
        """Claim up to `limit` more, at most `host_cap` held per server; none to a
        server that has that many held (with `skip_held`, any at all)."""
        full = [host for host, n in self.hosts.items() if n >= (1 if skip_held else host_cap)]
        self.take(deliveries_claim(limit=limit, skip_hosts=full), host_cap)

    def pop(self, future) -> Attempt:
        attempt = self.attempts.pop(future)
        self.hosts[attempt.host] -= 1
        return attempt


def deliveries_send(*, first_id: int | None = None, window: float = SENDING_WINDOW_SECONDS) -> int:
    """Send `first_id` if it is due and unclaimed, and every other due delivery, for
    `window` seconds (see _Held for how many at once); then finish those held and
    return how many were attempted.

    Attempts are claimed ahead and wait on the loop for a free place, so a place is
    taken again the moment an exchange ends, not after this thread's next round trips
    to the database (recording outcomes, claiming more). Claims are made a quarter of
    the places at a time or more, not one query per ended attempt.

    After the window, for two attempts' time more, a run still claims for the servers
    it holds nothing for (each attempt starts at once and ends within one attempt's
    time): a run that waits on a server that does not answer keeps sending to every
    other server meanwhile, and is not taking more of the slow one's. So the run ends
    within the window and three attempts' time (tasks._SENDING_LIMIT)."""
    held = _Held()
    places = held.host_places
    quarter = max(1, places // 4)
    claiming_until = time.monotonic() + window
    filling_until = claiming_until + 2 * settings.WEBHOOK_TIMEOUT_SECONDS
    made = 0

    first = delivery_claim(first_id) if first_id is not None else None
    if first is not None:
        held.take([first], 2 * places)
    while True:
        now = time.monotonic()
        room = 4 * places - len(held.attempts)
        if now < claiming_until and room >= quarter:
            held.claim(room, 2 * places)
        elif claiming_until <= now < filling_until and room > 0:
            held.claim(room, places, skip_held=True)
        if not held.attempts:
            return made
        claiming = time.monotonic() < filling_until
        done, _ = futures.wait(
            held.attempts,
            timeout=POLL_SECONDS if claiming else 2 * _wait_seconds(),
            return_when=futures.FIRST_COMPLETED,
        )
        if not done:
            if claiming:
                continue
            # Past every attempt's own deadline: the loop is stuck.
            for future in held.attempts:
                future.cancel()
            done = set(held.attempts)
        elif len(done) < quarter and len(held.attempts) - len(done) > places:
            # Some still wait for a place, so places stay busy meanwhile: let a few
            # more attempts end, for fewer and larger round trips to the database.
            time.sleep(GATHER_SECONDS)
            done = {future for future in held.attempts if future.done()}
        _outcomes_record([held.pop(future) for future in done])
        made += len(done)


def _outcomes_record(attempts: list[Attempt]) -> list[str]:
    """Record finished (or given up) attempts in one transaction: their log rows, and
    each delivery's new state, only while the claim is still ours. Returns the states."""
    now = timezone.now()
    schedule = settings.WEBHOOK_RETRY_SCHEDULE
    rows, states = [], []
    # Deliveries whose update is the same (most often: delivered, first attempt, under
    # one claim) are updated by one statement.
    updates: dict[tuple, list[int]] = {}
    for attempt in attempts:
        status_code, error, excerpt = attempt.result()
        error = error[:500]
        number = attempt.delivery.attempts + 1
        ended = attempt.ended if attempt.ended is not None else time.monotonic()
        rows.append(
            WebhookAttempt(
                delivery=attempt.delivery,
                number=number,
                started_at=attempt.started,
                duration_ms=max(0, int((ended - attempt.clock) * 1000)),
                status_code=status_code,
                error=error,
                response_excerpt=excerpt,
            )
        )
        update = {
            "attempts": number,
            "locked_until": None,
            "last_status_code": status_code,
            "last_error": error,
            "updated_at": now,
        }
        if not error:
            update["state"] = DeliveryState.DELIVERED
            update["delivered_at"] = now
        elif number <= len(schedule):
            update["next_attempt_at"] = now + timedelta(seconds=schedule[number - 1])
        else:
            update["state"] = DeliveryState.FAILED
        states.append(update.get("state", DeliveryState.PENDING))
        key = (attempt.claimed_until, *sorted(update.items()))
        updates.setdefault(key, []).append(attempt.delivery.pk)
    lost: list[int] = []
    with transaction.atomic():
        WebhookAttempt.objects.bulk_create(rows)
        for (claimed_until, *update), ids in updates.items():
            # Only while the claim is still ours: if this worker stalled past it and
            # another one took over, that one's outcome stands.
            kept = WebhookDelivery.objects.filter(pk__in=ids, locked_until=claimed_until).update(
                **dict(update)
            )
            if kept != len(ids):
                ours = WebhookDelivery.objects.filter(pk__in=ids, updated_at=now)
                lost += sorted(set(ids) - set(ours.values_list("pk", flat=True)))
    for attempt, row, state in zip(attempts, rows, states, strict=True):
        metrics.webhook_delivery_attempted(state=state)
        logger.info(
            "Webhook delivery %s attempt %s: %s (event %s, HTTP %s, %d ms)%s",
            attempt.delivery.pk,
            row.number,
            state,
            attempt.delivery.event_id,
            row.status_code,
            row.duration_ms,
            f": {row.error}" if row.error else "",
        )
    if lost:
        logger.warning("Webhook deliveries %s: a claim ran out before the outcome was saved", lost)
    return states
