"""Matching probes (requisite, amount) by equality, read off the partial unique index
of Pending Buy orders: what a notification costs does not grow with how many orders a
requisite has Pending."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from finance.tests.factories import PaymentMethodFactory, TerminalFactory
from orders.models import Order
from orders.tests.factories import RequisiteFactory, TraderFactory
from traders.notifications import _match_sql, matching_orders

from .setup import SBER, ground, sber_sms, send

pytestmark = pytest.mark.django_db


def queries_for_one_notification(token, n) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        response = send(token, id=f"probe-{n}", text=sber_sms("99999"))
    assert response.json()["notification"]["status"] == "unmatched"
    # The device's last_seen_at is written at most every few seconds, and the device is
    # read only when what the process keeps is stale: neither is counted.
    return [
        q["sql"]
        for q in captured.captured_queries
        if 'UPDATE "traders_device"' not in q["sql"] and "FROM traders_device d" not in q["sql"]
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
    probe = next(q for q in many if "orders_order o" in q)
    assert "o.amount =" in probe
    assert "o.requisite_id IN" in probe or "o.requisite_id = ANY(ARRAY(" in probe


def _plan_nodes(plan: dict):
    yield plan
    for child in plan.get("Plans", ()):
        yield from _plan_nodes(child)


def _pending_elsewhere(g, count: int) -> None:
    """`count` Pending Buys of another trader, on a method the device has no requisite
    of: orders the match must not read at all."""
    other = PaymentMethodFactory(name="Other SBP", nspk_code="100000000999")
    terminal = TerminalFactory(methods=[other], available="100000.00")
    RequisiteFactory(trader=TraderFactory(), method=other)
    for cents in range(count):
        g.buy(Decimal("1000.00") + Decimal(cents) / 100, method=other, terminal=terminal)


def _history(order: Order, count: int) -> None:
    """`count` Completed copies of `order` of every day before, written in SQL: the
    table a live service has, most of it history."""
    columns = [f.column for f in Order._meta.concrete_fields]
    made = {
        "id": "gen_random_uuid()",
        "client_order_id": "'history-' || g",
        "status": "'Completed'",
        "amount": "o.amount + g",
        "created_at": "o.created_at - g * interval '1 hour'",
    }
    values = ", ".join(made.get(c, f"o.{c}") for c in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO orders_order ({', '.join(columns)}) SELECT {values} "
            "FROM orders_order o, generate_series(1, %s) g WHERE o.id = %s",
            [count, order.pk],
        )


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
@pytest.mark.parametrize("by_bank", [False, True], ids=["any bank", "named bank"])
@pytest.mark.parametrize("pending", ["on the device's requisite", "elsewhere"])
def test_the_prepared_matchs_generic_plan_probes_the_unique_index(by_bank, pending):
    """The match is prepared once per connection, so PostgreSQL soon runs one plan
    made without the amount, and with the statistics of whenever the table was last
    analyzed: here 3,000 orders of history and one Pending (a quiet night). With 300
    Pending Buys added since (the day's peak), on the device's requisite or on another
    trader's, that plan reads the orders through the partial unique index on Pending
    Buy (requisite, amount) by equality on both, one probe for the device's
    requisites, and filters out no row."""
    g = ground()
    target = g.buy("777.00")
    _history(target, 3000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE orders_order")
    if pending == "elsewhere":
        _pending_elsewhere(g, 300)
    else:
        for cents in range(300):
            g.buy(Decimal("1000.00") + Decimal(cents) / 100)
    assert Order.objects.filter(status="Pending").count() == 301
    sql = _match_sql(by_bank)
    params = [g.device.pk, g.trader.pk, *([SBER] if by_bank else []), Decimal("777.00")]
    params += [g.trader.pk, g.trader.livemode]
    numbered = sql
    for n in range(1, len(params) + 1):
        numbered = numbered.replace("%s", f"${n}", 1)
    with connection.cursor() as cursor:
        cursor.execute(f"PREPARE probe_match AS {numbered}")
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        values = ", ".join(["%s"] * len(params))
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE probe_match({values})", params)
        plan = cursor.fetchone()[0][0]["Plan"]
        cursor.execute("DEALLOCATE probe_match")
    scans = [n for n in _plan_nodes(plan) if n.get("Relation Name") == "orders_order"]
    assert len(scans) == 1, plan
    assert scans[0]["Index Name"] == "order_pending_buy_requisite_amount_unique", plan
    assert "amount" in scans[0]["Index Cond"] and "requisite_id" in scans[0]["Index Cond"]
    assert scans[0].get("Rows Removed by Filter", 0) == 0, plan
    # the device's requisites probed with the amount (one array), the one order found
    assert scans[0]["Actual Loops"] <= 2 and plan["Actual Rows"] == 1, plan
    found = matching_orders(device=g.device, amount=Decimal("777.00"), bank=None)
    assert [order.pk for order in found] == [target.pk]


def test_a_matched_notification_pays_no_lookup_and_one_savepoint():
    """A first delivery is told from a retry by the unique (device, id) constraint
    alone, and the confirm inside the notification's transaction opens no savepoint:
    the close raises its refusals before its first write (a refused close leaves the
    notification kept), and its audit entry needs none either."""
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
    # the test's own transaction makes the notification's block a savepoint
    assert sum(q.startswith("SAVEPOINT") for q in sql) == 1


def test_a_matched_notification_its_order_entry_and_event_are_one_statement():
    """The notification's row, the close's UPDATE of the order, its audit entry and its
    event are not statements of their own: on PostgreSQL they are written in the
    statement that changes the close's balances (core.riding), which also commits."""
    from audit.models import AuditEntry
    from webhooks.models import WebhookEvent

    g = ground()
    order = g.buy("321.00")
    with CaptureQueriesContext(connection) as captured:
        response = send(g.token, id="rides-1", text=sber_sms("321"))
    assert response.json()["notification"]["status"] == "matched"
    statements = [q["sql"] for q in captured.captured_queries]
    audit = [sql for sql in statements if '"audit_auditentry"' in sql]
    closes = [sql for sql in statements if 'UPDATE "orders_order"' in sql]
    assert len(audit) == 1 and len(closes) == 1
    kept = [sql for sql in statements if 'INSERT INTO "traders_banknotification"' in sql]
    assert len(kept) == 1
    if connection.vendor == "postgresql":
        assert audit == closes == kept
        assert 'INSERT INTO "webhooks_webhookevent"' in audit[0]
        assert "UPDATE finance_balance" in audit[0]
    entry = AuditEntry.objects.get(object_id=str(order.pk), action="order.confirm")
    assert entry.actor_kind == "device" and entry.actor_id == str(g.device.pk)
    assert WebhookEvent.objects.filter(order_id=order.pk, type="order.completed").exists()
