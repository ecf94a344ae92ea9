"""Live and sandbox under parallel load: real threads, each on its own connection
(on PostgreSQL the row locks and the partial unique index decide; on SQLite the
write lock queues). Live orders never land on sandbox requisites, sandbox orders
never on live ones, and each side's capacity is exactly its own."""

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from conftest import ApiClient, load_demo
from finance.services import ledger_check
from orders import tasks
from orders.models import Order
from orders.tests.test_concurrency import in_parallel

URL = "/api/v1/order/"
pytestmark = pytest.mark.django_db(transaction=True)


def create(key: str, amount: str, i: int):
    body = {"client_order_id": f"{key}-{i}", "order_side": "Buy", "method_type": "SBP"}
    return lambda: (key, ApiClient(key).post(URL, {**body, "amount": amount}).status_code)


def test_parallel_live_and_sandbox_orders_never_cross():
    load_demo()
    calls = []
    for i in range(24):
        calls.append(create("demo-shop-key", "888.00", i))
        calls.append(create("demo-sandbox-key", "888.00", i))
    results = Counter(in_parallel(calls))
    # Live has 4 banks x 2 requisites for one Pending 888.00 apiece (trader 4's MTS
    # requisite takes 600 at most), sandbox 5 x 2 (MTS Bank SBP too): had either side
    # reached the other's requisites, it would have got more.
    assert results == {
        ("demo-shop-key", 201): 8,
        ("demo-shop-key", 500): 16,
        ("demo-sandbox-key", 201): 10,
        ("demo-sandbox-key", 500): 14,
    }
    for order in Order.objects.select_related("trader", "terminal"):
        assert order.livemode is (not order.terminal.sandbox)
        assert order.trader.sandbox is (not order.livemode)
    pairs = Counter(Order.objects.values_list("requisite_id", "amount"))
    assert max(pairs.values()) == 1


def test_parallel_live_traders_list_no_sandbox_order():
    load_demo()
    calls = [create("demo-sandbox-key", f"{900 + i}.00", i) for i in range(8)]
    calls += [create("demo-shop-key", f"{900 + i}.00", i) for i in range(8)]
    assert {status for _, status in in_parallel(calls)} == {201}
    live_keys = [f"demo-trader-{i}-key" for i in (1, 2, 3)]

    def listed(key):
        return lambda: ApiClient(key).get("/api/v1/trader/orders").json()

    pages = in_parallel([listed(k) for k in live_keys] + [listed("demo-sandbox-trader-key")])
    live_ids = {o["id"] for p in pages[:3] for o in p["orders"]["items"]}
    sandbox_ids = {o["id"] for o in pages[3]["orders"]["items"]}
    assert live_ids == {
        str(pk) for pk in Order.objects.filter(livemode=True).values_list("id", flat=True)
    }
    assert sandbox_ids == {
        str(pk) for pk in Order.objects.filter(livemode=False).values_list("id", flat=True)
    }


def test_magic_orders_acted_on_by_task_and_sweep_at_once_settle_once():
    demo = load_demo()
    orders = [
        ApiClient("demo-sandbox-key")
        .post(
            URL,
            {
                "client_order_id": f"m{i}",
                "order_side": "Sell",
                "payment_method_id": demo.method_id("Sberbank SBP"),
                "amount": f"{1000 + i}.{11 + i % 3}",
                "customer_account": "+79991234567",
            },
        )
        .json()
        for i in range(6)
    ]
    # Past the sweep's wait: the queued tasks and the sweep race for the same orders.
    Order.objects.update(created_at=timezone.now() - timedelta(minutes=1))
    calls = [lambda o=o: tasks.sandbox_act(o["id"]) for o in orders] * 2
    calls += [tasks.sandbox_sweep] * 3
    in_parallel(calls)
    statuses = Counter(Order.objects.values_list("status", flat=True))
    assert statuses == {"Completed": 2, "Cancelled": 2, "Expired": 2}
    assert ledger_check() == []
