"""Worked money scenarios: each transition with its ledger effect (docs/money.md, docs/orders.md#lifecycle)."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command

from conftest import buy_body, sell_body
from finance.models import Balance, Transaction
from finance.services import ledger_check
from orders.models import Order
from orders.services import order_expire_due
from orders.tests.clock import orders_age
from orders.tests.world import trader_for
from webhooks.models import WebhookEvent

URL = "/api/v1/order/"


@pytest.fixture
def shop(world):
    return world.api


def balance(world):
    return Balance.objects.get(terminal=world.shop)


def test_trader_confirms_buy_and_merchant_is_credited_amount_less_fee(shop, world):
    order = shop.post(URL, buy_body(world, amount="1000")).json()
    response = trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    assert body["order"]["status"] == "Completed"
    assert body["order"]["paid_amount"] == "1000.00"
    assert balance(world).available == Decimal("100950.00")
    deposit = Transaction.objects.filter(transaction_type="deposit").order_by("-created_at").first()
    assert deposit.amount == Decimal("950.00")
    assert deposit.balance_after == Decimal("100950.00")
    assert ledger_check() == []


def test_trader_confirms_sell_and_reserve_is_posted_as_one_withdrawal(shop, world):
    order = shop.post(URL, sell_body(world, amount="1000")).json()
    trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
    b = balance(world)
    assert (b.available, b.frozen) == (Decimal("98920.00"), Decimal("0.00"))
    withdrawals = Transaction.objects.filter(transaction_type="withdrawal")
    assert [w.amount for w in withdrawals] == [Decimal("1080.00")]
    assert withdrawals[0].balance_after == Decimal("98920.00")
    assert ledger_check() == []


def test_trader_cancels_sell_and_reserve_returns(shop, world):
    order = shop.post(URL, sell_body(world, amount="1000")).json()
    response = trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/cancel")
    assert response.json()["order"]["status"] == "Cancelled"
    b = balance(world)
    assert (b.available, b.frozen) == (Decimal("100000.00"), Decimal("0.00"))
    assert not Transaction.objects.filter(transaction_type="withdrawal").exists()
    assert ledger_check() == []


def test_merchant_cancels_its_pending_order(shop, world):
    order = shop.post(URL, sell_body(world, amount="1000")).json()
    response = shop.post(f"{URL}{order['id']}/cancel")
    assert response.status_code == 200
    assert response.json()["order"]["status"] == "Cancelled"
    assert balance(world).frozen == 0


def test_cancel_of_a_final_order_is_409(shop, world):
    order = shop.post(URL, buy_body(world)).json()
    shop.post(f"{URL}{order['id']}/cancel")
    response = shop.post(f"{URL}{order['id']}/cancel")
    assert response.status_code == 409
    assert trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm").status_code == 409


def test_double_confirm_credits_once(shop, world):
    order = shop.post(URL, buy_body(world, amount="1000")).json()
    trader = trader_for(order)
    assert trader.post(f"/api/v1/trader/orders/{order['id']}/confirm").status_code == 200
    assert trader.post(f"/api/v1/trader/orders/{order['id']}/confirm").status_code == 409
    assert balance(world).available == Decimal("100950.00")


def test_cancelled_buy_frees_its_requisite_amount(shop, world):
    a = shop.post(URL, buy_body(world, amount=1500)).json()
    shop.post(URL, buy_body(world, amount=1500))
    assert shop.post(URL, buy_body(world, amount=1500)).status_code == 500
    shop.post(f"{URL}{a['id']}/cancel")
    assert shop.post(URL, buy_body(world, amount=1500)).status_code == 201


def test_pending_order_is_shown_expired_after_expires_at_before_any_sweep(shop, world):
    order = shop.post(URL, buy_body(world)).json()
    orders_age(timedelta(minutes=16))
    shown = shop.get(f"{URL}{order['id']}").json()["order"]
    assert shown["status"] == "Expired"
    assert shop.get(URL, {"status": "Pending"}).json()["orders"]["total"] == 0
    expired = shop.get(URL, {"status": "Expired", "start_date": "2000-01-01T00:00:00Z"})
    assert expired.json()["orders"]["total"] == 1


def test_confirm_after_expiry_is_409_and_order_expires(shop, world):
    order = shop.post(URL, sell_body(world, amount="1000")).json()
    orders_age(timedelta(minutes=61))
    response = trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
    assert response.status_code == 409
    assert Order.objects.get(pk=order["id"]).status == "Expired"
    assert balance(world).frozen == 0
    assert ledger_check() == []


def test_sweep_expires_due_orders_releases_reserves_and_emits_events(shop, world):
    sell = shop.post(URL, sell_body(world, amount="1000")).json()
    buy = shop.post(URL, buy_body(world)).json()
    orders_age(timedelta(minutes=16))
    assert order_expire_due() == 1  # the Buy (15 min); the Sell lives 60 min
    orders_age(timedelta(minutes=45))
    call_command("expire_orders", verbosity=0)
    assert Order.objects.get(pk=buy["id"]).status == "Expired"
    assert Order.objects.get(pk=sell["id"]).status == "Expired"
    assert balance(world).frozen == 0
    assert WebhookEvent.objects.filter(type="order.expired").count() == 2
    assert ledger_check() == []


def test_every_transition_records_an_event_with_rising_sequence(shop, world):
    order = shop.post(URL, buy_body(world)).json()
    trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
    events = list(WebhookEvent.objects.filter(order_id=order["id"]).order_by("sequence"))
    assert [(e.type, e.sequence) for e in events] == [("order.created", 1), ("order.completed", 2)]
    assert events[1].payload["data"]["order"]["status"] == "Completed"
    assert events[1].payload["type"] == "order.completed"
    assert events[1].payload["id"] == events[1].id


def test_operator_admin_actions_confirm_and_cancel_through_services(shop, world, admin_client):
    admin_client.cookies["django_language"] = "en"  # the page's words, in English
    buy = shop.post(URL, buy_body(world, amount="1000")).json()
    sell = shop.post(URL, sell_body(world, amount="1000")).json()
    admin_client.cookies["django_language"] = "en"  # this page's words, in English
    # First the operator sees what will happen, and nothing moves yet.
    page = admin_client.post(
        "/admin/orders/order/", {"action": "confirm_orders", "_selected_action": [buy["id"]]}
    )
    assert page.status_code == 200
    assert buy["client_order_id"] in page.content.decode()
    assert "credits its merchant" in page.content.decode()
    assert Order.objects.get(pk=buy["id"]).status == "Pending"
    response = admin_client.post(
        "/admin/orders/order/",
        {"action": "confirm_orders", "_selected_action": [buy["id"]], "confirmed": "yes"},
    )
    assert response.status_code == 302
    admin_client.post(
        "/admin/orders/order/",
        {"action": "cancel_orders", "_selected_action": [sell["id"]], "confirmed": "yes"},
    )
    assert Order.objects.get(pk=buy["id"]).status == "Completed"
    assert Order.objects.get(pk=sell["id"]).status == "Cancelled"
    assert balance(world).available == Decimal("100950.00")
    assert ledger_check() == []
    from django.contrib.admin.models import LogEntry

    # the history (and the audit log) in the operators' language, whatever the page's
    history = {(e.object_id, e.change_message) for e in LogEntry.objects.all()}
    assert {
        (buy["id"], "Завершён в админке"),
        (sell["id"], "Отменён в админке"),
    } <= history
