"""The order, dispute and trader lists for a working day: newest first, found by what
an operator has at hand, filtered by what they chase, traders' figures for today."""

from datetime import timedelta

import pytest
from django.utils import timezone

from conftest import ApiClient, buy_body, sell_body, trader_for
from disputes.models import Dispute
from forms_ui.models import FormSession
from orders.models import Order

ORDERS = "/admin/orders/order/"


@pytest.fixture
def operator(client, demo):
    assert client.login(username="operator", password="operator-demo-password")
    return client


def listed(response) -> list:
    assert response.status_code == 200
    return [str(o.pk) for o in response.context["cl"].result_list]


def make(shop, demo, amount, **extra) -> Order:
    created = shop.post("/api/v1/order/", buy_body(demo, amount=amount, **extra)).json()
    return Order.objects.get(pk=created["id"])


def test_the_order_list_opens_newest_first(operator, shop, demo):
    made = [make(shop, demo, f"{1000 + n}.00", client_order_id=f"o-{n}") for n in range(4)]
    for n, order in enumerate(made):  # ids are random: the list must not follow them
        Order.objects.filter(pk=order.pk).update(created_at=timezone.now() - timedelta(minutes=n))
    assert listed(operator.get(ORDERS)) == [str(o.pk) for o in made]


@pytest.mark.parametrize(
    "term",
    ["short", "short…", "dashed", "full", "o-77", "user-77", "account", "1777", "1 777,00"],
)
def test_the_search_box_finds_an_order_by_what_the_operator_has(operator, shop, demo, term):
    order = make(shop, demo, "1777.00", client_order_id="o-77", user_id="user-77")
    make(shop, demo, "1888.00", client_order_id="o-88", user_id="user-88")
    text = str(order.pk)
    typed = {
        "short": text[:8],
        "short…": text[:8] + "…",
        "dashed": text[:13],
        "full": text,
        "account": order.holder_account,
    }.get(term, term)
    assert listed(operator.get(ORDERS, {"q": typed})) == [str(order.pk)]


def test_a_short_or_odd_search_finds_nothing_and_breaks_nothing(operator, shop, demo):
    make(shop, demo, "1777.00")
    for typed in ["abc", "1234567", "zzzzzzzz", "12,345,678", "'; drop", "1e5"]:
        assert listed(operator.get(ORDERS, {"q": typed})) == []


def test_filters_live_or_sandbox_payer_paid_receipts_overdue_and_age(operator, shop, demo):
    live = make(shop, demo, "1100.00", client_order_id="live")
    sandbox_shop = ApiClient("demo-sandbox-key")
    sandboxed = sandbox_shop.post(
        "/api/v1/order/", buy_body(demo, amount="1200.00", client_order_id="sb")
    ).json()
    form_order = (
        ApiClient("demo-form-key")
        .post("/api/v1/order/", buy_body(demo, amount="1300.00", client_order_id="form"))
        .json()
    )
    FormSession.objects.filter(order_id=form_order["id"]).update(
        payment_confirmation_starts_at=timezone.now()
    )
    Order.objects.filter(pk=live.pk).update(
        receipts_count=1,
        expires_at=timezone.now() - timedelta(minutes=1),
        created_at=timezone.now() - timedelta(hours=2),
    )
    assert listed(operator.get(ORDERS, {"mode": "sandbox"})) == [sandboxed["id"]]
    assert sandboxed["id"] not in listed(operator.get(ORDERS, {"mode": "live"}))
    assert listed(operator.get(ORDERS, {"payer_paid": "yes"})) == [form_order["id"]]
    assert listed(operator.get(ORDERS, {"receipts": "yes"})) == [str(live.pk)]
    assert listed(operator.get(ORDERS, {"overdue": "yes"})) == [str(live.pk)]
    assert str(live.pk) not in listed(operator.get(ORDERS, {"overdue": "no"}))
    assert listed(operator.get(ORDERS, {"age": "1d"})) == [str(live.pk)]
    assert str(live.pk) not in listed(operator.get(ORDERS, {"age": "15m"}))
    page = operator.get(ORDERS).content.decode()
    assert "песочница" in page and "боевой" in page  # the mode column


def test_the_dispute_list_finds_a_dispute_by_its_orders_short_id(operator, shop, demo):
    order = make(shop, demo, "2500.00")
    shop.post_multipart("/api/v1/disputes/create", {"order_id": str(order.pk), "amount": "2500"})
    response = operator.get("/admin/disputes/dispute/", {"q": str(order.pk)[:8]})
    assert [d.pk for d in response.context["cl"].result_list] == [
        Dispute.objects.get(order=order).pk
    ]


def test_the_trader_list_shows_pending_turnover_and_conversion_today(operator, shop, demo):
    done = make(shop, demo, "7350.00")
    trader_for({"id": str(done.pk)}).post(f"/api/v1/trader/orders/{done.pk}/confirm")
    sold = shop.post("/api/v1/order/", sell_body(demo, amount="1000.00")).json()
    trader = Order.objects.get(pk=done.pk).trader
    Order.objects.filter(pk=sold["id"]).update(trader=trader)
    trader_for({"id": str(done.pk)}).post(f"/api/v1/trader/orders/{sold['id']}/cancel")
    make(shop, demo, "1500.00")  # still Pending, with whichever trader
    response = operator.get("/admin/orders/trader/")
    row = next(t for t in response.context["cl"].result_list if t.pk == trader.pk)
    assert row.turnover_today == 7350
    assert (row.completed_today, row.ended_today) == (1, 2)
    html = response.content.decode()
    assert "7\xa0350,00" in html and "50,0 %" in html
