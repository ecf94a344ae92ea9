"""The order, dispute and trader lists for a working day: newest first, found by what
an operator has at hand, filtered by what they chase, traders' figures for today."""

from datetime import timedelta

import pytest
from django.utils import timezone

from core.testing import ApiClient
from demo.testing import buy_body, sell_body
from disputes.models import Dispute
from finance.models import IntegrationType
from forms_ui.models import FormSession
from orders.models import Order
from orders.tests.world import World, trader_for

from .conftest import operators_world

ORDERS = "/admin/orders/order/"


def listed(response) -> list:
    assert response.status_code == 200
    return [str(o.pk) for o in response.context["cl"].result_list]


def make(shop, world, amount, **extra) -> Order:
    response = shop.post("/api/v1/order/", buy_body(world, amount=amount, **extra))
    assert response.status_code == 201, response.content
    return Order.objects.get(pk=response.json()["id"])


def test_the_order_list_opens_newest_first(operator, shop, world):
    made = [make(shop, world, f"{1000 + n}.00", client_order_id=f"o-{n}") for n in range(4)]
    for n, order in enumerate(made):  # ids are random: the list must not follow them
        Order.objects.filter(pk=order.pk).update(created_at=timezone.now() - timedelta(minutes=n))
    assert listed(operator.get(ORDERS)) == [str(o.pk) for o in made]


@pytest.mark.parametrize(
    "term",
    ["short", "short…", "dashed", "full", "o-77", "user-77", "account", "1777", "1 777,00"],
)
def test_the_search_box_finds_an_order_by_what_the_operator_has(operator, term):
    # One requisite on each method: the two orders are held on different accounts.
    world = World.build({"Sberbank SBP": 1, "T-Bank SBP": 1})
    shop = world.api
    order = make(shop, world, "1777.00", client_order_id="o-77", user_id="user-77")
    make(shop, world, "1888.00", method="T-Bank SBP", client_order_id="o-88", user_id="user-88")
    text = str(order.pk)
    typed = {
        "short": text[:8],
        "short…": text[:8] + "…",
        "dashed": text[:13],
        "full": text,
        "account": order.holder_account,
    }.get(term, term)
    assert listed(operator.get(ORDERS, {"q": typed})) == [str(order.pk)]


def test_a_short_or_odd_search_finds_nothing_and_breaks_nothing(operator, shop, world):
    make(shop, world, "1777.00")
    for typed in ["abc", "1234567", "zzzzzzzz", "12,345,678", "'; drop", "1e5"]:
        assert listed(operator.get(ORDERS, {"q": typed})) == []


def test_filters_live_or_sandbox_payer_paid_receipts_overdue_and_age(operator):
    # A live H2H shop, a sandbox shop (its trader holds a requisite on Sberbank SBP) and an
    # order-with-form shop, whose Buys each get a payment page.
    world = operators_world(sandbox_holders={"Sberbank SBP": 1})
    live = make(world.api, world, "1100.00", client_order_id="live")
    sandbox_shop = ApiClient(world.terminal(sandbox=True).raw_key)
    sandboxed = sandbox_shop.post(
        "/api/v1/order/", buy_body(world, amount="1200.00", client_order_id="sb")
    ).json()
    form_shop = world.other_terminal(
        integration_type=IntegrationType.ORDER_WITH_FORM, form_activated=True
    )
    form_order = form_shop.post(
        "/api/v1/order/", buy_body(world, amount="1300.00", client_order_id="form")
    ).json()
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


def test_the_dispute_list_finds_a_dispute_by_its_orders_short_id(operator, shop, world):
    order = make(shop, world, "2500.00")
    shop.post_multipart("/api/v1/disputes/create", {"order_id": str(order.pk), "amount": "2500"})
    response = operator.get("/admin/disputes/dispute/", {"q": str(order.pk)[:8]})
    assert [d.pk for d in response.context["cl"].result_list] == [
        Dispute.objects.get(order=order).pk
    ]


def test_the_trader_list_shows_pending_turnover_and_conversion_today(operator, shop, world):
    done = make(shop, world, "7350.00")
    trader_for({"id": str(done.pk)}).post(f"/api/v1/trader/orders/{done.pk}/confirm")
    sold = shop.post("/api/v1/order/", sell_body(world, amount="1000.00")).json()
    trader = Order.objects.get(pk=done.pk).trader
    Order.objects.filter(pk=sold["id"]).update(trader=trader)
    trader_for({"id": str(done.pk)}).post(f"/api/v1/trader/orders/{sold['id']}/cancel")
    make(shop, world, "1500.00")  # still Pending, with whichever trader
    response = operator.get("/admin/orders/trader/")
    row = next(t for t in response.context["cl"].result_list if t.pk == trader.pk)
    assert row.turnover_today == 7350
    assert (row.completed_today, row.ended_today) == (1, 2)
    html = response.content.decode()
    assert "7\xa0350,00" in html and "50,0 %" in html
