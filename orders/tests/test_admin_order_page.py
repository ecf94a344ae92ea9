"""An order's admin page: what operators do next is one click away, and nothing
offers a Save that could not save anything."""

import pytest

from conftest import buy_body
from orders.models import Order, OrderStatus


@pytest.fixture
def shop(world):
    return world.api


@pytest.fixture
def operator(client, operator_user):
    assert client.login(username="operator", password="operator-demo-password")
    client.cookies["django_language"] = "en"  # these pages' words, in English
    return client


def test_the_list_shows_short_ids_that_open_the_order(operator, world, shop):
    order = shop.post("/api/v1/order/", buy_body(world)).json()
    html = operator.get("/admin/orders/order/").content.decode()
    assert f">{order['id'][:8]}…<" in html
    assert f'title="{order["id"]}"' in html


def test_a_pending_order_is_confirmed_from_its_page(operator, world, shop):
    operator.cookies["django_language"] = "en"  # the page's words, in English
    order = shop.post("/api/v1/order/", buy_body(world)).json()
    page = operator.get(f"/admin/orders/order/{order['id']}/change/").content.decode()
    assert 'name="_save"' not in page
    assert "History" in page and "Merchant&#x27;s balance" in page and "Trader" in page
    confirm_url = f"/admin/orders/order/{order['id']}/do/confirm_orders/"
    assert confirm_url in page

    question = operator.get(confirm_url)
    assert question.status_code == 200
    assert "credits its merchant" in question.content.decode()
    assert Order.objects.get(pk=order["id"]).status == OrderStatus.PENDING

    done = operator.post(
        confirm_url,
        {"action": "confirm_orders", "_selected_action": order["id"], "confirmed": "yes"},
    )
    assert done.status_code == 302
    assert done["Location"] == f"/admin/orders/order/{order['id']}/change/"
    assert Order.objects.get(pk=order["id"]).status == OrderStatus.COMPLETED
    closed = operator.get(done["Location"]).content.decode()
    assert "/do/confirm_orders/" not in closed


def test_an_unknown_action_is_refused(operator, world, shop):
    order = shop.post("/api/v1/order/", buy_body(world)).json()
    assert operator.get(f"/admin/orders/order/{order['id']}/do/delete/").status_code == 403


def test_a_trader_page_leads_to_requisites_open_orders_and_conversion(operator, world, shop):
    operator.cookies["django_language"] = "en"  # the page's words, in English
    from orders.tests.world import trader_for

    order = shop.post("/api/v1/order/", buy_body(world)).json()
    trader = Order.objects.get(pk=order["id"]).trader
    listing = operator.get("/admin/orders/trader/").content.decode()
    assert f'?trader__id__exact={trader.pk}&amp;status__exact=Pending">1</a>' in listing

    trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
    page = operator.get(f"/admin/orders/trader/{trader.pk}/change/").content.decode()
    assert "conversion over 30 days 100.0 % (1 of 1 ended)" in page
    assert f"/admin/orders/requisite/?trader__id__exact={trader.pk}" in page
