"""Live and sandbox under parallel load: real threads, each on its own connection
(on PostgreSQL the row locks and the partial unique index decide; on SQLite the
write lock queues). Live orders never land on sandbox requisites, sandbox orders
never on live ones, and each side's capacity is exactly its own."""

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from core.testing import ApiClient
from finance.services import ledger_check
from orders import tasks
from orders.models import Order
from orders.tests.test_concurrency import in_parallel
from orders.tests.world import World

URL = "/api/v1/order/"
pytestmark = pytest.mark.django_db(transaction=True)

BANKS = ("Sberbank SBP", "T-Bank SBP", "Alfa-Bank SBP", "VTB SBP")


def live_and_sandbox() -> World:
    """A live shop and a sandbox shop (100000.00 deposited) on the aggregate SBP and five
    bank SBP methods: two live traders' requisites on each of the four banks and none on
    MTS Bank SBP; the sandbox trader holds two on each of the five."""
    world = World.build(
        {"SBP": 0, **dict.fromkeys(BANKS, 2), "MTS Bank SBP": 0},
        sandbox_holders=dict.fromkeys((*BANKS, "MTS Bank SBP"), 2),
        name="Live Shop",
    )
    world.sandbox_shop = world.terminal(sandbox=True, available="100000.00", name="Sandbox Shop")
    return world


def create(key: str, amount: str, i: int):
    body = {"client_order_id": f"{key}-{i}", "order_side": "Buy", "method_type": "SBP"}
    return lambda: (key, ApiClient(key).post(URL, {**body, "amount": amount}).status_code)


def test_parallel_live_and_sandbox_orders_never_cross():
    world = live_and_sandbox()
    live, sandbox = world.shop.raw_key, world.sandbox_shop.raw_key
    calls = []
    for i in range(24):
        calls.append(create(live, "888.00", i))
        calls.append(create(sandbox, "888.00", i))
    results = Counter(in_parallel(calls))
    # Live has 4 banks x 2 requisites for one Pending 888.00 apiece, sandbox 5 x 2 (MTS
    # Bank SBP too): had either side reached the other's requisites, it would have got
    # more.
    assert results == {
        (live, 201): 8,
        (live, 500): 16,
        (sandbox, 201): 10,
        (sandbox, 500): 14,
    }
    for order in Order.objects.select_related("trader", "terminal"):
        assert order.livemode is (not order.terminal.sandbox)
        assert order.trader.sandbox is (not order.livemode)
    pairs = Counter(Order.objects.values_list("requisite_id", "amount"))
    assert max(pairs.values()) == 1


def test_parallel_live_traders_list_no_sandbox_order():
    world = live_and_sandbox()
    calls = [create(world.sandbox_shop.raw_key, f"{900 + i}.00", i) for i in range(8)]
    calls += [create(world.shop.raw_key, f"{900 + i}.00", i) for i in range(8)]
    assert {status for _, status in in_parallel(calls)} == {201}
    live_keys = [f"trader-key-{r.trader_id}" for r in world.requisites]
    sandbox_key = f"trader-key-{world.sandbox_trader.pk}"

    def listed(key):
        return lambda: ApiClient(key).get("/api/v1/trader/orders").json()

    pages = in_parallel([listed(k) for k in live_keys] + [listed(sandbox_key)])
    live_ids = {o["id"] for p in pages[:-1] for o in p["orders"]["items"]}
    sandbox_ids = {o["id"] for o in pages[-1]["orders"]["items"]}
    assert live_ids == {
        str(pk) for pk in Order.objects.filter(livemode=True).values_list("id", flat=True)
    }
    assert sandbox_ids == {
        str(pk) for pk in Order.objects.filter(livemode=False).values_list("id", flat=True)
    }


def test_magic_orders_acted_on_by_task_and_sweep_at_once_settle_once():
    world = live_and_sandbox()
    orders = [
        ApiClient(world.sandbox_shop.raw_key)
        .post(
            URL,
            {
                "client_order_id": f"m{i}",
                "order_side": "Sell",
                "payment_method_id": world.method_id("Sberbank SBP"),
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
