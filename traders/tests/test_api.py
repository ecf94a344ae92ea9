"""The traders' API: its orders (listing, confirm, decline, what it shows), who the
trader is, its requisites and their switch, its statistics."""

from datetime import timedelta
from decimal import Decimal
from types import SimpleNamespace

import pytest

from conftest import ApiClient, buy_body, sell_body
from core.errors import NoAvailableTraders
from finance.tests.factories import PaymentMethodFactory, TerminalFactory
from orders.models import Order
from orders.services.requisite_state import requisite_switch
from orders.tests.clock import orders_age
from orders.tests.factories import RequisiteFactory, buy_order
from orders.tests.world import World, trader_for

URL = "/api/v1/order/"


@pytest.fixture
def world(db) -> World:
    """A shop with 100000.00 deposited; four traders, two holding a requisite on
    Sberbank SBP and two on the bank card."""
    return World.build({"Sberbank SBP": 2, "Bank card": 2}, available="100000.00")


@pytest.fixture
def shop(world) -> ApiClient:
    return world.api


@pytest.fixture
def traders(world) -> list[ApiClient]:
    return [ApiClient(f"trader-key-{r.trader_id}") for r in world.requisites]


def test_another_traders_order_is_404_for_trader(shop, world, traders):
    order = shop.post(URL, buy_body(world)).json()
    mine = trader_for(order)
    others = [trader for trader in traders if trader.key != mine.key]
    assert len(others) == 3
    for other in others:
        assert other.post(f"/api/v1/trader/orders/{order['id']}/confirm").status_code == 404


def test_merchant_key_on_trader_route_is_401_and_trader_key_on_merchant_route_is_401(
    shop, traders, world
):
    assert shop.get("/api/v1/trader/orders").status_code == 401
    response = traders[0].get("/api/v1/finance/balance")
    assert response.status_code == 401
    assert response.json()["message"] == "Invalid API key"


def test_trader_lists_only_orders_on_its_requisites(shop, traders, world):
    for amount in (1000, 1001, 1002, 1003):
        shop.post(
            URL, sell_body(world, amount=amount, method="Bank card", account="4111111111111111")
        )
    seen = 0
    for trader in traders:
        page = trader.get("/api/v1/trader/orders", {"status": "Pending"}).json()["orders"]
        for item in page["items"]:
            assert trader_for(item).key == trader.key
        seen += page["total"]
    assert seen == 4


MERCHANT_FIELDS = {
    "webhook_url",
    "form_url",
    "redirect_url",
    "client_order_id",
    "user_id",
    "terminal_id",
    "terminal",
    "merchant_name",
    "fee",
    "fixed_fee",
    "fee_amount",
}


def test_traders_view_of_an_order_leaves_out_the_merchants_fields(shop, world):
    body = buy_body(world, client_order_id="mine-1", webhook_url="https://merchant.example/hook")
    body["user_id"] = "merchant-user-9"
    order = shop.post("/api/v1/order/", body).json()
    trader = trader_for(order)
    listed = trader.get("/api/v1/trader/orders").json()["orders"]["items"]
    item = next(i for i in listed if i["id"] == order["id"])
    confirmed = trader.post(f"/api/v1/trader/orders/{order['id']}/confirm").json()["order"]
    for seen in (item, confirmed):
        assert not MERCHANT_FIELDS & seen.keys(), seen
        assert "merchant" not in str(seen) and "mine-1" not in str(seen)
        assert seen["amount"] == order["amount"] and seen["order_side"] == "Buy"
        assert seen["holder_account"] == order["holder_account"]
        assert seen["customer_account"] is None
    assert confirmed["status"] == "Completed" and confirmed["paid_amount"] is not None
    sell = shop.post("/api/v1/order/", sell_body(world, client_order_id="mine-2")).json()
    sold = trader_for(sell).get("/api/v1/trader/orders", {"order_side": "Sell"}).json()
    assert sold["orders"]["items"][0]["customer_account"] == sell["customer_account"]


# --- who the trader is, its requisites and their switch, its statistics -------------

REQUISITE_FIELDS = {
    "id",
    "method_id",
    "method_name",
    "method_type",
    "nspk_code",
    "holder_name",
    "account",
    "is_active",
    "disabled_reason",
    "min_amount",
    "max_amount",
    "max_pending",
    "daily_limit",
    "pending",
    "turnover_today",
    "auto_disable_after",
}


@pytest.fixture
def desk(db):
    """A terminal with money and one method; a trader with one requisite on it."""
    method = PaymentMethodFactory()
    terminal = TerminalFactory(available="1000000.00", methods=[method])
    requisite = RequisiteFactory(method=method, min_amount=Decimal("100.00"))
    return SimpleNamespace(
        method=method,
        terminal=terminal,
        requisite=requisite,
        trader=requisite.trader,
        api=ApiClient(requisite.trader.raw_key),
    )


def test_me_names_the_trader(desk):
    body = desk.api.get("/api/v1/trader/me").json()
    assert body["success"] is True
    assert body["trader"] == {"id": str(desk.trader.pk), "name": desk.trader.name, "sandbox": False}
    assert ApiClient(None).get("/api/v1/trader/me").status_code == 401


def test_requisites_show_limits_and_todays_figures(desk):
    buy_order(terminal=desk.terminal, method=desk.method, amount="1500.00")
    body = desk.api.get("/api/v1/trader/requisites").json()
    (item,) = body["requisites"]
    assert set(item) == REQUISITE_FIELDS
    assert item["id"] == str(desk.requisite.pk)
    assert item["method_id"] == str(desk.method.pk) and item["method_type"] == "SBP"
    assert item["nspk_code"] == desk.method.nspk_code
    assert item["is_active"] is True and item["disabled_reason"] is None
    assert item["min_amount"] == "100.00" and item["max_amount"] is None
    assert item["daily_limit"] == "100000000.00" and item["max_pending"] is None
    assert item["pending"] == 1 and item["turnover_today"] == "1500.00"
    assert item["auto_disable_after"] is None


def test_trader_switches_its_requisite_off_and_on(desk):
    url = f"/api/v1/trader/requisites/{desk.requisite.pk}"
    off = desk.api.post(f"{url}/disable")
    assert off.status_code == 200
    assert off.json()["requisite"]["is_active"] is False
    assert off.json()["requisite"]["disabled_reason"] == "trader"
    with pytest.raises(NoAvailableTraders):
        buy_order(terminal=desk.terminal, method=desk.method)
    on = desk.api.post(f"{url}/enable").json()["requisite"]
    assert on["is_active"] is True and on["disabled_reason"] is None
    assert buy_order(terminal=desk.terminal, method=desk.method).requisite_id == desk.requisite.pk


def test_another_traders_requisite_is_404(desk):
    other = RequisiteFactory(method=desk.method)
    for action in ("enable", "disable"):
        for rid in (other.pk, "not-a-uuid"):
            response = desk.api.post(f"/api/v1/trader/requisites/{rid}/{action}")
            assert response.status_code == 404, response.content
            assert response.json()["code"] == "requisite_not_found"
    other.refresh_from_db()
    assert other.is_active is True


def test_operators_switch_off_is_409_for_its_trader(desk):
    requisite_switch(requisite_id=desk.requisite.pk, on=False, by_operator=True)
    url = f"/api/v1/trader/requisites/{desk.requisite.pk}"
    response = desk.api.post(f"{url}/enable")
    assert response.status_code == 409
    assert response.json()["code"] == "disabled_by_operator"
    assert desk.api.post(f"{url}/disable").json()["requisite"]["disabled_reason"] == "operator"
    desk.requisite.refresh_from_db()
    assert desk.requisite.is_active is False and desk.requisite.disabled_reason == "operator"
    requisite_switch(requisite_id=desk.requisite.pk, on=True, by_operator=True)
    assert desk.api.post(f"{url}/enable").status_code == 200


def test_stats_count_the_periods_orders(desk):
    done = buy_order(terminal=desk.terminal, method=desk.method, amount="1000.00")
    desk.api.post(f"/api/v1/trader/orders/{done.pk}/confirm")
    Order.objects.filter(pk=done.pk).update(trader_reward=Decimal("25.00"))
    declined = buy_order(terminal=desk.terminal, method=desk.method, amount="2000.00")
    desk.api.post(f"/api/v1/trader/orders/{declined.pk}/cancel")
    buy_order(terminal=desk.terminal, method=desk.method, amount="3000.00")  # still Pending
    old = buy_order(terminal=desk.terminal, method=desk.method, amount="4000.00")
    orders_age(timedelta(days=2), pk=old.pk)  # in 7d, not in 24h; ended Expired

    day = desk.api.get("/api/v1/trader/stats", {"period": "24h"}).json()["stats"]
    assert day == {
        "period": "24h",
        "orders": 3,
        "completed": 1,
        "conversion": 50.0,
        "turnover": "1000.00",
        "reward": "25.00",
    }
    week = desk.api.get("/api/v1/trader/stats", {"period": "7d"}).json()["stats"]
    assert week["orders"] == 4 and week["completed"] == 1 and week["conversion"] == 33.3
    assert desk.api.get("/api/v1/trader/stats", {"period": "1y"}).status_code == 400


def test_stats_of_a_quiet_period_are_zero(desk):
    stats = desk.api.get("/api/v1/trader/stats", {"period": "30d"}).json()["stats"]
    assert stats == {
        "period": "30d",
        "orders": 0,
        "completed": 0,
        "conversion": 0,
        "turnover": "0.00",
        "reward": "0.00",
    }


def test_schema_describes_the_traders_account_endpoints(client):
    paths = client.get("/api/schema/?format=json").json()["paths"]
    for path in (
        "/api/v1/trader/me",
        "/api/v1/trader/requisites",
        "/api/v1/trader/requisites/{requisite_id}/enable",
        "/api/v1/trader/requisites/{requisite_id}/disable",
        "/api/v1/trader/stats",
    ):
        assert path in paths, path
