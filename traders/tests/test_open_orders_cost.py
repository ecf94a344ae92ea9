"""The cabinet's open orders are read off the trader's own Pending orders: what the
list costs does not grow with how many orders other traders hold Pending."""

import json

import pytest
from django.db import connection

from traders.selectors import trader_open_orders

from .setup import ground
from .test_matching_cost import _history, _pending_elsewhere, _plan_nodes

pytestmark = pytest.mark.django_db


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_a_traders_open_orders_read_its_own_pending_index():
    """With statistics of a quiet hour (3,000 orders of history, one Pending) and 300
    Pending Buys of another trader added since, the trader's open orders are read
    through its own Pending index, in the list's order, and no row is read to be
    thrown away."""
    g = ground()
    mine = g.buy("777.00")
    _history(mine, 3000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE orders_order")
    _pending_elsewhere(g, 300)
    later = g.buy("778.00")
    listed = trader_open_orders(trader=g.trader)
    plan = json.loads(listed.explain(format="json", analyze=True))[0]["Plan"]
    scans = [n for n in _plan_nodes(plan) if n.get("Relation Name") == "orders_order"]
    assert len(scans) == 1, plan
    assert scans[0]["Index Name"] == "order_trader_pending", plan
    assert scans[0].get("Rows Removed by Filter", 0) == 0, plan
    assert scans[0]["Actual Rows"] == 2, plan
    assert [order.pk for order in listed] == [later.pk, mine.pk]
