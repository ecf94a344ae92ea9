"""One amount field, one set of words (traders.md §24): every endpoint that reads an
amount refuses the same inputs with the same message, and no number makes a 500."""

from decimal import Decimal

import pytest

from conftest import ApiClient, buy_body
from core.amounts import AMOUNT_MESSAGES, AmountError, read_amount
from disputes.models import Dispute
from forms_ui.models import FormSession
from orders.models import Order

# What is sent (as JSON text, so numbers keep their written form) -> what is wrong.
REFUSED = [
    ('"10.001"', "decimals"),
    ("10.001", "decimals"),
    ('"1 000"', "separator"),
    ('"1\u00a0000.00"', "separator"),
    ('"1,000.00"', "separator"),
    ('"10,50"', "separator"),
    ('"1_000"', "separator"),
    ('"1e3"', "exponent"),
    ("1e3", "exponent"),
    ("1e30", "exponent"),
    ("1.5E+20", "exponent"),
    ('"0"', "zero"),
    ("0", "zero"),
    ('"0.00"', "zero"),
    ("0.0", "zero"),
    ('"-5"', "negative"),
    ("-5", "negative"),
    ("-1e30", "exponent"),
    ('"1000000000000"', "too_large"),
    ("1000000000000", "too_large"),
    ("999999999999999999.99", "too_large"),
    ('"abc"', "invalid"),
    ('""', "invalid"),
    ('"NaN"', "invalid"),
    ('"Infinity"', "invalid"),
    ('"\u0661\u0660"', "invalid"),
    ("true", "invalid"),
    ("[]", "invalid"),
]


@pytest.mark.parametrize(
    "value, expected",
    [
        ("1000", Decimal("1000.00")),
        (" 10.5 ", Decimal("10.50")),
        ("0.01", Decimal("0.01")),
        (".5", Decimal("0.50")),
        ("999999999999.99", Decimal("999999999999.99")),
        (7, Decimal("7.00")),
        (Decimal("0.5700000000000001"), Decimal("0.57")),
    ],
)
def test_accepted_amounts_are_read_as_money(value, expected):
    assert read_amount(value) == expected


def test_a_number_too_big_for_the_decimal_context_is_too_large_not_a_crash():
    with pytest.raises(AmountError) as caught:
        read_amount(Decimal("9" * 60))
    assert caught.value.code == "too_large"


def test_every_kind_of_wrong_has_its_own_words():
    assert len(set(AMOUNT_MESSAGES.values())) == len(AMOUNT_MESSAGES)


def raw_json(template: str, amount: str) -> str:
    return template.replace('"@AMOUNT@"', amount)


def order_raw(demo, amount: str) -> str:
    import json

    return raw_json(json.dumps(buy_body(demo, amount="@AMOUNT@")), amount)


def form_raw(amount: str) -> str:
    return (
        '{"order_data": {"client_order_id": "f-1", "order_side": "Buy", "amount": ' + amount + "}}"
    )


@pytest.mark.parametrize("sent, problem", REFUSED)
def test_an_order_refuses_the_amount_in_its_own_words(shop, demo, sent, problem):
    response = shop.post("/api/v1/order/", raw=order_raw(demo, sent))
    assert response.status_code == 400, response.content
    assert response.json()["errors"]["amount"] == [AMOUNT_MESSAGES[problem]]
    assert response.json()["message"] == f"Invalid amount: {AMOUNT_MESSAGES[problem]}"
    assert not Order.objects.exists()


@pytest.mark.parametrize("sent, problem", REFUSED)
def test_a_form_session_refuses_the_amount_in_the_same_words(shop, demo, sent, problem):
    response = shop.post("/api/v1/form/create", raw=form_raw(sent))
    assert response.status_code == 400, response.content
    assert response.json()["errors"]["order_data.amount"] == [AMOUNT_MESSAGES[problem]]
    assert not FormSession.objects.exists()


@pytest.fixture
def sandbox(demo) -> ApiClient:
    return ApiClient("demo-sandbox-key")


@pytest.mark.parametrize("sent, problem", REFUSED)
def test_simulate_refuses_the_paid_amount_in_the_same_words(sandbox, demo, sent, problem):
    order = sandbox.post("/api/v1/order/", buy_body(demo)).json()
    response = sandbox.post(
        f"/api/v1/sandbox/order/{order['id']}/simulate",
        raw='{"action": "complete", "paid_amount": ' + sent + "}",
    )
    assert response.status_code == 400, response.content
    assert response.json()["errors"]["paid_amount"] == [AMOUNT_MESSAGES[problem]]
    assert Order.objects.get(pk=order["id"]).status == "Pending"


def test_simulate_takes_at_most_twice_the_amount_like_a_traders_confirm(sandbox, demo):
    order = sandbox.post("/api/v1/order/", buy_body(demo, amount="1000.00")).json()
    url = f"/api/v1/sandbox/order/{order['id']}/simulate"
    response = sandbox.post(url, {"action": "complete", "paid_amount": "2000.01"})
    assert response.status_code == 400, response.content
    assert response.json()["errors"]["paid_amount"] == [
        "Must be at most twice the order's amount (2000.00)"
    ]
    assert Order.objects.get(pk=order["id"]).status == "Pending"
    response = sandbox.post(url, {"action": "complete", "paid_amount": "2000.00"})
    assert response.status_code == 200, response.content
    assert response.json()["order"]["paid_amount"] == "2000.00"


@pytest.mark.parametrize(
    "sent, problem",
    [
        ("10.001", "decimals"),
        ("1 000", "separator"),
        ("1e3", "exponent"),
        ("0", "zero"),
        ("-5", "negative"),
        ("1000000000000", "too_large"),
    ],
)
def test_a_dispute_refuses_the_amount_in_the_same_words(shop, demo, sent, problem, settings):
    order = shop.post("/api/v1/order/", buy_body(demo)).json()
    response = shop.post_multipart(
        "/api/v1/disputes/create", {"order_id": order["id"], "amount": sent}
    )
    assert response.status_code == 400, response.content
    assert response.json()["errors"]["amount"] == [AMOUNT_MESSAGES[problem]]
    assert not Dispute.objects.exists()


def test_an_amount_beyond_the_methods_limits_keeps_the_contracts_409(shop, demo):
    response = shop.post("/api/v1/order/", buy_body(demo, amount="999999999999.99"))
    assert response.status_code == 409, response.content
    assert response.json()["message"].startswith("Expectation Failed")
