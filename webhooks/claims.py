"""Claims: how a worker takes deliveries for itself before sending them.

A claim moves `locked_until` forward with a conditional UPDATE (committed before any
HTTP call); while it holds, the sweep and other workers leave the delivery alone.
If the worker dies, the claim runs out and the delivery is due again: a receiver may
see a duplicate (same webhook-id), never a gap.
"""

from contextlib import nullcontext
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from .models import DeliveryState, WebhookDelivery

# A claim outlives the longest an attempt can take by this much, so it only runs out
# when the worker holding it is gone.
CLAIM_MARGIN_SECONDS = 30


def claim_seconds() -> float:
    """A claimed delivery may wait for a free place among those in flight (at most one
    attempt's time) and then takes at most one attempt's time itself."""
    return 2 * settings.WEBHOOK_TIMEOUT_SECONDS + CLAIM_MARGIN_SECONDS


def _due_unclaimed(now: datetime) -> Q:
    return Q(state=DeliveryState.PENDING, next_attempt_at__lte=now) & (
        Q(locked_until__isnull=True) | Q(locked_until__lt=now)
    )


def _with_event(deliveries):
    # The stored body is what is sent; its parsed copy is not needed here.
    return deliveries.select_related("event", "event__terminal").defer("event__payload")


def delivery_claim(delivery_id: int) -> tuple[WebhookDelivery, datetime] | None:
    now = timezone.now()
    until = now + timedelta(seconds=claim_seconds())
    claimed = WebhookDelivery.objects.filter(_due_unclaimed(now), pk=delivery_id).update(
        locked_until=until
    )
    if claimed != 1:
        return None
    return _with_event(WebhookDelivery.objects).get(pk=delivery_id), until


def deliveries_claim(*, limit: int) -> list[tuple[WebhookDelivery, datetime]]:
    """Up to `limit` due, unclaimed deliveries, oldest first, claimed for this worker.

    On PostgreSQL the candidates are locked with SKIP LOCKED, so workers claiming at
    the same moment take different rows instead of queueing on the oldest ones. The
    conditional UPDATE is the claim itself on every database: SQLite has no row
    locks, and there a row another worker claimed in between is simply not ours."""
    now = timezone.now()
    until = now + timedelta(seconds=claim_seconds())
    due = _due_unclaimed(now)
    skip_locked = connection.features.has_select_for_update_skip_locked
    with transaction.atomic() if skip_locked else nullcontext():
        candidates = _with_event(WebhookDelivery.objects.filter(due)).order_by("next_attempt_at")
        if skip_locked:
            candidates = candidates.select_for_update(skip_locked=True, of=("self",))
        rows = list(candidates[:limit])
        if not rows:
            return []
        ids = [row.pk for row in rows]
        claimed = WebhookDelivery.objects.filter(due, pk__in=ids).update(locked_until=until)
    if claimed != len(rows):
        ours = set(
            WebhookDelivery.objects.filter(pk__in=ids, locked_until=until).values_list(
                "pk", flat=True
            )
        )
        rows = [row for row in rows if row.pk in ours]
    return [(row, until) for row in rows]
