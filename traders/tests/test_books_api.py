"""GET /api/v1/trader/balance and /trader/transactions (traders.md §19), and the
merchant's GET /api/v1/terminal."""

from decimal import Decimal

import pytest

from core.testing import ApiClient
from finance.tests.factories import PaymentMethodFactory, TerminalFactory
from orders.services import order_confirm
from orders.tests.factories import RequisiteFactory, TraderFactory, buy_order


@pytest.fixture
def books(db):
    method = PaymentMethodFactory()
    for fee_range in method.ranges.all():
        fee_range.trader_reward_percent = Decimal("2.5")
        fee_range.save()
    shop = TerminalFactory(methods=[method], available="100.00")
    trader = TraderFactory(deposit="1000.00")
    RequisiteFactory(trader=trader, method=method)
    done = order_confirm(
        order_id=buy_order(terminal=shop, method=method, amount="530.00").pk, actor="t"
    )
    pending = buy_order(terminal=shop, method=method, amount="200.00")
    return shop, trader, done, pending


def test_the_balance_shows_the_working_deposit(books):
    _, trader, _, _ = books
    body = ApiClient(trader.raw_key).get("/api/v1/trader/balance").json()
    # 1000 - 530 + 13.25 = 483.25, of which the Pending 200.00 is frozen
    assert body == {
        "success": True,
        "message": "OK",
        "balance": {
            "available": "283.25",
            "frozen": "200.00",
            "total": "483.25",
            "currency": "RUB",
        },
    }


def test_a_trader_without_a_deposit_has_a_zero_balance(db):
    trader = TraderFactory(deposit="0")
    balance = ApiClient(trader.raw_key).get("/api/v1/trader/balance").json()["balance"]
    assert (balance["available"], balance["frozen"], balance["total"]) == ("0.00", "0.00", "0.00")


def test_the_transactions_list_is_the_traders_ledger_newest_first(books):
    _, trader, done, _ = books
    api = ApiClient(trader.raw_key)
    page = api.get("/api/v1/trader/transactions").json()["transactions"]
    assert (page["total"], page["page"], page["size"], page["pages"]) == (3, 1, 10, 1)
    rows = [
        (i["transaction_type"], i["amount"], i["balance_after"], i["order_id"])
        for i in page["items"]
    ]
    assert rows == [
        ("reward", "13.25", "483.25", str(done.pk)),
        ("order_buy", "530.00", "470.00", str(done.pk)),
        ("deposit", "1000.00", "1000.00", None),
    ]
    assert set(page["items"][0]) == {
        "id",
        "transaction_type",
        "amount",
        "balance_after",
        "order_id",
        "description",
        "created_at",
    }
    # Named by our order id: the merchant's client_order_id is not the trader's to see.
    short = str(done.pk)[:8]
    assert [i["description"] for i in page["items"][:2]] == [f"Reward {short}", f"Buy {short}"]
    assert done.client_order_id not in str(page)
    only = api.get("/api/v1/trader/transactions", {"transaction_type": "deposit"}).json()
    assert [i["description"] for i in only["transactions"]["items"]] == ["Initial deposit"]
    by_order = api.get("/api/v1/trader/transactions", {"order_id": str(done.pk)}).json()
    assert by_order["transactions"]["total"] == 2
    second = api.get("/api/v1/trader/transactions", {"size": 2, "page": 2}).json()
    assert [i["transaction_type"] for i in second["transactions"]["items"]] == ["deposit"]


@pytest.mark.parametrize(
    "query",
    [{"transaction_type": "revenue"}, {"order_id": "nope"}, {"page": 0}, {"size": 101}],
)
def test_bad_filters_are_400(books, query):
    _, trader, _, _ = books
    response = ApiClient(trader.raw_key).get("/api/v1/trader/transactions", query)
    assert response.status_code == 400
    assert response.json()["success"] is False


def test_another_traders_ledger_is_not_shown_and_keys_are_required(books):
    other = TraderFactory(deposit="5.00")
    page = ApiClient(other.raw_key).get("/api/v1/trader/transactions").json()["transactions"]
    assert [i["amount"] for i in page["items"]] == ["5.00"]
    shop = books[0]
    assert ApiClient(shop.raw_key).get("/api/v1/trader/balance").status_code == 401
    assert ApiClient(None).get("/api/v1/trader/transactions").status_code == 401


def test_the_terminal_endpoint_names_the_merchants_terminal(books):
    shop = books[0]
    body = ApiClient(shop.raw_key).get("/api/v1/terminal").json()
    assert body == {
        "success": True,
        "message": "OK",
        "terminal": {
            "id": str(shop.pk),
            "name": shop.name,
            "livemode": True,
            "integration_type": "h2h",
            "currency": "RUB",
        },
    }
    assert ApiClient(books[1].raw_key).get("/api/v1/terminal").status_code == 401


def test_the_schema_describes_them(db):
    from django.test import Client

    schema = Client().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    paths = schema["paths"]
    for path in ("/api/v1/trader/balance", "/api/v1/trader/transactions", "/api/v1/terminal"):
        assert "get" in paths[path], path
