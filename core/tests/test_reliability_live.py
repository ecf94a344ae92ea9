"""Concurrency invariants over real HTTP: parallel clients against a live server.

After each scenario: no negative or drifting balance (ledger_check clean), no requisite
with two Pending Buy orders of one amount, no order in two final states, money moved
exactly once per completed order."""

import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import httpx
import pytest
from django.db import connections
from django.db.models import Count

from conftest import load_demo
from finance.models import Balance, Reserve, Transaction
from finance.services import ledger_check
from orders.models import Order
from orders.services import order_expire_due
from webhooks.models import WebhookEvent

pytestmark = pytest.mark.django_db(transaction=True)

SHOP = {"X-API-Key": "demo-shop-key"}
TRADER_KEYS = {
    "Trader One": "demo-trader-1-key",
    "Trader Two": "demo-trader-2-key",
    "Trader Three": "demo-trader-3-key",
    "Trader Four": "demo-trader-4-key",  # its MTS requisite takes 100 to 600
}


def parallel(calls, workers=16):
    def run(call):
        try:
            return call()
        finally:
            connections.close_all()  # pool threads that touched the database

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(run, calls))


def assert_invariants(demo):
    assert ledger_check() == []
    for balance in Balance.objects.all():
        assert balance.available >= 0 and balance.frozen >= 0
    dupes = (
        Order.objects.filter(status="Pending", side="Buy")
        .values("requisite_id", "amount")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
    )
    assert not dupes.exists()
    for order in Order.objects.filter(side="Sell").select_related("reserve"):
        expected = {
            "Pending": "open",
            "Completed": "posted",
            "Cancelled": "voided",
            "Expired": "voided",
        }[order.status]
        assert order.reserve.state == expected, order
    completed_buys = Order.objects.filter(side="Buy", status="Completed").count()
    assert (
        Transaction.objects.filter(transaction_type="deposit", reference__gt="").count()
        == completed_buys
    )


@pytest.fixture
def live(live_server, settings):
    settings.API_RATE_LIMIT = "1000000/min"
    demo = load_demo()
    with httpx.Client(base_url=live_server.url, timeout=60) as http:
        yield demo, http, live_server.url


def post(base, path, body=None, headers=SHOP):
    return httpx.post(base + path, json=body or {}, headers=headers, timeout=60)


def sell(demo, amount, i):
    return {
        "client_order_id": f"sell-{i}",
        "order_side": "Sell",
        "payment_method_id": demo.method_id("Sberbank SBP"),
        "amount": str(amount),
        "customer_account": "+79991234567",
    }


def test_two_hundred_concurrent_sells_never_overdraw_one_balance(live):
    demo, _, base = live
    # each reserves 1000 + 3% + 50 = 1080; 100000 holds 92 of them
    calls = [
        lambda i=i: post(base, "/api/v1/order/", sell(demo, 1000, i)).status_code
        for i in range(200)
    ]
    statuses = Counter(parallel(calls))
    assert statuses == {201: 92, 402: 108}
    balance = Balance.objects.get(terminal=demo.shop)
    assert balance.frozen == Decimal("99360.00")
    assert balance.available == Decimal("640.00")
    assert Reserve.objects.filter(state="open").count() == 92
    assert_invariants(demo)


def test_same_amount_buys_on_one_method_take_each_requisite_once(live):
    demo, _, base = live
    body = {"client_order_id": "b", "order_side": "Buy", "method_type": "SBP", "amount": "4321.00"}
    statuses = Counter(parallel([lambda: post(base, "/api/v1/order/", body).status_code] * 60))
    assert statuses == {201: 8, 500: 52}
    unique = {**body, "unique_amount": True}
    statuses = Counter(parallel([lambda: post(base, "/api/v1/order/", unique).status_code] * 60))
    # 8 requisites x 9 further amounts (4322..4330) = 72 free slots
    assert statuses == {201: 60}
    assert_invariants(demo)


def test_double_confirms_complete_once_and_credit_once(live):
    demo, _, base = live
    orders = [
        post(
            base,
            "/api/v1/order/",
            {
                "client_order_id": f"d{i}",
                "order_side": "Buy",
                "method_type": "SBP",
                "amount": 500 + i,
            },
        ).json()
        for i in range(12)
    ]
    calls = []
    for order in orders:
        key = TRADER_KEYS[Order.objects.select_related("trader").get(pk=order["id"]).trader.name]
        for _ in range(4):
            calls.append(
                lambda o=order, k=key: (
                    post(
                        base, f"/api/v1/trader/orders/{o['id']}/confirm", headers={"X-API-Key": k}
                    ).status_code
                )
            )
    statuses = Counter(parallel(calls))
    assert statuses == {200: 12, 409: 36}
    credited = sum((Decimal(o["amount"]) - Decimal(o["fee_amount"]) for o in orders), Decimal(0))
    assert Balance.objects.get(terminal=demo.shop).available == Decimal("100000.00") + credited
    assert WebhookEvent.objects.filter(type="order.completed").count() == 12
    assert_invariants(demo)


def test_confirms_racing_expiry_end_in_exactly_one_final_state(live, settings):
    demo, _, base = live
    settings.ORDER_TTL_SELL_SECONDS = 2
    orders = [post(base, "/api/v1/order/", sell(demo, 1000 + i, i)).json() for i in range(16)]
    time.sleep(max(0.0, 2.0 - 0.3))
    calls = []
    for order in orders:
        key = TRADER_KEYS[Order.objects.select_related("trader").get(pk=order["id"]).trader.name]
        calls.append(
            lambda o=order, k=key: (
                post(
                    base, f"/api/v1/trader/orders/{o['id']}/confirm", headers={"X-API-Key": k}
                ).status_code
            )
        )
    calls += [lambda: (time.sleep(0.3), order_expire_due(), 0)[-1] for _ in range(4)]
    results = parallel(calls)
    assert all(status in (0, 200, 409) for status in results)
    order_expire_due()
    final = Counter(Order.objects.values_list("status", flat=True))
    assert set(final) <= {"Completed", "Expired"} and sum(final.values()) == 16
    events = Counter(
        WebhookEvent.objects.exclude(type="order.created").values_list("order_id", flat=True)
    )
    assert all(n == 1 for n in events.values()) and len(events) == 16
    assert Balance.objects.get(terminal=demo.shop).frozen == 0
    assert_invariants(demo)


def _stored_files() -> set[str]:
    from pathlib import Path

    from django.core.files.storage import default_storage

    root = Path(default_storage.location)
    return (
        {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}
        if root.exists()
        else set()
    )


def test_concurrent_disputes_on_one_order_make_exactly_one(live):
    from disputes.models import Dispute, DisputeFile
    from disputes.tests.files import png

    demo, _, base = live
    order = post(
        base,
        "/api/v1/order/",
        {"client_order_id": "disputed", "order_side": "Buy", "method_type": "SBP", "amount": 900},
    ).json()
    before = _stored_files()
    evidence = png().read()

    def open_dispute():
        return httpx.post(
            base + "/api/v1/disputes/create",
            data={"order_id": order["id"], "amount": "900"},
            files=[
                ("files", ("a.png", evidence, "image/png")),
                ("files", ("b.png", evidence, "image/png")),
            ],
            headers=SHOP,
            timeout=60,
        ).status_code

    statuses = Counter(parallel([open_dispute] * 12))
    assert statuses == {201: 1, 400: 11}
    assert Dispute.objects.filter(order_id=order["id"]).count() == 1
    names = set(DisputeFile.objects.values_list("file", flat=True))
    assert len(names) == 2
    assert _stored_files() - before == names  # refused requests left no files behind
    assert_invariants(demo)
