"""Matching probes (requisite, amount) by equality, read off the partial unique index
of Pending Buy orders: what a notification costs does not grow with how many orders a
requisite has Pending."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from orders.models import Order

from .setup import ground, sber_sms, send

pytestmark = pytest.mark.django_db


def queries_for_one_notification(token, n) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        response = send(token, id=f"probe-{n}", text=sber_sms("99999"))
    assert response.json()["notification"]["status"] == "unmatched"
    # The device's last_seen_at is written at most every few seconds: not counted.
    return [
        q["sql"] for q in captured.captured_queries if 'UPDATE "traders_device"' not in q["sql"]
    ]


def test_a_notifications_statements_do_not_grow_with_pending_orders():
    g = ground()
    g.buy("100.00")
    few = queries_for_one_notification(g.token, 1)
    for cents in range(1, 60):
        g.buy(Decimal("200.00") + Decimal(cents))
    assert Order.objects.filter(status="Pending").count() == 60
    many = queries_for_one_notification(g.token, 2)
    assert len(many) == len(few)
    probe = next(q for q in many if '"orders_order"' in q and "amount" in q)
    assert '"orders_order"."amount" =' in probe
    assert '"orders_order"."requisite_id" IN' in probe


def test_a_matched_notification_pays_no_lookup_and_one_savepoint():
    """A first delivery is told from a retry by the unique (device, id) constraint
    alone, and the confirm inside the notification's transaction opens one savepoint
    (the close's own, so a refused close leaves the notification kept), not one more
    for its audit entry."""
    g = ground()
    order = g.buy("1234.00")
    with CaptureQueriesContext(connection) as captured:
        response = send(g.token, id="matched-1", text=sber_sms("1234"))
    assert response.json()["notification"]["status"] == "matched"
    order.refresh_from_db()
    assert order.status == "Completed"
    sql = [q["sql"] for q in captured.captured_queries]
    notification_reads = [
        i for i, q in enumerate(sql) if q.startswith("SELECT") and '"traders_banknotification"' in q
    ]
    assert notification_reads == []
    # the test's own transaction makes the notification's block a savepoint too
    assert sum(q.startswith("SAVEPOINT") for q in sql) == 2
