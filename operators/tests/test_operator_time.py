"""Times an operator reads are in OPERATOR_TIME_ZONE, the zone named beside them: the
order's page and its history, the dispute's page and the confirmation pages."""

import re
from zoneinfo import ZoneInfo

from demo.testing import buy_body
from disputes.models import Dispute
from orders.models import Order


def shown(moment, zone="Europe/Moscow") -> str:
    return moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M:%S")


def test_an_order_and_its_dispute_are_shown_in_moscow_time(operator, shop, world):
    created = shop.post("/api/v1/order/", buy_body(world, amount="2500.00")).json()
    response = shop.post_multipart(
        "/api/v1/disputes/create", {"order_id": created["id"], "amount": "2500"}
    )
    assert response.status_code == 201
    order = Order.objects.get(pk=created["id"])
    dispute = Dispute.objects.get(order=order)
    pages = {
        "order": operator.get(f"/admin/orders/order/{order.pk}/change/"),
        "dispute": operator.get(f"/admin/disputes/dispute/{dispute.pk}/change/"),
        "list": operator.get("/admin/orders/order/"),
    }
    for name, page in pages.items():
        html = page.content.decode()
        assert page.status_code == 200, name
        assert "+00:00" not in html and not re.search(r"\d{2}:\d{2}:\d{2}\.\d{6}", html), name
        assert f"{shown(order.created_at)} MSK" in html or (
            name == "list" and f"{shown(order.created_at)[:16]}" in html
        ), name
    # The history's rows (events with their times) and the dispute's order details.
    dispute_html = pages["dispute"].content.decode()
    assert f"{shown(order.expires_at)} MSK" in dispute_html
    assert re.search(r"<td>[^<]*\d{2}:\d{2}:\d{2} MSK</td>", dispute_html)


def test_the_zone_is_the_setting(operator, shop, world, settings):
    settings.OPERATOR_TIME_ZONE = "Asia/Yekaterinburg"
    created = shop.post("/api/v1/order/", buy_body(world, amount="2600.00")).json()
    order = Order.objects.get(pk=created["id"])
    html = operator.get(f"/admin/orders/order/{order.pk}/change/").content.decode()
    assert shown(order.created_at, "Asia/Yekaterinburg") in html
