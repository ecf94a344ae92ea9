"""Tenancy as a matrix: every merchant endpoint, asked by every other terminal about
Demo Shop's objects, must neither show nor change them."""

import pytest

from conftest import ApiClient, buy_body, sell_body
from finance.models import Balance

OTHERS = ["demo-form-key", "demo-closed-key"]


@pytest.fixture
def owned(shop, demo):
    buy = shop.post("/api/v1/order/", buy_body(demo, client_order_id="owned-buy"))
    sell = shop.post("/api/v1/order/", sell_body(demo, client_order_id="owned-sell"))
    # The setup is what the tests assume: two orders of Demo Shop's.
    assert buy.status_code == 201 and sell.status_code == 201, (buy.content, sell.content)
    return {"buy": buy.json(), "sell": sell.json()}


@pytest.mark.parametrize("key", OTHERS)
@pytest.mark.parametrize("which", ["buy", "sell"])
def test_other_terminal_cannot_read_or_cancel_an_order(key, which, owned):
    other = ApiClient(key)
    order_id = owned[which]["id"]
    assert other.get(f"/api/v1/order/{order_id}").status_code == 404
    assert other.post(f"/api/v1/order/{order_id}/cancel").status_code == 404
    assert other.get(f"/api/v1/order/{order_id}/").status_code == 404


@pytest.mark.parametrize("key", OTHERS)
def test_other_terminal_lists_show_nothing_of_demo_shop(key, owned, shop):
    other = ApiClient(key)
    window = {"start_date": "2000-01-01T00:00:00Z"}
    # The owner sees what the others must not: the lists below could show it.
    mine = shop.get("/api/v1/order/", window).json()["orders"]["items"]
    assert {o["id"] for o in owned.values()} <= {i["id"] for i in mine}
    assert any(
        t["terminal"]["name"] == "Demo Shop"
        for t in shop.get("/api/v1/finance/transactions").json()["items"]
    )
    items = other.get("/api/v1/order/", window).json()["orders"]["items"]
    assert not {i["id"] for i in items} & {o["id"] for o in owned.values()}
    for client_order_id in ("owned-buy", "owned-sell"):
        found = other.get("/api/v1/order/search-by-client-order-id", {"id": client_order_id}).json()
        assert found["orders"]["items"] == []
    transactions = other.get("/api/v1/finance/transactions").json()["items"]
    assert all(t["terminal"]["name"] != "Demo Shop" for t in transactions)


@pytest.mark.parametrize("key", OTHERS)
def test_other_terminal_balance_is_its_own(key, owned, demo):
    body = ApiClient(key).get("/api/v1/finance/balance").json()
    assert body["deposit"]["id"] != str(Balance.objects.get(terminal=demo.shop).id)


def test_orders_left_untouched_by_other_terminals(shop, owned):
    for other in OTHERS:
        ApiClient(other).post(f"/api/v1/order/{owned['buy']['id']}/cancel")
    assert shop.get(f"/api/v1/order/{owned['buy']['id']}").json()["order"]["status"] == "Pending"


@pytest.mark.parametrize("key", OTHERS)
def test_other_terminal_cannot_dispute_or_see_disputes_and_sessions(key, owned, shop):
    order_id = owned["buy"]["id"]
    disputed = shop.post_multipart(
        "/api/v1/disputes/create", {"order_id": owned["sell"]["id"], "amount": "5"}
    )
    form = shop.post(
        "/api/v1/form/create",
        {"order_data": {"client_order_id": "s", "order_side": "Buy", "amount": "700"}},
    )
    # The owner's dispute and session exist: the others' empty answers mean something.
    assert disputed.status_code == 201 and form.status_code == 201, (disputed.content, form.content)
    assert shop.get("/api/v1/disputes/search").json()["data"]["total"] == 1
    other = ApiClient(key)
    response = other.post_multipart(
        "/api/v1/disputes/create", {"order_id": order_id, "amount": "10"}
    )
    assert response.status_code == 403
    assert other.get("/api/v1/disputes/search").json()["data"]["items"] == []
    assert (
        other.get("/api/v1/disputes/search", {"order_id": owned["sell"]["id"]}).json()["data"][
            "total"
        ]
        == 0
    )
    assert other.get("/api/v1/form/search").json()["items"] == []
    assert shop.get("/api/v1/form/search").json()["total"] == 1
