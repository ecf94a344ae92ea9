from decimal import Decimal

import pytest

from core.testing import ApiClient
from finance.services import balance_adjust
from finance.tests.factories import PaymentMethodFactory, TerminalFactory
from orders.tests.factories import RequisiteFactory

URL = "/api/v1/finance/transactions"


@pytest.fixture
def method(db):
    return PaymentMethodFactory()


@pytest.fixture
def terminal(method):
    return TerminalFactory(name="Demo Shop", available="100000.00", methods=[method])


@pytest.fixture
def shop(terminal) -> ApiClient:
    return ApiClient(terminal.raw_key)


def test_initial_deposit_is_listed_with_every_field(shop, terminal):
    body = shop.get(URL).json()
    assert set(body) == {"total", "page", "size", "pages", "items"}
    assert (body["total"], body["page"], body["size"], body["pages"]) == (1, 1, 20, 1)
    item = body["items"][0]
    assert item["amount"] == "100000.00"
    assert item["transaction_type"] == "deposit"
    assert item["client_description"] == "Initial deposit"
    assert item["deposit_id"] == str(terminal.balance.id)
    assert item["terminal"] == {"id": str(terminal.id), "currency": "RUB", "name": "Demo Shop"}
    assert item["client_id"] == str(terminal.client_id)
    assert item["balance_after"] == "100000.00"
    assert item["created_at"].endswith("Z")


def test_a_page_however_far_past_the_end_is_empty(shop):
    body = shop.get(URL, {"page": 10**23, "size": 100}).json()
    assert (body["items"], body["total"], body["page"]) == ([], 1, 10**23)


def test_order_flows_append_deposits_and_withdrawals_with_running_total(shop, method):
    trader = ApiClient(RequisiteFactory(method=method).trader.raw_key)
    common = {"payment_method_id": str(method.pk), "amount": "1000"}
    buy = shop.post("/api/v1/order/", {"client_order_id": "b", "order_side": "Buy", **common})
    assert trader.post(f"/api/v1/trader/orders/{buy.json()['id']}/confirm").status_code == 200
    account = {"customer_account": "+79991234567"}
    sell = shop.post(
        "/api/v1/order/", {"client_order_id": "s", "order_side": "Sell", **common, **account}
    )
    assert trader.post(f"/api/v1/trader/orders/{sell.json()['id']}/confirm").status_code == 200
    items = shop.get(URL).json()["items"]
    assert [(i["transaction_type"], i["amount"], i["balance_after"]) for i in items] == [
        ("withdrawal", "1080.00", "99870.00"),
        ("deposit", "950.00", "100950.00"),
        ("deposit", "100000.00", "100000.00"),
    ]
    withdrawals = shop.get(URL, {"transaction_type": "withdrawal"}).json()
    assert withdrawals["total"] == 1


def test_operator_adjustments_carry_the_comment(shop, terminal):
    balance_adjust(
        terminal_id=terminal.pk, amount=Decimal("-250.50"), description="Refund fee", actor="op"
    )
    item = shop.get(URL).json()["items"][0]
    assert (item["transaction_type"], item["amount"], item["client_description"]) == (
        "withdrawal",
        "250.50",
        "Refund fee",
    )


def test_date_filters(shop):
    assert shop.get(URL, {"start_date": "2999-01-01T00:00:00Z"}).json()["total"] == 0
    assert shop.get(URL, {"end_date": "2000-01-01T00:00:00Z"}).json()["total"] == 0
    assert shop.get(URL, {"start_date": "2000-01-01"}).json()["total"] == 1


@pytest.mark.parametrize(
    "params",
    [
        {"transaction_type": "refund"},
        {"size": 101},
        {"size": 0},
        {"page": 0},
        {"start_date": "nope"},
        {"start_date": "2026-02-01T00:00:00Z", "end_date": "2026-01-01T00:00:00Z"},
    ],
)
def test_bad_parameters_are_400(shop, params):
    response = shop.get(URL, params)
    assert response.status_code == 400
    assert response.json()["success"] is False


def test_other_terminals_see_only_their_own(shop):
    assert ApiClient(TerminalFactory().raw_key).get(URL).json()["total"] == 0
