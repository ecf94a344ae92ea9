"""Real concurrent requests, each thread on its own database connection.

On PostgreSQL these race for real (row locks and the partial unique index decide);
on SQLite the IMMEDIATE write lock queues them. Both must give the same answers."""

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from django.db import connections

from conftest import buy_body, sell_body
from finance.models import Balance
from finance.services import ledger_check
from orders.models import Order
from orders.tests.world import World, trader_for

URL = "/api/v1/order/"
pytestmark = pytest.mark.django_db(transaction=True)


def concurrency_world() -> World:
    """A shop with 100000.00 deposited and the aggregate SBP; two traders' requisites on
    each of the four bank SBP methods."""
    banks = ("Sberbank SBP", "T-Bank SBP", "Alfa-Bank SBP", "VTB SBP")
    return World.build({"SBP": 0, **dict.fromkeys(banks, 2)}, available="100000.00")


def in_parallel(calls, workers=12):
    def run(call):
        try:
            return call()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(run, calls))


def test_same_amount_buys_never_share_a_requisite():
    world = concurrency_world()
    body = {
        "client_order_id": "race",
        "order_side": "Buy",
        "method_type": "SBP",
        "amount": "777.00",
    }

    def create():
        return world.api.post(URL, body).status_code

    statuses = Counter(in_parallel([create] * 30))
    # 4 banks x 2 requisites each can hold one Pending 777.00 apiece.
    assert statuses == {201: 8, 500: 22}
    pairs = Counter(Order.objects.filter(status="Pending").values_list("requisite_id", "amount"))
    assert max(pairs.values()) == 1
    assert world.shop.orders.count() == 8


def test_concurrent_sells_never_overdraw_the_balance():
    world = concurrency_world()

    def create(i):
        return lambda: (
            world.api.post(
                URL, sell_body(world, amount="10000.00", client_order_id=f"s{i}")
            ).status_code
        )

    statuses = Counter(in_parallel([create(i) for i in range(30)]))
    # each Sell reserves 10000 + 3% + 50 = 10350; 100000 holds nine of them
    assert statuses == {201: 9, 402: 21}
    balance = Balance.objects.get(terminal=world.shop)
    assert balance.frozen == Decimal("93150.00")
    assert balance.available == Decimal("6850.00")
    assert ledger_check() == []


def test_confirm_racing_cancel_ends_in_exactly_one_final_state():
    world = concurrency_world()
    orders = [
        world.api.post(URL, sell_body(world, amount=1000 + i, client_order_id=f"r{i}")).json()
        for i in range(6)
    ]
    calls = []
    for order in orders:
        trader = trader_for(order)
        calls.append(
            lambda o=order, t=trader: (
                "confirm",
                t.post(f"/api/v1/trader/orders/{o['id']}/confirm").status_code,
            )
        )
        calls.append(
            lambda o=order: (
                "cancel",
                world.api.post(f"{URL}{o['id']}/cancel").status_code,
            )
        )
        calls.append(
            lambda o=order, t=trader: (
                "confirm",
                t.post(f"/api/v1/trader/orders/{o['id']}/confirm").status_code,
            )
        )
    results = in_parallel(calls)
    assert sum(1 for _, status in results if status == 200) == len(orders)
    assert all(status in (200, 409) for _, status in results)
    for order in Order.objects.all():
        assert order.status in ("Completed", "Cancelled")
    balance = Balance.objects.get(terminal=world.shop)
    assert balance.frozen == 0
    assert ledger_check() == []


def test_antifraud_cap_holds_under_concurrency():
    world = concurrency_world()

    def create(i):
        return lambda: (
            world.api.post(
                URL, buy_body(world, amount=2000 + i, user_id="same-user", client_order_id=f"u{i}")
            ).status_code
        )

    statuses = Counter(in_parallel([create(i) for i in range(10)]))
    assert statuses == {201: 3, 429: 7}
