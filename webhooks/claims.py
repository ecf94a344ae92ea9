"""Claims: how a worker takes deliveries for itself before sending them.

A claim moves `locked_until` forward with a conditional UPDATE (committed before any
HTTP call); while it holds, the sweep and other workers leave the delivery alone.
If the worker dies, the claim runs out and the delivery is due again: a receiver may
see a duplicate (same webhook-id), never a gap.
"""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
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


def host_of(url: str) -> str:
    """The part of a delivery URL that names its server (scheme, user, host, port), as
    written: deliveries to one server share a bound on attempts in flight."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    return f"{scheme}://{rest[:end]}"


def _not_to(hosts) -> tuple[str, list]:
    """SQL (and its parameters) leaving out the deliveries to `hosts`."""
    sql, params = "", []
    for host in hosts:
        sql += " AND NOT (url = %s OR SUBSTR(url, 1, %s) IN (%s, %s, %s))"
        params += [host, len(host) + 1, f"{host}/", f"{host}?", f"{host}#"]
    return sql, params


def deliveries_release(ids: list[int], claimed_until: datetime) -> None:
    """Give back claims not used after all (their server has enough in flight)."""
    WebhookDelivery.objects.filter(pk__in=ids, locked_until=claimed_until).update(locked_until=None)


def deliveries_claim(*, limit: int, skip_hosts=()) -> list[tuple[WebhookDelivery, datetime]]:
    """Up to `limit` due, unclaimed deliveries, oldest first, claimed for this worker.

    One statement, outside any transaction (it commits by itself): a round trip, where
    a locking read, the UPDATE and their BEGIN and COMMIT took four. On PostgreSQL
    the candidates are locked with SKIP LOCKED, so workers claiming at the same moment
    take different rows instead of queueing on the oldest ones; the outer condition
    makes the UPDATE a conditional claim on every database, so a row another worker
    claimed first is never taken over. The state is written into the statement so the
    planner matches the partial index on pending deliveries. (UPDATE ... RETURNING:
    SQLite 3.35 or later.) Deliveries to `skip_hosts` (see host_of) are left alone."""
    now = timezone.now()
    until = now + timedelta(seconds=claim_seconds())
    table = connection.ops.quote_name(WebhookDelivery._meta.db_table)
    skip_locked = (
        " FOR UPDATE SKIP LOCKED" if connection.features.has_select_for_update_skip_locked else ""
    )
    skip_sql, skip_params = _not_to(skip_hosts)
    sql = f"""
        UPDATE {table} SET locked_until = %s
        WHERE id IN (
            SELECT id FROM {table}
            WHERE state = '{DeliveryState.PENDING.value}' AND next_attempt_at <= %s
              AND (locked_until IS NULL OR locked_until < %s){skip_sql}
            ORDER BY next_attempt_at
            LIMIT %s{skip_locked}
        )
        AND (locked_until IS NULL OR locked_until < %s)
        RETURNING id
    """
    at = connection.ops.adapt_datetimefield_value
    params = [at(until), at(now), at(now), *skip_params, limit, at(now)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        ids = [row[0] for row in cursor.fetchall()]
    if not ids:
        return []
    rows = _with_event(WebhookDelivery.objects.filter(pk__in=ids)).order_by("next_attempt_at")
    return [(row, until) for row in rows]
