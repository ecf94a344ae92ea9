import pytest

from finance.models import Balance
from finance.tests.factories import PaymentMethodFactory, TerminalFactory
from orders.models import Order
from orders.tests.factories import RequisiteFactory
from paymentsvc.models import IdempotencyRecord
from paymentsvc.testing import ApiClient

URL = "/api/v1/order/"


@pytest.fixture
def method(db):
    return RequisiteFactory().method


@pytest.fixture
def terminal(method):
    return TerminalFactory(available="100000.00", methods=[method])


@pytest.fixture
def shop(terminal) -> ApiClient:
    return ApiClient(terminal.raw_key)


def buy(method, amount="1000.00") -> dict:
    return {
        "client_order_id": "order-1",
        "order_side": "Buy",
        "payment_method_id": str(method.pk),
        "amount": str(amount),
    }


def test_repeat_with_same_key_and_body_replays_byte_for_byte(shop, method):
    body = buy(method)
    first = shop.post(URL, body, headers={"Idempotency-Key": "k-1"})
    second = shop.post(URL, body, headers={"Idempotency-Key": "k-1"})
    assert first.status_code == second.status_code == 201
    assert first.content == second.content
    assert second["Idempotent-Replayed"] == "true"
    assert not first.has_header("Idempotent-Replayed")
    assert Order.objects.count() == 1


def test_replayed_sell_reserves_once(shop, method, terminal):
    body = {**buy(method), "order_side": "Sell", "customer_account": "+79991234567"}
    for _ in range(3):
        shop.post(URL, body, headers={"Idempotency-Key": "sell"})
    assert Balance.objects.get(terminal=terminal).frozen == 1080


def test_same_key_with_another_body_is_422(shop, method):
    shop.post(URL, buy(method, 1000), headers={"Idempotency-Key": "k"})
    response = shop.post(URL, buy(method, 1001), headers={"Idempotency-Key": "k"})
    assert response.status_code == 422
    assert response.json()["code"] == "idempotency_key_reused"


def test_business_errors_are_stored_and_replayed(terminal):
    unmatched = PaymentMethodFactory()  # no requisites: 500 No available traders
    shop = ApiClient(TerminalFactory(methods=[unmatched]).raw_key)
    body = buy(unmatched)
    first = shop.post(URL, body, headers={"Idempotency-Key": "e"})
    second = shop.post(URL, body, headers={"Idempotency-Key": "e"})
    assert first.status_code == second.status_code == 500
    assert first.content == second.content
    assert second["Idempotent-Replayed"] == "true"


def test_key_in_flight_is_409(shop, method):
    body = buy(method)
    shop.post(URL, body, headers={"Idempotency-Key": "slow"})
    IdempotencyRecord.objects.filter(key="slow").update(in_flight=True, body=None, status_code=None)
    response = shop.post(URL, body, headers={"Idempotency-Key": "slow"})
    assert response.status_code == 409
    assert response.json()["code"] == "idempotency_in_flight"


def test_keys_are_scoped_to_the_terminal(shop, method):
    other = ApiClient(TerminalFactory(methods=[method]).raw_key)
    RequisiteFactory(method=method)  # a second requisite: both orders can hold 1000.00
    a = shop.post(URL, buy(method, 1000), headers={"Idempotency-Key": "shared"})
    b = other.post(URL, buy(method, 1000), headers={"Idempotency-Key": "shared"})
    assert a.status_code == b.status_code == 201
    assert a.json()["id"] != b.json()["id"]


def test_auth_failures_are_not_stored(anonymous, shop, method):
    anonymous.post(URL, buy(method), headers={"Idempotency-Key": "auth"})
    assert shop.post(URL, buy(method), headers={"Idempotency-Key": "auth"}).status_code == 201


def test_overlong_key_is_400(shop, method):
    response = shop.post(URL, buy(method), headers={"Idempotency-Key": "x" * 256})
    assert response.status_code == 400
    assert Order.objects.count() == 0
